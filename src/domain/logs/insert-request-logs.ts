import { dbOf, type BaseCtx } from "../../context";
import { requestLogBodies, requestLogs } from "../../db/schema";
import type { NewRequestLog } from "./schemas";

/** Stores a batch of logs (rows and bodies) in one transaction: two multi-row inserts. */
export async function insertRequestLogs(ctx: BaseCtx, records: NewRequestLog[]): Promise<void> {
  if (records.length === 0) return;
  await dbOf(ctx).transaction(async (tx) => {
    await tx.insert(requestLogs).values(
      records.map((r) => ({
        id: r.id,
        projectId: r.projectId,
        source: r.source,
        provider: r.provider,
        model: r.model,
        completionId: r.completionId,
        statusCode: r.statusCode,
        errorMessage: r.errorMessage,
        requestedAt: r.requestedAt,
        receivedAt: r.receivedAt,
        durationMs: r.durationMs,
        inputTokens: r.inputTokens,
        outputTokens: r.outputTokens,
        costUsd: r.costUsd,
        cacheHit: r.cacheHit,
        metadata: r.metadata,
      })),
    );
    await tx.insert(requestLogBodies).values(
      records.map((r) => ({ logId: r.id, reqPayload: jsonbSafe(r.reqPayload), respPayload: jsonbSafe(r.respPayload) })),
    );
  });
}

// jsonb cannot hold a NUL character (\u0000) in a string, and undefined is no JSON value. Only
// these are changed: \u0000 becomes U+FFFD, undefined becomes null.
export function jsonbSafe(value: unknown): unknown {
  if (value === undefined) return null;
  if (typeof value === "string") return value.includes("\u0000") ? value.replaceAll("\u0000", "\uFFFD") : value;
  if (Array.isArray(value)) return value.map(jsonbSafe);
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k.includes("\u0000") ? k.replaceAll("\u0000", "\uFFFD") : k] = jsonbSafe(v);
    return out;
  }
  return value;
}
