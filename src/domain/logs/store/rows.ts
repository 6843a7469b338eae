import { sampleUnitSql } from "../../sample-unit";
import { sql } from "drizzle-orm";
import { dbOf, type BaseCtx } from "../../context";
import { executePrepared, type Queryable } from "../../../db/client";
import { jsonText } from "../../../lib/json-text";
import { logMsOf } from "../internal";
import { MAX_ID_LENGTH, MAX_MODEL_LENGTH, MAX_TRACE_ID_LENGTH } from "../../../core/limits";
import { sanitizeJsonText } from "./sanitize-json-text";
import { inputPreviewOf, outputPreviewOf } from "./previews";
import { searchTextOf } from "./search-text";
import type { NewRequestLog } from "../schemas";
import { createMasker, recognizersFor } from "../../../lib/masking";

/**
 * The log as it is stored under its masking rule: every text it holds (payloads, the client's own
 * forms, the error) with placeholders for the sensitive values found, one value one placeholder
 * throughout the log; and the counts by kind. Done here, where the row is built, before the spool
 * or the database sees it. A payload already cut short (a marker) is masked as text too.
 */
function masked(r: NewRequestLog): { r: NewRequestLog; counts: Record<string, number> | null } {
  if (!r.mask) return { r, counts: null };
  const masker = r.mask.masker ?? createMasker({ recognizers: r.mask.recognizers ?? recognizersFor(), kinds: r.mask.kinds, known: r.mask.known });
  // The analyzer's failure is said on the log (after the warning is masked: it holds no value).
  const warning = r.warning ? masker.maskText(r.warning) : r.warning;
  const out: NewRequestLog = {
    ...r,
    reqPayload: masker.maskValue(r.reqPayload),
    respPayload: masker.maskValue(r.respPayload),
    reqPayloadOriginal: masker.maskValue(r.reqPayloadOriginal),
    respPayloadOriginal: masker.maskValue(r.respPayloadOriginal),
    errorMessage: r.errorMessage === null ? null : masker.maskText(r.errorMessage),
    warning: r.mask.analyzer ? [warning, r.mask.analyzer].filter(Boolean).join("; ") : warning,
  };
  return { r: out, counts: masker.any ? masker.counts() : null };
}

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

/** What a payload cut short (HONE_MAX_LOGGED_PAYLOAD_BYTES) is stored as: its size and how it began. */
export const TRUNCATED_PAYLOAD_KEY = "hone_truncated_payload";
export type TruncatedPayload = { [TRUNCATED_PAYLOAD_KEY]: { bytes: number; keptBytes: number; text: string } };

/** True for a payload stored cut short: it is no longer the call's JSON (and never becomes a dataset entry). */
export function isTruncatedPayload(v: unknown): v is TruncatedPayload {
  return typeof v === "object" && v !== null && !Array.isArray(v) && TRUNCATED_PAYLOAD_KEY in v;
}

export const DEFAULT_MAX_LOGGED_PAYLOAD_BYTES = 32 * 1024 * 1024;

/**
 * The marker a payload of `bytes` bytes is stored as when it is too large: its size and as much of
 * its beginning (`text`) as fits in `max` bytes once escaped as a JSON string. Its JSON text too.
 */
export function truncatedPayload(text: string, bytes: number, max: number): { marker: TruncatedPayload; json: string } {
  // Escaping can grow the kept text (a quote becomes two characters): shrink until it fits.
  let keep = Math.min(text.length, Math.floor((max - 256) / 3));
  for (;;) {
    const kept = text.slice(0, keep);
    const marker: TruncatedPayload = { [TRUNCATED_PAYLOAD_KEY]: { bytes, keptBytes: Buffer.byteLength(kept), text: kept } };
    const json = JSON.stringify(marker);
    if (Buffer.byteLength(json) <= max || keep < 1024) return { marker, json };
    keep = Math.floor(keep * (max / Buffer.byteLength(json)) * 0.95);
  }
}

/**
 * A payload's JSON text as it will be stored: whole when within `max` bytes, else the marker of
 * truncatedPayload (a payload that is a marker already is stored as it is).
 */
