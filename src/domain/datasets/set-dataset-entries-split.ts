import { dbOf, type Ctx } from "../../context";
import { datasetEntries } from "../../db/schema";
import { parseInput } from "../../errors";
import { namedEntries, touchDataset } from "./internal";
import { SetDatasetEntriesSplitInput } from "./schemas";

/**
 * Moves entries of one dataset to TRAIN or TEST. Ids that are not entries of this dataset are
 * skipped: `updated` counts the dataset's entries named (those already in the split included).
 */
export async function setDatasetEntriesSplit(ctx: Ctx, raw: SetDatasetEntriesSplitInput): Promise<{ updated: number }> {
  const input = parseInput(SetDatasetEntriesSplitInput, raw);
  return dbOf(ctx).transaction(async (tx) => {
    await touchDataset(ctx, tx, input.datasetId);
    const changed = await tx
      .update(datasetEntries)
      .set({ split: input.split })
      .where(namedEntries(ctx, input.datasetId, input.entryIds))
      .returning({ id: datasetEntries.id });
    return { updated: changed.length };
  });
}
