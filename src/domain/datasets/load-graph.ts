import { and, asc, eq, gt, inArray, lte, sql, type SQL } from "drizzle-orm";
import { dbOf, type Ctx } from "../../context";
import { datasetEntries, datasets } from "../../db/schema";
import { parseInput } from "../../errors";
import { checkPageSize } from "../../limits";
import { DEFAULT_PAGE_SIZE } from "./list-dataset-entries";
import { datasetColumns, decodeCursor, encodeCursor, entryConditions, toDataset, toDatasetEntry, verdictsOfEntries } from "./internal";
import { ListDatasetEntriesInput, type Dataset, type DatasetEntry, type DatasetEntryPage, type EntryVerdict } from "./schemas";

// Batch lookups for the graph API: one query for many keys, always scoped to the project.

/** The entries made from each of these logs. */
export async function loadEntriesBySourceLog(ctx: Ctx, logIds: readonly string[]): Promise<Map<string, DatasetEntry[]>> {
  const out = new Map<string, DatasetEntry[]>();
  if (!logIds.length) return out;
  const rows = await dbOf(ctx)
    .select()
    .from(datasetEntries)
    .where(and(inArray(datasetEntries.sourceLogId, [...logIds]), eq(datasetEntries.projectId, ctx.projectId)))
    .orderBy(asc(datasetEntries.id));
  for (const row of rows) {
    const list = out.get(row.sourceLogId!) ?? [];
    list.push(toDatasetEntry(row));
    out.set(row.sourceLogId!, list);
  }
  return out;
}

/** The latest verdict per criterion of each of these entries (another project's entries: none). */
export async function loadEntryVerdicts(ctx: Ctx, entryIds: readonly string[]): Promise<Map<string, EntryVerdict[]>> {
  return verdictsOfEntries(dbOf(ctx), ctx.projectId, entryIds);
}

export async function loadDatasets(ctx: Ctx, ids: readonly string[]): Promise<Map<string, Dataset>> {
  if (!ids.length) return new Map();
  const rows = await dbOf(ctx)
    .select(datasetColumns)
    .from(datasets)
    .where(and(inArray(datasets.id, [...ids]), eq(datasets.projectId, ctx.projectId)));
  return new Map(rows.map((r) => [r.id, toDataset(r)]));
}

const EntryPageArgs = ListDatasetEntriesInput.omit({ datasetId: true });
export type EntryPageArgs = Omit<ListDatasetEntriesInput, "datasetId">;

/**
 * The same page (first, after, split, verdict) of the entries of each of these datasets, in one
 * statement: row_number() per dataset keeps first + 1 rows of each, so a page of parents asking for
 * their entries costs one query, not one per parent. Datasets of other projects get empty pages.
 */
export async function loadEntryPages(ctx: Ctx, datasetIds: readonly string[], raw: EntryPageArgs): Promise<Map<string, DatasetEntryPage>> {
  const input = parseInput(EntryPageArgs, raw);
  checkPageSize(input.first, ctx.deps.config.maxPageSize);
  const first = input.first ?? DEFAULT_PAGE_SIZE;
  const out = new Map<string, DatasetEntryPage>();
  if (!datasetIds.length) return out;
  const where: SQL[] = [inArray(datasetEntries.datasetId, [...datasetIds]), eq(datasetEntries.projectId, ctx.projectId)];
  if (input.after) where.push(gt(datasetEntries.id, decodeCursor(input.after)));
  where.push(...entryConditions(input));
  const ranked = dbOf(ctx)
    .select({
      id: datasetEntries.id,
      rank: sql<number>`row_number() over (partition by ${datasetEntries.datasetId} order by ${datasetEntries.id})`.as("rank"),
    })
    .from(datasetEntries)
    .where(and(...where))
    .as("ranked");
  const rows = await dbOf(ctx)
    .select()
    .from(datasetEntries)
    .innerJoin(ranked, eq(ranked.id, datasetEntries.id))
    .where(lte(ranked.rank, first + 1))
    .orderBy(asc(datasetEntries.id));
  const byDataset = new Map<string, DatasetEntry[]>();
  for (const { dataset_entries: row } of rows) {
    const list = byDataset.get(row.datasetId) ?? [];
    list.push(toDatasetEntry(row));
    byDataset.set(row.datasetId, list);
  }
  for (const id of datasetIds) {
    const all = byDataset.get(id) ?? [];
    const entries = all.slice(0, first);
    out.set(id, { entries, hasNextPage: all.length > first, endCursor: entries.length ? encodeCursor(entries.at(-1)!.id) : null });
  }
  return out;
}
