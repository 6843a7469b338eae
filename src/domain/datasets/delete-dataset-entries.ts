import { dbOf, type Ctx } from "../../context";
import { datasetEntries } from "../../db/schema";
import { parseInput } from "../../errors";
import { namedEntries, touchDataset } from "./internal";
import { DeleteDatasetEntriesInput } from "./schemas";

/**
 * Deletes entries of one dataset (their verdicts go with them, by cascade). Ids that are not
 * entries of this dataset are skipped: `deleted` counts the entries actually deleted.
 */
export async function deleteDatasetEntries(ctx: Ctx, raw: DeleteDatasetEntriesInput): Promise<{ deleted: number }> {
  const input = parseInput(DeleteDatasetEntriesInput, raw);
  return dbOf(ctx).transaction(async (tx) => {
    await touchDataset(ctx, tx, input.datasetId);
    const gone = await tx
      .delete(datasetEntries)
      .where(namedEntries(ctx, input.datasetId, input.entryIds))
      .returning({ id: datasetEntries.id });
    return { deleted: gone.length };
  });
}