function storedText(text: string, max: number): { text: string; bytes: number; cutFrom: number | null } {
  // A UTF-16 unit is at most 3 bytes of UTF-8: short texts need no count.
  if (text.length * 3 <= max) return { text, bytes: Buffer.byteLength(text), cutFrom: null };
  const bytes = Buffer.byteLength(text);
  if (bytes <= max) return { text, bytes, cutFrom: null };
  const { json } = truncatedPayload(text, bytes, max);
  return { text: json, bytes: Buffer.byteLength(json), cutFrom: bytes };
}

const sizeText = (n: number) => n.toLocaleString("en-US");

/**
 * One log as the JSON object insertLogRows unpacks. Payloads are spliced in as JSON text: a payload
 * parsed from JSON (the gateway's request and the upstream's answer) is written as the text it
 * came from instead of being serialised again. The text is sanitised (sanitize-json-text.ts), so a
 * row never holds a value the database rejects for its characters.
 */
export function logRow(given: NewRequestLog, maxPayloadBytes = DEFAULT_MAX_LOGGED_PAYLOAD_BYTES): string {
  const { r, counts } = masked(given);
  const warnings: string[] = r.warning ? [r.warning] : [];
  const payload = (name: string, value: unknown) => {
    const stored = storedText(jsonText(value ?? null), maxPayloadBytes);
    if (stored.cutFrom !== null) {
      warnings.push(`the ${name} of ${sizeText(stored.cutFrom)} bytes is stored cut short (HONE_MAX_LOGGED_PAYLOAD_BYTES is ${sizeText(maxPayloadBytes)})`);
    }
    return stored;
  };
  const req = payload("request payload", r.reqPayload);
  const resp = payload("response payload", r.respPayload);
  const reqOriginal = r.reqPayloadOriginal == null ? null : payload("original request payload", r.reqPayloadOriginal);
  const respOriginal = r.respPayloadOriginal == null ? null : payload("original response payload", r.respPayloadOriginal);
  const head = JSON.stringify({
    id: r.id,
    project_id: r.projectId,
    source: r.source,
    internal_kind: r.internalKind ?? null,
    api: r.api ?? "chat",
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
    cached_input_tokens: int4(r.cachedInputTokens ?? null),
    cache_write_tokens: int4(r.cacheWriteTokens ?? null),
    reasoning_tokens: int4(r.reasoningTokens ?? null),
    cost_usd: r.costUsd,
    classes: r.classes ?? null,
    price_version: r.priceVersion ?? null,
    cost_flag: r.costFlag ?? null,
    cache_hit: r.cacheHit,
    metadata: r.tags,
    req_bytes: req.bytes + (reqOriginal?.bytes ?? 0),
    resp_bytes: resp.bytes + (respOriginal?.bytes ?? 0),
    warning: warnings.length ? warnings.join("; ") : null,
    search_text: searchTextOf(r.reqPayload, r.respPayload),
    input_preview: inputPreviewOf(r.reqPayload),
    output_preview: outputPreviewOf(r.respPayload),
    attempts: r.attempts ?? null,
    route: r.route ?? null,
    route_version: r.routeVersion ?? null,
    pruned_tokens: int4(r.prunedTokens ?? null),
    refusal: r.refusal ?? null,
    refusals: int4(r.refusals ?? null),
    masked: counts,
    masking: r.mask?.mode ?? null,
    trace_id: capped(r.traceId ?? null, MAX_TRACE_ID_LENGTH),
    span_id: capped(r.spanId ?? null, MAX_TRACE_ID_LENGTH),
    parent_span_id: capped(r.parentSpanId ?? null, MAX_TRACE_ID_LENGTH),
    session_id: capped(r.sessionId ?? null, MAX_ID_LENGTH),
  });
  return sanitizeJsonText(
    `${head.slice(0, -1)},"req_payload":${req.text},"resp_payload":${resp.text},"req_payload_original":${reqOriginal?.text ?? "null"},"resp_payload_original":${respOriginal?.text ?? "null"}}`,
  );
}

/**
 * Stores a batch of logs (rows of logRow), rows and bodies, in one statement (so one round trip,
 * atomic): the batch travels as a single JSON parameter, unpacked server-side by jsonb_to_recordset.
 */
/**
 * Stores serialised logs (logRow) in one statement. A log whose id is already stored is left as it
 * is, so a batch may be written twice (a retry after a lost commit, a spool replayed). `late`:
 * rows that may be hours old (a replayed spool): the closed usage hours they fall in are marked to
 * be summed again.
 */
