import type { Ctx } from "../context";
import { DomainError, parseInput } from "../../core/errors";
import type { EmbeddingList } from "../../providers";
import { cacheKey, readCacheEntry, writeCacheEntry } from "../cache";
import { createCallLog, type ControlHeaders, EmbeddingsRequest } from "../calls";
import { encodedAs, usageOf, withoutVectors } from "./embedding-vectors";
import { checkBodyTags, parseControls, parseLogVectors } from "./parse-controls";
import { resolveModel } from "../projects";
import type { Upstream } from "../calls";
import { mergeTags } from "../logs";
import { type CallRouter, findRoute, routeCall } from "../routing";

type CreateEmbeddingsInput = {
  /** The JSON body as the client sent it (validated here). */
  body: unknown;
  headers: Omit<ControlHeaders, "criteria">;
  /** Aborted when the client goes away: the upstream call is aborted with it. */
  signal: AbortSignal;
};

type EmbeddingsResult = { response: EmbeddingList; cache: "HIT" | "MISS" | null };

/**
 * The gateway's embeddings verb: OpenAI's Embeddings API on any provider that has one, with the
 * chat gateway's controls (logging, tags, caching). The log keeps the request as sent and the
 * answer without its vectors (each replaced by its size) unless the client asks for them.
 */
export async function createEmbeddings(ctx: Ctx, input: CreateEmbeddingsInput): Promise<EmbeddingsResult> {
  checkBodyTags(input.body);
  const request = parseInput(EmbeddingsRequest, input.body);
  const controls = parseControls(input.headers, request.hone);
  const logVectors = parseLogVectors(input.headers.logVectors, request.hone?.logVectors);
  const encoding = request.encoding_format ?? "float";

  // As on chat: a call naming one of the project's fine-tunes is logged only when asked.
  let fineTune = false;
  const call = await createCallLog(ctx, {
    request,
    rawBody: input.body,
    tags: controls.tags,
    api: "embeddings",
    shouldLog: () => controls.logRequest ?? (!fineTune || ctx.deps.config.logFinetuneCalls === "always"),
  });
  const logged = (list: EmbeddingList) => (logVectors ? list : withoutVectors(list));

  // A route (hone:<slug>), the call's fallbacks or a key pool route it (domain/routing).
  let router: CallRouter;
  try {
    const route = resolveModel(request.model, ctx.deps.config.modelPrefixes);
    fineTune = route.provider === "hone";
    if (route.provider === "anthropic") {
      throw cannotEmbed(`Anthropic has no embeddings API: \`${request.model}\` cannot create embeddings; use an openai:, gemini: or custom provider model`);
    }
    const named = route.provider === "hone" && (await findRoute(ctx, route.slug)) !== null;
    if (route.provider === "hone" && !named) {
      throw cannotEmbed(`\`${request.model}\` is a fine-tuned chat model: it cannot create embeddings; use an openai:, gemini: or custom provider model`);
    }
    fineTune = false;
    const tags = mergeTags(request.metadata, controls.tags);
    router = await routeCall(ctx, call, { model: request.model, route, fallbacks: controls.fallbacks, tags, signal: input.signal });
    const only = router.upstream();
    if (only && !only.pool && !only.client.embed) throw cannotEmbed(`The provider of \`${request.model}\` has no embeddings API`);
  } catch (err) {
    throw call.failure(err);
  }
  // A routed call's target that has no embeddings API (a chat fine-tune, Anthropic) is passed over.
  const embed = (up: Upstream, signal: AbortSignal) => {
    if (!up.client.embed) throw new DomainError("UPSTREAM_ERROR", `${up.provider}:${up.upstreamModel} has no embeddings API`, { upstreamStatus: 404 });
    return up.client.embed(upstreamBody(request, up), { signal });
  };

  const mode = controls.cache;
  const key = mode ? cacheKey({ projectId: ctx.projectId, ...router.cacheTarget(), body: request, api: "embeddings" }) : null;
  if (key && (mode === "readWrite" || mode === "readOnly")) {
    const hit = await readCacheEntry<EmbeddingList>(ctx, key);
    ctx.deps.metrics.cacheLookup(hit ? "hit" : "miss");
    if (hit) {
      try {
        await call.admitCached();
        const response = encodedAs(hit.response, encoding);
        call.log({ statusCode: 200, errorMessage: null, respPayload: logged(response), usage: usageOf(hit.response), cacheHit: true });
        return { response, cache: "HIT" };
      } catch (err) {
        throw call.failure(err);
      }
    }
  }

  try {
    const answer = await router.send(embed);
    const response = encodedAs(answer, encoding);
    if (key && (mode === "readWrite" || mode === "writeOnly") && answer.data.length > 0) {
      try {
        // Stored as the upstream sent it: each hit re-encodes it for its own client.
        await writeCacheEntry(ctx, key, answer);
      } catch (err) {
        // The caller already has its answer; a cache that cannot be written only costs a miss later.
        ctx.deps.logger.warn("cache write failed", { requestId: ctx.requestId, error: err instanceof Error ? err.message : String(err) });
      }
    }
    call.log({ statusCode: 200, errorMessage: null, respPayload: logged(response), usage: usageOf(answer) });
    return { response, cache: mode ? "MISS" : null };
  } catch (err) {
    throw call.failure(err);
  }
}

function cannotEmbed(message: string): DomainError {
  return new DomainError("VALIDATION", message, { issues: [{ message, path: ["model"] }] });
}

/**
 * The body sent upstream: Hone's member and the log's metadata removed, and the encoding the
 * upstream answers best in (the client's own is applied to the answer).
 */
function upstreamBody(request: EmbeddingsRequest, up: Upstream): Record<string, unknown> {
  const { hone: _controls, metadata: _metadata, encoding_format: _encoding, ...rest } = request;
  return { ...rest, model: up.upstreamModel, ...(up.base64Embeddings ? { encoding_format: "base64" } : {}) };
}
