import { inArray } from "drizzle-orm";
import type { Ctx } from "../../context";
import { datasetEntries } from "../../db/schema";
import { parseInput } from "../../errors";
import { countDatasetEntries } from "./count-dataset-entries";
import { eachEntryBatch } from "./entry-batches";
import { ResplitDatasetEntriesInput, type ResplitResult } from "./schemas";

/**
 * Splits the entries matching a filter at random: round(testRatio x n) of the n matching go to
 * TEST, a uniform sample, and the rest to TRAIN. The sample is drawn as the entries stream by, a
 * batch of 1,000 per transaction (selection sampling: each entry goes to TEST with probability
 * TEST-still-to-place / entries-still-to-see), so no list of every id is held. The counts answered
 * are the entries actually placed (entries added or deleted while it runs can move them off by
 * those entries).
 */
export async function resplitDatasetEntries(ctx: Ctx, raw: ResplitDatasetEntriesInput): Promise<ResplitResult> {
  const input = parseInput(ResplitDatasetEntriesInput, raw);
  const { count } = await countDatasetEntries(ctx, { datasetId: input.datasetId, filter: input.filter });
  // Rounded after fixing the product to 9 places: 0.35 x 10 is 3.4999999999999996 in binary.
  let testLeft = Math.round(Number((input.testRatio * count).toFixed(9)));
  let seenLeft = count;
  let test = 0;
  let train = 0;
  await eachEntryBatch(ctx, input.datasetId, input.filter, async (tx, ids) => {
    const toTest: string[] = [];
    const toTrain: string[] = [];
    for (const id of ids) {
      const pick = testLeft > 0 && (seenLeft <= testLeft || ctx.deps.random() * seenLeft < testLeft);
      (pick ? toTest : toTrain).push(id);
      if (pick) testLeft--;
      seenLeft--;
    }
    if (toTest.length) await tx.update(datasetEntries).set({ split: "TEST" }).where(inArray(datasetEntries.id, toTest));
    if (toTrain.length) await tx.update(datasetEntries).set({ split: "TRAIN" }).where(inArray(datasetEntries.id, toTrain));
    test += toTest.length;
    train += toTrain.length;
  });
  return { matched: test + train, test, train };
}
