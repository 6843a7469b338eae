import { and, asc, eq, gt, type SQL } from "drizzle-orm";
import { dbOf, type Ctx } from "../context";
import type { Queryable } from "../../db/client";
import { datasetEntries } from "../../db/schema";
import { touchDataset } from "./internal";
import { entryConditions } from "./entry-queries";
import { ENTRY_BATCH, type EntryFilter } from "./schemas";

/**
 * Walks the entries of one dataset of ctx's project that match `filter`, in id order, ENTRY_BATCH
 * at a time, each batch in its own short transaction (which also marks the dataset changed and
 * fails with NOT_FOUND when it is not the project's). Keyset on the id: a batch that moves entries
 * out of the filter (a split change) never makes the walk skip or repeat one. Entries added while
 * it runs with ids below the cursor are not visited.
 */
export async function eachEntryBatch(
  ctx: Ctx,
  datasetId: string,
  filter: Partial<EntryFilter> | null | undefined,
  step: (tx: Queryable, ids: string[]) => Promise<void>,
): Promise<void> {
  let after: string | null = null;
  for (;;) {
    const last: string | null = await dbOf(ctx).transaction(async (tx) => {
      await touchDataset(ctx, tx, datasetId);
      const where: SQL[] = [eq(datasetEntries.datasetId, datasetId), eq(datasetEntries.projectId, ctx.projectId), ...entryConditions(filter)];
      if (after) where.push(gt(datasetEntries.id, after));
      const rows = await tx
        .select({ id: datasetEntries.id })
        .from(datasetEntries)
        .where(and(...where))
        .orderBy(asc(datasetEntries.id))
        .limit(ENTRY_BATCH);
      if (rows.length)
        await step(
          tx,
          rows.map((r) => r.id),
        );
      return rows.length === ENTRY_BATCH ? rows.at(-1)!.id : null;
    });
    if (!last) return;
    after = last;
  }
}
