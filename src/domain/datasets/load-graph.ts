import { and, eq, gt, inArray, lte, sql, type SQL } from "drizzle-orm";
import { dbOf, type Ctx } from "../context";
import { datasetEntries, datasets } from "../../db/schema";
import { parseInput } from "../../core/errors";
import { checkPageSize } from "../../core/limits";
import { DEFAULT_PAGE_SIZE } from "./list-dataset-entries";
import { chargeEach, ENTRIES_INSTEAD } from "../answer-budget";
import { datasetColumns, toDataset, toDatasetEntry } from "./internal";
import { decodeCursor, encodeCursor, ENTRY_SIZE, entriesByIds, entryConditions, verdictsOfEntries } from "./entry-queries";
import { ListDatasetEntriesInput, type Dataset, type DatasetEntry, type DatasetEntryPage, type EntryVerdict } from "./schemas";

// Batch lookups for the graph API: one query for many keys, always scoped to the project.

/**
 * The entries made from each of these logs. Their size is charged to the answer once per log id
 * given (a log asked for twice is answered twice), before they are loaded.
 */
export async function loadEntriesBySourceLog(ctx: Ctx, logIds: readonly string[]): Promise<Map<string, DatasetEntry[]>> {
  const out = new Map<string, DatasetEntry[]>();
  if (!logIds.length) return out;
  const sized = await dbOf(ctx)
    .select({ id: datasetEntries.id, log: datasetEntries.sourceLogId, size: ENTRY_SIZE })
    .from(datasetEntries)
    .where(and(inArray(datasetEntries.sourceLogId, [...new Set(logIds)]), eq(datasetEntries.projectId, ctx.projectId)));
  const perLog = new Map<string, number>();
  for (const r of sized) perLog.set(r.log!, (perLog.get(r.log!) ?? 0) + Number(r.size));
  chargeEach(ctx, logIds, perLog, ENTRIES_INSTEAD);
  const rows = await entriesByIds(
    ctx,
    sized.map((r) => r.id),
  );
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
 * The same page (first, after, split, verdict) of the entries of each of these datasets, in two
 * statements whatever their number: row_number() per dataset keeps first + 1 rows of each (with
 * their sizes), the pages' sizes are charged to the answer once per dataset id given (two aliases
 * of one dataset are answered twice), then the entries are loaded. Datasets of other projects get
 * empty pages.
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
      datasetId: datasetEntries.datasetId,
      size: sql<number>`${ENTRY_SIZE}`.as("size"),
      rank: sql<number>`row_number() over (partition by ${datasetEntries.datasetId} order by ${datasetEntries.id})`.as("rank"),
    })
    .from(datasetEntries)
    .where(and(...where))
    .as("ranked");
  const picked = await dbOf(ctx)
    .select({ id: ranked.id, datasetId: ranked.datasetId, size: ranked.size, rank: ranked.rank })
    .from(ranked)
    .where(lte(ranked.rank, first + 1));
  const pageBytes = new Map<string, number>();
  for (const p of picked) if (Number(p.rank) <= first) pageBytes.set(p.datasetId, (pageBytes.get(p.datasetId) ?? 0) + Number(p.size));
  chargeEach(ctx, datasetIds, pageBytes, ENTRIES_INSTEAD);
  const rows = await entriesByIds(
    ctx,
    picked.filter((p) => Number(p.rank) <= first).map((p) => p.id),
  );
  const extra = new Set(picked.filter((p) => Number(p.rank) > first).map((p) => p.datasetId));
  const byDataset = new Map<string, DatasetEntry[]>();
  for (const row of rows) {
    const list = byDataset.get(row.datasetId) ?? [];
    list.push(toDatasetEntry(row));
    byDataset.set(row.datasetId, list);
  }
  for (const id of datasetIds) {
    const entries = byDataset.get(id) ?? [];
    out.set(id, { entries, hasNextPage: extra.has(id), endCursor: entries.length ? encodeCursor(entries.at(-1)!.id) : null });
  }
  return out;
}
