import { and, asc, eq, gt, inArray, type SQL } from "drizzle-orm";
import { z } from "zod";
import { dbOf, type Ctx } from "../context";
import { datasetEntries } from "../../db/schema";
import { DomainError, parseInput } from "../../core/errors";
import { answerRoom, chargeAnswer, ENTRIES_INSTEAD } from "../answer-budget";
import { yieldTurn } from "../yield-turn";
import { type PreferenceLine, preferenceLines } from "./preference-lines";
import { findDataset } from "./internal";
import { decodeCursor, encodeCursor, ENTRY_SIZE, entryConditions, verdictsOfEntries } from "./entry-queries";
import { DatasetId, ExportDatasetPageInput, Split, VerdictFilter, type EntryFilter } from "./schemas";

const ExportDatasetInput = z.strictObject({
  datasetId: DatasetId,
  split: Split.nullish(),
  verdict: VerdictFilter.nullish(),
  // A query string gives "true"/"false"; anything else is refused rather than read as false.
  includeVerdicts: z
    .union([z.boolean(), z.enum(["true", "false"], { error: "includeVerdicts must be true or false" }).transform((v) => v === "true")])
    .nullish(),
  /** chat (default): the fine-tuning rows; preference: OpenAI's DPO lines, one per rejected output of an entry. */
  format: z.enum(["chat", "preference"], { error: "format must be chat or preference" }).nullish(),
});

/** One verdict in an exported row: the REST wire's snake_case names. */
type ExportVerdict = {
  criterion_id: string;
  version: number;
  judgement: "PASS" | "FAIL" | null;
  score: number | null;
  explanation: string | null;
  error: string | null;
  judged_at: string;
};

export type ExportRow = {
  messages: unknown[];
  tools: unknown[] | null;
  tool_choice: unknown;
  split: "TRAIN" | "TEST";
  metadata: Record<string, string>;
  response_format?: unknown;
  /** Only when asked (includeVerdicts): the latest verdict of each criterion, [] when never judged. */
  verdicts?: ExportVerdict[];
};

/** Bytes of entries one export statement reads at most (a larger entry alone). */
const PAGE_BYTES = 8 * 1024 * 1024;

/**
 * One page of export rows by key (entry id order): the same rows for the streamed REST export and
 * for the paged tRPC export, so both write the same lines. A page holds `limit` entries or
 * `maxBytes` of them by their stored sizes, whichever comes first; `minOne`: the first entry is
 * read even when it alone is larger. `bytes` is the page's size, `tooLarge` the first entry's when
 * it does not fit and minOne is off.
 */
async function exportRows(
  ctx: Ctx,
  input: {
    datasetId: string;
    filter: Partial<EntryFilter>;
    afterId: string | null;
    limit: number;
    includeVerdicts: boolean;
    /** Read once the sizes are known, and `taken` told at once (no await between): a batch's calls share one room. */
    maxBytes: () => number;
    taken?: (bytes: number) => void;
    minOne: boolean;
  },
): Promise<{ rows: ExportRow[]; lastId: string | null; more: boolean; bytes: number; tooLarge: number | null }> {
  const db = dbOf(ctx);
  const where: SQL[] = [eq(datasetEntries.datasetId, input.datasetId), eq(datasetEntries.projectId, ctx.projectId), ...entryConditions(input.filter)];
  if (input.afterId) where.push(gt(datasetEntries.id, input.afterId));
  const sized = await db
    .select({ id: datasetEntries.id, size: ENTRY_SIZE })
    .from(datasetEntries)
    .where(and(...where))
    .orderBy(asc(datasetEntries.id))
    .limit(input.limit + 1);
  let bytes = 0;
  let n = 0;
  const within = Math.min(sized.length, input.limit);
  const maxBytes = input.maxBytes();
  while (n < within && (bytes + Number(sized[n]!.size) <= maxBytes || (n === 0 && input.minOne))) bytes += Number(sized[n++]!.size);
  if (n === 0) return { rows: [], lastId: null, more: sized.length > 0, bytes: 0, tooLarge: sized.length ? Number(sized[0]!.size) : null };
  input.taken?.(bytes);
  const fetched = await db
    .select({
      id: datasetEntries.id,
      messages: datasetEntries.messages,
      tools: datasetEntries.tools,
      toolChoice: datasetEntries.toolChoice,
      responseFormat: datasetEntries.responseFormat,
      split: datasetEntries.split,
      metadata: datasetEntries.metadata,
    })
    .from(datasetEntries)
    .where(
      and(
        inArray(
          datasetEntries.id,
          sized.slice(0, n).map((r) => r.id),
        ),
        eq(datasetEntries.projectId, ctx.projectId),
      ),
    )
    .orderBy(asc(datasetEntries.id));
  const page = fetched;
  const verdicts = input.includeVerdicts
    ? await verdictsOfEntries(
        db,
        ctx.projectId,
        page.map((e) => e.id),
      )
    : null;
  const rows = page.map(
    (e): ExportRow => ({
      messages: e.messages,
      tools: e.tools ?? null,
      tool_choice: e.toolChoice ?? null,
      split: e.split,
      metadata: e.metadata,
      ...(e.responseFormat ? { response_format: e.responseFormat } : {}),
      ...(verdicts
        ? {
            verdicts: (verdicts.get(e.id) ?? []).map((v) => ({
              criterion_id: v.criterionId,
              version: v.version,
              judgement: v.judgement,
              score: v.score,
              explanation: v.explanation,
              error: v.error,
              judged_at: v.judgedAt.toISOString(),
            })),
          }
        : {}),
    }),
  );
  return { rows, lastId: page.at(-1)?.id ?? null, more: sized.length > n, bytes, tooLarge: null };
}

