import { inArray } from "drizzle-orm";
import { dbOf, type Ctx } from "../context";
import { datasetEntries } from "../../db/schema";
import { parseInput } from "../../core/errors";
import { eachEntryBatch } from "./entry-batches";
import { touchDataset } from "./internal";
import { namedEntries } from "./entry-queries";
import { SetDatasetEntriesSplitInput } from "./schemas";

/**
 * Moves entries of one dataset to TRAIN or TEST: the ids named, or every entry matching `filter`,
 * 1,000 per transaction. Ids that are not entries of this dataset are skipped: `updated` counts the
 * dataset's entries named or matched (those already in the split included).
 */
export async function setDatasetEntriesSplit(ctx: Ctx, raw: SetDatasetEntriesSplitInput): Promise<{ updated: number }> {
  const input = parseInput(SetDatasetEntriesSplitInput, raw);
  if (input.entryIds) {
    const entryIds = input.entryIds;
    return dbOf(ctx).transaction(async (tx) => {
      await touchDataset(ctx, tx, input.datasetId);
      const changed = await tx
        .update(datasetEntries)
        .set({ split: input.split })
        .where(namedEntries(ctx, input.datasetId, entryIds))
        .returning({ id: datasetEntries.id });
      return { updated: changed.length };
    });
  }
  let updated = 0;
  await eachEntryBatch(ctx, input.datasetId, input.filter, async (tx, ids) => {
    const changed = await tx.update(datasetEntries).set({ split: input.split }).where(inArray(datasetEntries.id, ids)).returning({ id: datasetEntries.id });
    updated += changed.length;
  });
  return { updated };
}
