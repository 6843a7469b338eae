import { lt, sql } from "drizzle-orm";
import { z } from "zod";
import { dbOf, type Ctx } from "../../context";
import { requestLogs } from "../../db/schema";
import { parseInput } from "../../errors";
import { LogFilter } from "./inputs";
import { logConditions, resultRows, whereAll } from "./internal";
import { timeSlices } from "./list-logs";

export const ExportLogsInput = z.object({
  filter: LogFilter.nullish(),
  format: z.enum(["jsonl", "csv"], { error: "format must be jsonl or csv" }).default("jsonl"),
});
export type ExportLogsInput = z.input<typeof ExportLogsInput>;

/** Rows read per statement: large enough to be quick, small enough that memory stays flat. */
const PAGE = 2_000;

export const CSV_COLUMNS = [
  "id",
  "created_at",
  "source",
  "provider",
  "model",
  "status_code",
  "duration_ms",
  "input_tokens",
  "output_tokens",
  "cost_usd",
  "cache_hit",
  "completion_id",
  "metadata",
  "error_message",
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
const iso = (col: string) => sql.raw(isoText(col));

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
    ? sql.raw(`l.id, ${isoText("l.created_at")} as created_at, l.source, l.provider, l.model, l.status_code, l.duration_ms,
        l.input_tokens, l.output_tokens, l.cost_usd, l.cache_hit, l.completion_id, l.metadata::text as metadata, l.error_message`)
    : sql`l.id, (jsonb_build_object('id', l.id, 'source', l.source, 'provider', l.provider, 'model', l.model,
        'completionId', l.completion_id, 'statusCode', l.status_code, 'errorMessage', l.error_message,
        'requestedAt', ${iso("l.requested_at")}, 'receivedAt', ${iso("l.received_at")}, 'durationMs', l.duration_ms,
        'inputTokens', l.input_tokens, 'outputTokens', l.output_tokens, 'costUsd', l.cost_usd, 'cacheHit', l.cache_hit,
        'metadata', l.metadata, 'createdAt', ${iso("l.created_at")}, 'reqPayload', b.req_payload, 'respPayload', b.resp_payload)
        || case when b.req_payload_original is not null or b.resp_payload_original is not null
          then jsonb_build_object('reqPayloadOriginal', b.req_payload_original, 'respPayloadOriginal', b.resp_payload_original)
          else '{}'::jsonb end)::text as line`;
  for (const slice of await timeSlices(db, ctx.deps.database)) {
    let cursor: string | null = null;
    for (;;) {
      const where = logConditions(ctx.projectId, input.filter, slice);
      if (cursor) where.push(lt(requestLogs.id, cursor));
      // The conditions name request_logs; the export reads it as l.
      const body = csv
        ? sql``
        : sql`left join request_log_bodies b on b.log_id = l.id${slice.lo !== null ? sql` and b.log_id >= ${slice.lo}` : sql``}${slice.hi !== null ? sql` and b.log_id < ${slice.hi}` : sql``}`;
      const rows = resultRows<Record<string, unknown>>(
        await db.execute(sql`select ${columns} from request_logs l ${body} where l.id in (
          select ${requestLogs.id} from ${requestLogs} where ${whereAll(where)} order by ${requestLogs.id} desc limit ${PAGE})
          order by l.id desc`),
      );
      if (!rows.length) break;
      yield csv ? rows.map((r) => `${CSV_COLUMNS.map((c) => csvCell(r[c])).join(",")}\r\n`).join("") : rows.map((r) => `${r.line}\n`).join("");
      if (rows.length < PAGE) break;
      cursor = String(rows.at(-1)!.id);
    }
  }
}
