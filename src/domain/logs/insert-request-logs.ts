import { sql } from "drizzle-orm";
import { dbOf, type BaseCtx } from "../../context";
import type { Queryable } from "../../db/client";
import { jsonText } from "../../json-text";
import type { NewRequestLog } from "./schemas";

/**
 * One log as the JSON object insertLogRows unpacks. Payloads are spliced in as JSON text: a payload
 * parsed from JSON (the gateway's request and the upstream's answer) is written as the text it
 * came from instead of being serialised again.
 */
export function logRow(r: NewRequestLog): string {
  const head = JSON.stringify({
    id: r.id,
    project_id: r.projectId,
    source: r.source,
    provider: r.provider,
    model: r.model,
    completion_id: r.completionId,
    status_code: r.statusCode,
    error_message: r.errorMessage,
    requested_at: r.requestedAt?.toISOString() ?? null,
    received_at: r.receivedAt?.toISOString() ?? null,
    duration_ms: r.durationMs,
    input_tokens: r.inputTokens,
    output_tokens: r.outputTokens,
    cost_usd: r.costUsd,
    cache_hit: r.cacheHit,
    metadata: r.metadata,
    req_payload_original: r.reqPayloadOriginal ?? null,
    resp_payload_original: r.respPayloadOriginal ?? null,
  });
  return `${head.slice(0, -1)},"req_payload":${jsonText(r.reqPayload ?? null)},"resp_payload":${jsonText(r.respPayload ?? null)}}`;
}

/**
 * Stores a batch of logs (rows of logRow), rows and bodies, in one statement (so one round trip,
 * atomic): the batch travels as a single JSON parameter, unpacked server-side by jsonb_to_recordset.
 */
export async function insertLogRows(db: Queryable, rows: string[], opts: { sanitize?: boolean } = {}): Promise<void> {
  if (rows.length === 0) return;
  let json = `[${rows.join(",")}]`;
  // jsonb cannot hold a NUL character; only when asked (after a failed attempt) is it replaced.
  if (opts.sanitize) json = json.replaceAll("\\u0000", "\\ufffd");
  await db.execute(sql`
    with data as (
      select * from jsonb_to_recordset(${json}::text::jsonb) as x(
        id text, project_id text, source text, provider text, model text, completion_id text,
        status_code integer, error_message text, requested_at timestamptz, received_at timestamptz,
        duration_ms integer, input_tokens integer, output_tokens integer, cost_usd double precision,
        cache_hit boolean, metadata jsonb, req_payload jsonb, resp_payload jsonb,
        req_payload_original jsonb, resp_payload_original jsonb)
    ), logs as (
      insert into request_logs (id, project_id, source, provider, model, completion_id, status_code, error_message,
        requested_at, received_at, duration_ms, input_tokens, output_tokens, cost_usd, cache_hit, metadata)
      select id, project_id, source, provider, model, completion_id, status_code, error_message,
        requested_at, received_at, duration_ms, input_tokens, output_tokens, cost_usd, cache_hit, coalesce(metadata, '{}'::jsonb)
      from data
    )
    insert into request_log_bodies (log_id, req_payload, resp_payload, req_payload_original, resp_payload_original)
    select id, req_payload, resp_payload, req_payload_original, resp_payload_original from data`);
}

/** Stores logs at once (tests, backfills); the gateway goes through the batched log writer. */
export function insertRequestLogs(ctx: BaseCtx, records: NewRequestLog[], opts: { sanitize?: boolean } = {}): Promise<void> {
  return insertLogRows(dbOf(ctx), records.map(logRow), opts);
}
