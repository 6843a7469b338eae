import { inArray } from "drizzle-orm";
import { dbOf, type Ctx } from "../context";
import { datasetEntries } from "../../db/schema";
import { parseInput } from "../../core/errors";
import { eachEntryBatch } from "./entry-batches";
import { touchDataset } from "./internal";
import { namedEntries } from "./entry-queries";
import { DeleteDatasetEntriesInput } from "./schemas";

/**
 * Deletes entries of one dataset (their verdicts go with them, by cascade): the ids named, or every
 * entry matching `filter`, 1,000 per transaction. Ids that are not entries of this dataset are
 * skipped: `deleted` counts the entries actually deleted.
 */
export async function deleteDatasetEntries(ctx: Ctx, raw: DeleteDatasetEntriesInput): Promise<{ deleted: number }> {
  const input = parseInput(DeleteDatasetEntriesInput, raw);
  if (input.entryIds) {
    const entryIds = input.entryIds;
    return dbOf(ctx).transaction(async (tx) => {
      await touchDataset(ctx, tx, input.datasetId);
      const gone = await tx
        .delete(datasetEntries)
        .where(namedEntries(ctx, input.datasetId, entryIds))
        .returning({ id: datasetEntries.id });
      return { deleted: gone.length };
    });
  }
  let deleted = 0;
  await eachEntryBatch(ctx, input.datasetId, input.filter, async (tx, ids) => {
    const gone = await tx.delete(datasetEntries).where(inArray(datasetEntries.id, ids)).returning({ id: datasetEntries.id });
    deleted += gone.length;
  });
  return { deleted };
}
