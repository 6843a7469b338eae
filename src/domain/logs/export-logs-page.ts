import { z } from "zod";
import { dbOf, type Ctx } from "../context";
import { DomainError, parseInput } from "../../core/errors";
import { checkPageSize, MAX_EXPORT_PAGE } from "../../core/limits";
import { answerRoom, chargeAnswer, LOGS_INSTEAD } from "../answer-budget";
import { loadLogBodies } from "./get-log";
import { LogFilter, type RequestLog } from "./inputs";
import { encodeLogCursor } from "./internal";
import { listLogs } from "./list-logs";
import { payloadSizes } from "./store/payload-sizes";

export const ExportLogsPageInput = z.strictObject({
  filter: LogFilter.nullish(),
  after: z.string().max(200).nullish(),
  first: z.number().int().min(1).max(MAX_EXPORT_PAGE, `first may be at most ${MAX_EXPORT_PAGE} (a page of an export carries bodies)`).nullish(),
});
export type ExportLogsPageInput = z.input<typeof ExportLogsPageInput>;

/** What a line carries besides its payloads (columns, tags), counted generously. */
const LINE_OVERHEAD = 2_048;

/**
 * One page of a JSONL export of the logs matching a filter, newest first: each line is one JSON
 * object with the log's columns and its payloads (and, for converted reports, the originals).
 * A client loops on endCursor until hasNextPage is false and joins the lines with newlines.
 *
 * The page is made for bulk reading, so it never refuses for its size: it holds as many logs as
 * the answer has room for (HONE_MAX_RESPONSE_BYTES, shared by a tRPC batch), counted from the
 * stored sizes before the payloads are read, with hasNextPage true when it stopped early. Only a
 * single log larger than the whole limit is refused (GET /api/v1/logs/export streams it).
 */
export async function exportLogsPage(ctx: Ctx, raw: ExportLogsPageInput): Promise<{ lines: string[]; endCursor: string | null; hasNextPage: boolean }> {
  const input = parseInput(ExportLogsPageInput, raw);
  checkPageSize(input.first, ctx.deps.config.maxPageSize);
  const page = await listLogs(ctx, { filter: input.filter, after: input.after, first: input.first ?? 100 });
  const unsized = page.logs.filter((l) => l.reqBytes == null || l.respBytes == null).map((l) => l.id);
  const measured = unsized.length ? await payloadSizes(dbOf(ctx), ctx.projectId, unsized) : new Map();
  const sizeOf = (l: RequestLog) => (l.reqBytes ?? measured.get(l.id)?.req ?? 0) + (l.respBytes ?? measured.get(l.id)?.resp ?? 0) + LINE_OVERHEAD;

  const room = answerRoom(ctx);
  let bytes = 0;
  let n = 0;
  while (n < page.logs.length && bytes + sizeOf(page.logs[n]!) <= room) bytes += sizeOf(page.logs[n++]!);
  if (n === 0 && page.logs.length) {
    const first = page.logs[0]!;
    if (ctx.answer && sizeOf(first) > ctx.answer.limit) {
      const message = `Log ${first.id} is ${sizeOf(first).toLocaleString("en-US")} bytes with its payloads, more than one answer may carry (HONE_MAX_RESPONSE_BYTES); GET /api/v1/logs/export streams it`;
      throw new DomainError("VALIDATION", message, { issues: [{ message }] });
    }
    // Other calls of the same batch used the room: nothing now, the same cursor again next time.
    return { lines: [], endCursor: input.after ?? null, hasNextPage: true };
  }
  const taken = page.logs.slice(0, n);
  chargeAnswer(ctx, bytes, LOGS_INSTEAD);
  // Charged above, by the page's own rule: the bodies are loaded without a second charge.
  const bodies = await loadLogBodies(
    { ...ctx, answer: undefined },
    taken.map((l) => l.id),
  );
  // The line is the log's columns and payloads (previews and sizes are derived from the payloads).
  const lines = taken.map(({ reqBytes: _r, respBytes: _s, inputPreview: _i, outputPreview: _o, ...log }) => {
    const b = bodies.get(log.id);
    // A line is the export file's format: the tags keep its name, metadata, in their place.
    const columns = Object.fromEntries(Object.entries(log).map(([k, v]) => [k === "tags" ? "metadata" : k, v]));
    return JSON.stringify({
      ...columns,
      reqPayload: b?.reqPayload ?? null,
      respPayload: b?.respPayload ?? null,
      ...(b?.reqPayloadOriginal != null || b?.respPayloadOriginal != null
        ? { reqPayloadOriginal: b.reqPayloadOriginal ?? null, respPayloadOriginal: b.respPayloadOriginal ?? null }
        : {}),
    });
  });
  const cut = n < page.logs.length;
  return {
    lines,
    endCursor: cut ? encodeLogCursor(taken.at(-1)!.id) : page.endCursor,
    hasNextPage: cut || page.hasNextPage,
  };
}
