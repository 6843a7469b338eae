import { sql } from "drizzle-orm";
import { type Ctx, dbOf } from "../context";
import { createMasker, type Recognizer } from "../../lib/masking";
import { resultRows } from "./internal";
import { inputPreviewOf, outputPreviewOf } from "./store/previews";
import { searchTextOf } from "./store/search-text";
import { sanitizeJsonText } from "./store/sanitize-json-text";

// Masking what was stored before a rule (domain/mask-backfill): one batch of a project's logs,
// newest first, rewritten with placeholders (payloads, the client's own forms, the error, search
// text and previews) and their counts added to the log's. A log with nothing to mask is left as
// it is; a log masked already is masked again at no harm (its placeholders are no values).

/** Payload bytes one batch loads at most (64 MiB): a few large logs make a batch of their own. */
const MAX_BATCH_BYTES = 64 * 1024 * 1024;

type Row = {
  id: string;
  error_message: string | null;
  req_payload: unknown;
  resp_payload: unknown;
  req_payload_original: unknown;
  resp_payload_original: unknown;
};

/** Masks the batch of at most `limit` logs older than `before` (null: from the newest); answers how many were read and changed, and where to go on. */
export async function maskStoredLogs(
  ctx: Ctx,
  input: { before: string | null; limit: number; recognizers: readonly Recognizer[]; kinds: string[] | null },
): Promise<{ read: number; changed: number; last: string | null; more: boolean }> {
  const db = dbOf(ctx);
  // Sized first: a batch holds at most MAX_BATCH_BYTES of payloads (at least one log), so a step's
  // memory does not grow with the logs' sizes (each may hold up to HONE_MAX_LOGGED_PAYLOAD_BYTES).
  const sized = resultRows<{ id: string; bytes: number }>(
    await db.execute(sql`select l.id, (coalesce(l.req_bytes, 0) + coalesce(l.resp_bytes, 0))::float8 as bytes from request_logs l
      where l.project_id = ${ctx.projectId} ${input.before ? sql`and l.id < ${input.before}` : sql``}
      order by l.id desc limit ${input.limit}`),
  );
  let total = 0;
  const ids: string[] = [];
  for (const r of sized) {
    if (ids.length && total + Number(r.bytes) > MAX_BATCH_BYTES) break;
    total += Number(r.bytes);
    ids.push(r.id);
  }
  const rows = ids.length
    ? resultRows<Row>(
        await db.execute(sql`select l.id, l.error_message, b.req_payload, b.resp_payload, b.req_payload_original, b.resp_payload_original
          from request_logs l left join request_log_bodies b on b.log_id = l.id
          where l.project_id = ${ctx.projectId} and l.id in (${sql.join(
            ids.map((id) => sql`${id}`),
            sql`, `,
          )})
          order by l.id desc`),
      )
    : [];
  const changed: Record<string, unknown>[] = [];
  for (const r of rows) {
    const masker = createMasker({ recognizers: input.recognizers, kinds: input.kinds });
    const req = masker.maskValue(r.req_payload);
    const resp = masker.maskValue(r.resp_payload);
    const reqOriginal = masker.maskValue(r.req_payload_original);
    const respOriginal = masker.maskValue(r.resp_payload_original);
    const error = r.error_message === null ? null : masker.maskText(r.error_message);
    if (!masker.any) continue;
    changed.push({
      id: r.id,
      req_payload: req ?? null,
      resp_payload: resp ?? null,
      req_payload_original: reqOriginal ?? null,
      resp_payload_original: respOriginal ?? null,
      error_message: error,
      search_text: searchTextOf(req, resp),
      input_preview: inputPreviewOf(req),
      output_preview: outputPreviewOf(resp),
      masked: masker.counts(),
    });
  }
  if (changed.length) {
    const json = sanitizeJsonText(JSON.stringify(changed));
    await db.transaction(async (tx) => {
      await tx.execute(sql`update request_log_bodies b set req_payload = x.req_payload, resp_payload = x.resp_payload,
          req_payload_original = x.req_payload_original, resp_payload_original = x.resp_payload_original, search_text = x.search_text
        from jsonb_to_recordset(${json}::text::jsonb) as x(id text, req_payload jsonb, resp_payload jsonb, req_payload_original jsonb,
          resp_payload_original jsonb, search_text text)
        where b.log_id = x.id`);
      await tx.execute(sql`update request_logs l set error_message = x.error_message, input_preview = x.input_preview, output_preview = x.output_preview,
          masked = coalesce(l.masked, '{}'::jsonb) || x.masked
        from jsonb_to_recordset(${json}::text::jsonb) as x(id text, error_message text, input_preview text, output_preview text, masked jsonb)
        where l.project_id = ${ctx.projectId} and l.id = x.id`);
    });
  }
  // More to do: a full page was sized, or the byte bound cut it.
  return { read: ids.length, changed: changed.length, last: ids.at(-1) ?? null, more: sized.length === input.limit || ids.length < sized.length };
}
