import { and, asc, eq, inArray } from "drizzle-orm";
import { dbOf, type Ctx } from "../../context";
import { datasetEntries, datasets } from "../../db/schema";
import { datasetColumns, toDataset, toDatasetEntry } from "./internal";
import type { Dataset, DatasetEntry } from "./schemas";

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

export async function loadDatasets(ctx: Ctx, ids: readonly string[]): Promise<Map<string, Dataset>> {
  if (!ids.length) return new Map();
  const rows = await dbOf(ctx)
    .select(datasetColumns)
    .from(datasets)
    .where(and(inArray(datasets.id, [...ids]), eq(datasets.projectId, ctx.projectId)));
  return new Map(rows.map((r) => [r.id, toDataset(r)]));
}
