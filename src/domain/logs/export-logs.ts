import { lt, sql } from "drizzle-orm";
import { z } from "zod";
import { dbOf, type Ctx } from "../context";
import { requestLogs } from "../../db/schema";
import { parseInput } from "../../core/errors";
import { LogFilter } from "./inputs";
import { logConditions, resultRows, sliceBounds, whereAll } from "./internal";
import { yieldTurn } from "../yield-turn";
import { timeSlices } from "./list-logs";
import { type PayloadSizes, payloadSizes } from "./store/payload-sizes";

export const ExportLogsInput = z.strictObject({
  filter: LogFilter.nullish(),
  format: z.enum(["jsonl", "csv"], { error: "format must be jsonl or csv" }).default("jsonl"),
});
export type ExportLogsInput = z.input<typeof ExportLogsInput>;

/** Rows read per statement: large enough to be quick, small enough that memory stays flat. */
const PAGE = 2_000;
/** Bytes of stored payloads one JSONL statement reads at most (a larger log alone). */
const PAGE_BYTES = 4 * 1024 * 1024;
/** What a line carries besides its payloads (columns, tags), counted generously. */
const LINE_OVERHEAD = 1_024;

export const CSV_COLUMNS = [
  "id",
  "created_at",
  "source",
  "internal_kind",
  "api",
  "provider",
  "model",
  "status_code",
  "duration_ms",
  "input_tokens",
  "output_tokens",
  "cached_input_tokens",
  "cache_write_tokens",
  "reasoning_tokens",
  "cost_usd",
  "classes",
  "price_version",
  "cost_flag",
  "cache_hit",
  "completion_id",
  "metadata",
  "error_message",
  "warning",
  "input_preview",
  "output_preview",
  "route",
  "route_version",
  "refusal",
  "refusals",
  "trace_id",
  "span_id",
  "parent_span_id",
  "session_id",
] as const;

/**
 * A CSV cell (RFC 4180): quoted when it holds a comma, quote or line break. A cell a spreadsheet
 * would run as a formula (starting with = + - @, tab or carriage return) gets a leading quote.
 */