export async function insertLogRows(db: Queryable, rows: string[], opts: { late?: boolean } = {}): Promise<void> {
  if (rows.length === 0) return;
  const json = `[${rows.join(",")}]`;
  const stale = opts.late
    ? sql`, stale as (
      insert into usage_stale_hours (project_id, hour)
      select distinct project_id, h from (select project_id, to_timestamp((${logMsOf(sql`id`)} / 3600000) * 3600) as h from logs) l
      where h < (select closed_until from usage_rollup_state where id = 1)
      on conflict do nothing
    )`
    : sql``;
  // Prepared once per connection: parsing and planning this statement cost the server more than
  // storing a batch of a few rows (bench/report.ts).
  await executePrepared(
    db,
    sql`
    with data as (
      select * from jsonb_to_recordset(${json}::text::jsonb) as x(
        id text, project_id text, source text, internal_kind text, api text, provider text, model text, completion_id text,
        status_code integer, error_message text, requested_at timestamptz, received_at timestamptz,
        duration_ms integer, input_tokens integer, output_tokens integer,
        cached_input_tokens integer, cache_write_tokens integer, reasoning_tokens integer, cost_usd double precision,
        classes jsonb, price_version text, cost_flag text, cache_hit boolean, metadata jsonb, req_payload jsonb, resp_payload jsonb,
        req_payload_original jsonb, resp_payload_original jsonb, search_text text,
        req_bytes integer, resp_bytes integer, warning text, input_preview text, output_preview text,
        attempts jsonb, route text, route_version text, pruned_tokens integer, refusal text, refusals integer, masked jsonb, masking text,
        trace_id text, span_id text, parent_span_id text, session_id text)
    ), logs as (
      insert into request_logs (id, project_id, source, internal_kind, api, provider, model, completion_id, status_code, error_message,
        requested_at, received_at, duration_ms, input_tokens, output_tokens, cached_input_tokens, cache_write_tokens, reasoning_tokens,
        cost_usd, classes, price_version, cost_flag, cache_hit, metadata, req_bytes, resp_bytes, warning, input_preview, output_preview, attempts, route, route_version,
        pruned_tokens, refusal, refusals, masked, masking, trace_id, span_id, parent_span_id, session_id)
      select id, project_id, source, internal_kind, coalesce(api, 'chat'), provider, model, completion_id, status_code, error_message,
        requested_at, received_at, duration_ms, input_tokens, output_tokens, cached_input_tokens, cache_write_tokens, reasoning_tokens,
        cost_usd, classes, price_version, cost_flag, cache_hit, coalesce(metadata, '{}'::jsonb),
        req_bytes, resp_bytes, warning, input_preview, output_preview, attempts, route, route_version, pruned_tokens, refusal, refusals,
        masked, masking, trace_id, span_id, parent_span_id, session_id
      from data
      on conflict (id) do nothing
      returning id, project_id, source, status_code, api
    ), offered as (
      -- Each answered call in a sample of an active monitor of its project (domain/monitors) is
      -- offered to it in the statement that stores it: stored is offered, once, whichever process stores it.
      insert into monitor_logs (monitor_id, log_id)
      select m.id, l.id from logs l join monitors m on m.project_id = l.project_id and m.status = 'ACTIVE'
      where l.status_code = 200 and l.api <> 'embeddings' and (l.source <> 'internal' or m.include_internal)
        and ${sampleUnitSql(sql`l.id`)} < m.sample_rate
      on conflict do nothing
    ), seen as (
      -- What each active monitor saw of the batch, before its sample (its "seen" count).
      insert into monitor_seen (monitor_id, n)
      select m.id, count(*)::int from logs l join monitors m on m.project_id = l.project_id and m.status = 'ACTIVE'
      where l.status_code = 200 and l.api <> 'embeddings' and (l.source <> 'internal' or m.include_internal)
      group by m.id
    )${stale}
    insert into request_log_bodies (log_id, req_payload, resp_payload, req_payload_original, resp_payload_original, search_text)
    select id, req_payload, resp_payload, req_payload_original, resp_payload_original, search_text from data
    where id in (select id from logs)`,
  );
}

/** Stores logs at once (tests, backfills); the gateway goes through the batched log writer. */
export function insertRequestLogs(ctx: BaseCtx, records: NewRequestLog[]): Promise<void> {
  return insertLogRows(
    dbOf(ctx),
    records.map((r) => logRow(r)),
  );
}