/**
 * The dataset's entries as JSONL rows, read 1,000 at a time by key: memory stays flat whatever
 * the dataset's size. Checks the dataset before the first row, so a 404 is still possible.
 */
export async function exportDataset(
  ctx: Ctx,
  raw: {
    datasetId: string;
    split?: string | null;
    verdict?: { criterionId: string; judgement: string } | null;
    includeVerdicts?: boolean | string | null;
    format?: string | null;
  },
): Promise<AsyncGenerator<ExportRow | PreferenceLine>> {
  const input = parseInput(ExportDatasetInput, raw);
  await findDataset(ctx, input.datasetId);
  if (input.format === "preference") {
    if (input.verdict || input.includeVerdicts) throw new DomainError("VALIDATION", "The preference export takes split only (no verdict filter or verdicts)");
    return preferenceLines(ctx, input.datasetId, { split: input.split ?? null });
  }
  const filter = { split: input.split, verdict: input.verdict };
  return (async function* () {
    let afterId: string | null = null;
    for (;;) {
      await yieldTurn();
      const page = await exportRows(ctx, {
        datasetId: input.datasetId,
        filter,
        afterId,
        limit: 1000,
        includeVerdicts: !!input.includeVerdicts,
        maxBytes: () => PAGE_BYTES,
        minOne: true,
      });
      yield* page.rows;
      if (!page.more) return;
      afterId = page.lastId;
    }
  })();
}

/**
 * One page of the JSONL export: `lines` are the lines GET /datasets/{id}/export writes (without
 * their newlines), for the same filter, in the same order. A client loops on endCursor until
 * hasNextPage is false and joins the lines with "\n" (plus a final "\n") to get the file.
 *
 * Made for bulk reading, it never refuses for its size: it holds as many entries as the answer has
 * room for (HONE_MAX_RESPONSE_BYTES, shared by a tRPC batch), with hasNextPage true when it stopped
 * early. Only an entry larger than the whole limit is refused (the REST export streams it).
 */
export async function exportDatasetPage(ctx: Ctx, raw: ExportDatasetPageInput): Promise<{ lines: string[]; endCursor: string | null; hasNextPage: boolean }> {
  const input = parseInput(ExportDatasetPageInput, raw);
  await findDataset(ctx, input.datasetId);
  const page = await exportRows(ctx, {
    datasetId: input.datasetId,
    filter: input,
    afterId: input.after ? decodeCursor(input.after) : null,
    limit: input.first ?? 100,
    includeVerdicts: false,
    maxBytes: () => answerRoom(ctx),
    taken: (bytes) => chargeAnswer(ctx, bytes, ENTRIES_INSTEAD),
    minOne: false,
  });
  if (page.tooLarge !== null) {
    if (ctx.answer && page.tooLarge > ctx.answer.limit) {
      const message = `An entry of this page is ${page.tooLarge.toLocaleString("en-US")} bytes, more than one answer may carry (HONE_MAX_RESPONSE_BYTES); GET /api/v1/datasets/${input.datasetId}/export streams it`;
      throw new DomainError("VALIDATION", message, { issues: [{ message }] });
    }
    // Other calls of the same batch used the room: nothing now, the same cursor again next time.
    return { lines: [], endCursor: input.after ?? null, hasNextPage: true };
  }
  return { lines: page.rows.map((r) => JSON.stringify(r)), endCursor: page.lastId ? encodeCursor(page.lastId) : null, hasNextPage: page.more };
}
