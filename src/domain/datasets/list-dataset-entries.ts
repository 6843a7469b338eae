import { and, asc, eq, gt, type SQL } from "drizzle-orm";
import { dbOf, type Ctx } from "../context";
import { datasetEntries } from "../../db/schema";
import { notFound, parseInput } from "../../core/errors";
import { checkPageSize } from "../../core/limits";
import { chargeAnswer, ENTRIES_INSTEAD } from "../answer-budget";
import { findDataset, toDatasetEntry } from "./internal";
import { decodeCursor, encodeCursor, ENTRY_SIZE, entriesByIds, entryConditions, verdictsOfEntries } from "./entry-queries";
import { GetDatasetEntryInput, ListDatasetEntriesInput, type DatasetEntryPage, type DatasetEntryWithVerdicts } from "./schemas";

export const DEFAULT_PAGE_SIZE = 50;

/**
 * One page of a dataset's entries in insertion order, keyset-paginated on the time-ordered id,
 * each with the latest verdict of every criterion that judged it (one more query per page).
 */
export async function listDatasetEntries(ctx: Ctx, raw: ListDatasetEntriesInput): Promise<DatasetEntryPage<DatasetEntryWithVerdicts>> {
  const input = parseInput(ListDatasetEntriesInput, raw);
  checkPageSize(input.first, ctx.deps.config.maxPageSize);
  await findDataset(ctx, input.datasetId);
  const first = input.first ?? DEFAULT_PAGE_SIZE;
  const where: SQL[] = [eq(datasetEntries.datasetId, input.datasetId), eq(datasetEntries.projectId, ctx.projectId)];
  if (input.after) where.push(gt(datasetEntries.id, decodeCursor(input.after)));
  where.push(...entryConditions(input));
  // Sized first, charged to the answer, then loaded: a page of large entries is refused before it is read.
  const sized = await dbOf(ctx)
    .select({ id: datasetEntries.id, size: ENTRY_SIZE })
    .from(datasetEntries)
    .where(and(...where))
    .orderBy(asc(datasetEntries.id))
    .limit(first + 1);
  const ids = sized.slice(0, first);
  chargeAnswer(
    ctx,
    ids.reduce((n, r) => n + Number(r.size), 0),
    ENTRIES_INSTEAD,
  );
  const page = (
    await entriesByIds(
      ctx,
      ids.map((r) => r.id),
    )
  ).map(toDatasetEntry);
  const rows = sized;
  const verdicts = await verdictsOfEntries(
    dbOf(ctx),
    ctx.projectId,
    page.map((e) => e.id),
  );
  return {
    entries: page.map((e) => ({ ...e, verdicts: verdicts.get(e.id) ?? [] })),
    hasNextPage: rows.length > first,
    endCursor: page.length ? encodeCursor(page.at(-1)!.id) : null,
  };
}

/** One entry with its verdicts, by id: what a link to an entry opens when it is not on a loaded page. */
export async function getDatasetEntry(ctx: Ctx, raw: GetDatasetEntryInput): Promise<DatasetEntryWithVerdicts> {
  const input = parseInput(GetDatasetEntryInput, raw);
  await findDataset(ctx, input.datasetId);
  const [row] = (await entriesByIds(ctx, [input.entryId])).filter((r) => r.datasetId === input.datasetId);
  if (!row) throw notFound("Dataset entry", input.entryId);
  chargeAnswer(ctx, JSON.stringify(row.messages).length + JSON.stringify(row.tools ?? null).length, ENTRIES_INSTEAD);
  const verdicts = await verdictsOfEntries(dbOf(ctx), ctx.projectId, [row.id]);
  return { ...toDatasetEntry(row), verdicts: verdicts.get(row.id) ?? [] };
}
