import { z } from "zod";
import type { Ctx } from "../../context";
import { parseInput } from "../../errors";
import { checkPageSize, MAX_EXPORT_PAGE } from "../../limits";
import { loadLogBodies } from "./get-log";
import { LogFilter } from "./inputs";
import { listLogs } from "./list-logs";

export const ExportLogsPageInput = z.object({
  filter: LogFilter.nullish(),
  after: z.string().max(200).nullish(),
  first: z.number().int().min(1).max(MAX_EXPORT_PAGE, `first may be at most ${MAX_EXPORT_PAGE} (a page of an export carries bodies)`).nullish(),
});
export type ExportLogsPageInput = z.input<typeof ExportLogsPageInput>;

/**
 * One page of a JSONL export of the logs matching a filter, newest first: each line is one JSON
 * object with the log's columns and its payloads (and, for converted reports, the originals).
 * A client loops on endCursor until hasNextPage is false and joins the lines with newlines.
 */
export async function exportLogsPage(ctx: Ctx, raw: ExportLogsPageInput): Promise<{ lines: string[]; endCursor: string | null; hasNextPage: boolean }> {
  const input = parseInput(ExportLogsPageInput, raw);
  checkPageSize(input.first, ctx.deps.config.maxPageSize);
  const page = await listLogs(ctx, { filter: input.filter, after: input.after, first: input.first ?? 100 });
  const bodies = await loadLogBodies(
    ctx,
    page.logs.map((l) => l.id),
  );
  const lines = page.logs.map((log) => {
    const b = bodies.get(log.id);
    return JSON.stringify({
      ...log,
      reqPayload: b?.reqPayload ?? null,
      respPayload: b?.respPayload ?? null,
      ...(b?.reqPayloadOriginal != null || b?.respPayloadOriginal != null
        ? { reqPayloadOriginal: b.reqPayloadOriginal ?? null, respPayloadOriginal: b.respPayloadOriginal ?? null }
        : {}),
    });
  });
  return { lines, endCursor: page.endCursor, hasNextPage: page.hasNextPage };
}
