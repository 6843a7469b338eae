import type { Ctx } from "../context";
import { cacheKey, readCacheEntry, writeCacheEntry } from "../cache";
import type { CacheMode, Upstream } from "../calls";

/**
 * The completion cache for an answer passed through as the provider gave it (a Message from
 * Anthropic, a Response from OpenAI), with the same modes as the chat gateway (op-cache or
 * hone.cache): read before the call, written once the answer is whole. `status` is what the
 * x-hone-cache header says on a call that is not a hit (MISS when a mode was asked for).
 */
export function nativeCache(
  ctx: Ctx,
  mode: CacheMode | null | undefined,
  request: { up: Upstream; body: Record<string, unknown>; api: "messages" | "responses" },
) {
  const key = mode
    ? cacheKey({ projectId: ctx.projectId, target: request.up.target, upstreamModel: request.up.upstreamModel, body: request.body, api: request.api })
    : null;
  return {
    status: mode ? ("MISS" as const) : null,
    async read(): Promise<Record<string, unknown> | null> {
      if (!key || (mode !== "readWrite" && mode !== "readOnly")) return null;
      const hit = await readCacheEntry<Record<string, unknown>>(ctx, key);
      ctx.deps.metrics.cacheLookup(hit ? "hit" : "miss");
      return hit?.response ?? null;
    },
    /**
     * Resolves once the answer is stored (never rejects: a cache that cannot be written only costs
     * a miss later, and is logged). The caller ends its answer after it, as the chat gateway does,
     * so the same request sent right after the answer is a hit. An answer larger than Hone holds
     * (HONE_MAX_LOGGED_PAYLOAD_BYTES: a long stream, put together) is not kept.
     */
    async write(answer: Record<string, unknown>): Promise<void> {
      if (!key || (mode !== "readWrite" && mode !== "writeOnly")) return;
      if (JSON.stringify(answer).length > ctx.deps.config.maxLoggedPayloadBytes) return;
      try {
        await writeCacheEntry(ctx, key, answer);
      } catch (err) {
        ctx.deps.logger.warn("cache write failed", { requestId: ctx.requestId, error: err instanceof Error ? err.message : String(err) });
      }
    },
  };
}
