import { sql } from "drizzle-orm";
import { dbOf, type BaseCtx } from "../../context";
import type { Queryable } from "../../db/client";
import { jsonText } from "../../json-text";
import { MAX_ID_LENGTH, MAX_MODEL_LENGTH } from "../../limits";
import { sanitizeJsonText } from "./sanitize-json-text";
import { searchTextOf } from "./search-text";
import type { NewRequestLog } from "./schemas";

const INT4_MAX = 2_147_483_647;

// Counts and durations go to integer columns: a value the column cannot hold (an upstream or a
// report claiming 10^10 tokens) is clamped to the column's range; the payload keeps the original.
function int4(n: number | null, min = 0): number | null {
  if (n === null || !Number.isFinite(n)) return null;
  return Math.min(INT4_MAX, Math.max(min, Math.round(n)));
}

// model and completion_id are indexed (btree entries hold at most ~2.7 kB): the columns keep a
// prefix long enough to filter on; the payload keeps the whole value.
const capped = (s: string | null, max: number) => (s !== null && s.length > max ? s.slice(0, max) : s);

/**
 * One log as the JSON object insertLogRows unpacks. Payloads are spliced in as JSON text: a payload
 * parsed from JSON (the gateway's request and the upstream's answer) is written as the text it
 * came from instead of being serialised again. The text is sanitised (sanitize-json-text.ts), so a
 * row never holds a value the database rejects for its characters.
 */
export function logRow(r: NewRequestLog): string {
  const head = JSON.stringify({
    id: r.id,
    project_id: r.projectId,
    source: r.source,
    provider: r.provider,
    model: capped(r.model, MAX_MODEL_LENGTH),
    completion_id: capped(r.completionId, MAX_ID_LENGTH),
    status_code: int4(r.statusCode),
    error_message: r.errorMessage,
    requested_at: r.requestedAt?.toISOString() ?? null,
    received_at: r.receivedAt?.toISOString() ?? null,
    duration_ms: int4(r.durationMs),
    input_tokens: int4(r.inputTokens),
    output_tokens: int4(r.outputTokens),
    cost_usd: r.costUsd,
    cache_hit: r.cacheHit,
    metadata: r.metadata,
    req_payload_original: r.reqPayloadOriginal ?? null,
    resp_payload_original: r.respPayloadOriginal ?? null,
    search_text: searchTextOf(r.reqPayload, r.respPayload),
  });
  return sanitizeJsonText(`${head.slice(0, -1)},"req_payload":${jsonText(r.reqPayload ?? null)},"resp_payload":${jsonText(r.respPayload ?? null)}}`);
}

/**
 * Stores a batch of logs (rows of logRow), rows and bodies, in one statement (so one round trip,
 * atomic): the batch travels as a single JSON parameter, unpacked server-side by jsonb_to_recordset.
 */
export async function insertLogRows(db: Queryable, rows: string[]): Promise<void> {
  if (rows.length === 0) return;
  const json = `[${rows.join(",")}]`;
  await db.execute(sql`
    with data as (
      select * from jsonb_to_recordset(${json}::text::jsonb) as x(
        id text, project_id text, source text, provider text, model text, completion_id text,
        status_code integer, error_message text, requested_at timestamptz, received_at timestamptz,
        duration_ms integer, input_tokens integer, output_tokens integer, cost_usd double precision,
        cache_hit boolean, metadata jsonb, req_payload jsonb, resp_payload jsonb,
        req_payload_original jsonb, resp_payload_original jsonb, search_text text)
    ), logs as (
      insert into request_logs (id, project_id, source, provider, model, completion_id, status_code, error_message,
        requested_at, received_at, duration_ms, input_tokens, output_tokens, cost_usd, cache_hit, metadata)
      select id, project_id, source, provider, model, completion_id, status_code, error_message,
        requested_at, received_at, duration_ms, input_tokens, output_tokens, cost_usd, cache_hit, coalesce(metadata, '{}'::jsonb)
      from data
    )
    insert into request_log_bodies (log_id, req_payload, resp_payload, req_payload_original, resp_payload_original, search_text)
    select id, req_payload, resp_payload, req_payload_original, resp_payload_original, search_text from data`);
}

/** Stores logs at once (tests, backfills); the gateway goes through the batched log writer. */
export function insertRequestLogs(ctx: BaseCtx, records: NewRequestLog[]): Promise<void> {
  return insertLogRows(dbOf(ctx), records.map(logRow));
}