export function csvCell(v: unknown): string {
  if (v === null || v === undefined) return "";
  let s = typeof v === "string" ? v : typeof v === "object" ? JSON.stringify(v) : String(v);
  if (/^[=+\-@\t\r]/.test(s) && typeof v === "string") s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

const isoText = (col: string) => `to_char(${col} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * The logs matching a filter, newest first, as JSONL (one log per line with its payloads, the
 * shape of tRPC logs.exportPage) or CSV (CSV_COLUMNS, a header first), yielded in chunks of a
 * page of rows: a keyset walk on the id, day partition by day partition, so any number of logs
 * streams in constant memory. JSONL lines are built by the database. The input is checked before
 * the first row is read (a bad filter is a 400, not a broken download).
 */
export function exportLogs(ctx: Ctx, raw: ExportLogsInput): AsyncGenerator<string> {
  const input = parseInput(ExportLogsInput, raw);
  return walk(ctx, input);
}

async function* walk(ctx: Ctx, input: z.output<typeof ExportLogsInput>): AsyncGenerator<string> {
  const db = dbOf(ctx);
  const csv = input.format === "csv";
  if (csv) yield `${CSV_COLUMNS.join(",")}\r\n`;
  const columns = csv
    ? sql.raw(
        CSV_COLUMNS.map((c) =>
          c === "created_at"
            ? `${isoText("request_logs.created_at")} as created_at`
            : c === "metadata" || c === "classes"
              ? `request_logs.${c}::text as ${c}`
              : `request_logs.${c}`,
        ).join(", "),
      )
    : // Concatenated as text: the payloads are serialised once, never copied into a new jsonb.
      sql.raw(`request_logs.id, '{"id":' || to_json(request_logs.id)
        || ',"source":' || to_json(request_logs.source) || ',"internalKind":' || coalesce(to_json(request_logs.internal_kind)::text, 'null')
        || ',"api":' || to_json(request_logs.api)
        || ',"provider":' || coalesce(to_json(request_logs.provider)::text, 'null')
        || ',"model":' || coalesce(to_json(request_logs.model)::text, 'null') || ',"completionId":' || coalesce(to_json(request_logs.completion_id)::text, 'null')
        || ',"statusCode":' || coalesce(request_logs.status_code::text, 'null') || ',"errorMessage":' || coalesce(to_json(request_logs.error_message)::text, 'null')
        || ',"requestedAt":' || coalesce(to_json(${isoText("request_logs.requested_at")})::text, 'null')
        || ',"receivedAt":' || coalesce(to_json(${isoText("request_logs.received_at")})::text, 'null')
        || ',"durationMs":' || coalesce(request_logs.duration_ms::text, 'null') || ',"inputTokens":' || coalesce(request_logs.input_tokens::text, 'null')
        || ',"outputTokens":' || coalesce(request_logs.output_tokens::text, 'null')
        || ',"cachedInputTokens":' || coalesce(request_logs.cached_input_tokens::text, 'null')
        || ',"cacheWriteTokens":' || coalesce(request_logs.cache_write_tokens::text, 'null')
        || ',"reasoningTokens":' || coalesce(request_logs.reasoning_tokens::text, 'null') || ',"costUsd":' || coalesce(to_json(request_logs.cost_usd)::text, 'null')
        || ',"classes":' || coalesce(request_logs.classes::text, 'null') || ',"priceVersion":' || coalesce(to_json(request_logs.price_version)::text, 'null')
        || ',"costFlag":' || coalesce(to_json(request_logs.cost_flag)::text, 'null')
        || ',"cacheHit":' || request_logs.cache_hit::text || ',"metadata":' || request_logs.metadata::text
        || ',"createdAt":' || to_json(${isoText("request_logs.created_at")})::text
        || ',"warning":' || coalesce(to_json(request_logs.warning)::text, 'null')
        || ',"attempts":' || coalesce(request_logs.attempts::text, 'null')
        || ',"route":' || coalesce(to_json(request_logs.route)::text, 'null') || ',"routeVersion":' || coalesce(to_json(request_logs.route_version)::text, 'null')
        || ',"refusal":' || coalesce(to_json(request_logs.refusal)::text, 'null') || ',"refusals":' || coalesce(request_logs.refusals::text, 'null')
        || ',"masked":' || coalesce(request_logs.masked::text, 'null') || ',"masking":' || coalesce(to_json(request_logs.masking)::text, 'null')
        || ',"traceId":' || coalesce(to_json(request_logs.trace_id)::text, 'null') || ',"spanId":' || coalesce(to_json(request_logs.span_id)::text, 'null')
        || ',"parentSpanId":' || coalesce(to_json(request_logs.parent_span_id)::text, 'null') || ',"sessionId":' || coalesce(to_json(request_logs.session_id)::text, 'null')
        || ',"reqPayload":' || coalesce(b.req_payload::text, 'null') || ',"respPayload":' || coalesce(b.resp_payload::text, 'null')
        || case when b.req_payload_original is not null or b.resp_payload_original is not null
          then ',"reqPayloadOriginal":' || coalesce(b.req_payload_original::text, 'null') || ',"respPayloadOriginal":' || coalesce(b.resp_payload_original::text, 'null')
          else '' end || '}' as line`);
  for (const slice of await timeSlices(db, ctx.deps)) {
    let cursor: string | null = null;
    for (;;) {
      await yieldTurn();
      const where = logConditions(ctx.projectId, input.filter, slice);
      if (cursor) where.push(lt(requestLogs.id, cursor));
      const body = csv ? sql`` : sql`left join request_log_bodies b on b.log_id = request_logs.id${sliceBounds("b.log_id", slice)}`;
      // One statement per page: the slice's bounds on both tables prune them to one day each.
      const page = sql`select ${columns} from ${requestLogs} ${body} where ${whereAll(where)} order by ${requestLogs.id} desc limit ${PAGE}`;
      if (csv) {
        const rows = resultRows<Record<string, unknown>>(await db.execute(page));
        if (!rows.length) break;
        yield rows.map((r) => `${CSV_COLUMNS.map((c) => csvCell(r[c])).join(",")}\r\n`).join("");
        if (rows.length < PAGE) break;
        cursor = String(rows.at(-1)!.id);
        continue;
      }
      // JSONL: a page is PAGE logs or PAGE_BYTES of them by their stored sizes, whichever comes
      // first (at least one), so large logs go a few at a time. The ids and sizes come first (an
      // index walk), then the chosen logs' lines as one text built by the database (no object per
      // row on this side), both statements bounded to the slice's day partition.
      const candidates = resultRows<{ id: string; req_bytes: number | null; resp_bytes: number | null }>(
        await db.execute(
          sql`select ${requestLogs.id} as id, ${requestLogs.reqBytes} as req_bytes, ${requestLogs.respBytes} as resp_bytes from ${requestLogs} where ${whereAll(where)} order by ${requestLogs.id} desc limit ${PAGE}`,
        ),
      );
      if (!candidates.length) break;
      const unsized = candidates.filter((c) => c.req_bytes == null || c.resp_bytes == null).map((c) => c.id);
      const measured = unsized.length ? await payloadSizes(db, ctx.projectId, unsized, slice) : new Map<string, PayloadSizes>();
      const chosen: string[] = [];
      let bytes = 0;
      for (const c of candidates) {
        const m = measured.get(c.id);
        const size = LINE_OVERHEAD + Number(c.req_bytes ?? m?.req ?? 0) + Number(c.resp_bytes ?? m?.resp ?? 0);
        if (chosen.length && bytes + size > PAGE_BYTES) break;
        chosen.push(c.id);
        bytes += size;
      }
      const list = sql`any(string_to_array(${chosen.join(",")}, ','))`;
      const [joined] = resultRows<{ text: string | null }>(
        await db.execute(sql`select string_agg(p.line, E'\n' order by p.id desc) || E'\n' as text from (
            select ${columns} from ${requestLogs} ${body}
            where request_logs.project_id = ${ctx.projectId} and request_logs.id = ${list}${sliceBounds("request_logs.id", slice)}) p`),
      );
      if (joined?.text) yield joined.text;
      if (chosen.length === candidates.length && candidates.length < PAGE) break;
      cursor = chosen.at(-1)!;
    }
  }
}
