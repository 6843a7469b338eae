import { inArray } from "drizzle-orm";
import { dbOf, type Ctx } from "../context";
import type { Queryable } from "../../db/client";
import { datasetEntries } from "../../db/schema";
import { parseInput } from "../../core/errors";
import { countDatasetEntries } from "./count-dataset-entries";
import { eachEntryBatch } from "./entry-batches";
import { touchDataset } from "./internal";
import { namedEntries } from "./entry-queries";
import { ResplitDatasetEntriesInput, type ResplitResult } from "./schemas";

/**
 * Selection sampling (Knuth's algorithm S): the entries stream by once, in batches, and each goes to
 * TEST with probability TEST-still-to-place / entries-still-to-see, which draws a uniform sample of
 * exactly `test` of the `total` without holding every id.
 */
function sampler(total: number, test: number, random: () => number) {
  let testLeft = test;
  let seenLeft = total;
  const placed = { test: 0, train: 0 };
  return {
    placed,
    async place(tx: Queryable, ids: string[]) {
      const toTest: string[] = [];
      const toTrain: string[] = [];
      for (const id of ids) {
        const pick = testLeft > 0 && (seenLeft <= testLeft || random() * seenLeft < testLeft);
        (pick ? toTest : toTrain).push(id);
        if (pick) testLeft--;
        seenLeft--;
      }
      if (toTest.length) await tx.update(datasetEntries).set({ split: "TEST" }).where(inArray(datasetEntries.id, toTest));
      if (toTrain.length) await tx.update(datasetEntries).set({ split: "TRAIN" }).where(inArray(datasetEntries.id, toTrain));
      placed.test += toTest.length;
      placed.train += toTrain.length;
    },
  };
}

// Rounded after fixing the product to 9 places: 0.35 x 20 is 6.999999999999999 in binary.
const testShare = (ratio: number, n: number) => Math.round(Number((ratio * n).toFixed(9)));

/**
 * Splits entries at random: round(testRatio x n) of the n named (or matching the filter) go to
 * TEST, a uniform sample, and the rest to TRAIN. By filter it works a batch of 1,000 per
 * transaction; the counts answered are the entries actually placed (entries added or deleted while
 * it runs can move them off by those entries).
 */
export async function resplitDatasetEntries(ctx: Ctx, raw: ResplitDatasetEntriesInput): Promise<ResplitResult> {
  const input = parseInput(ResplitDatasetEntriesInput, raw);
  if (input.entryIds) {
    const entryIds = input.entryIds;
    return dbOf(ctx).transaction(async (tx) => {
      await touchDataset(ctx, tx, input.datasetId);
      const rows = await tx
        .select({ id: datasetEntries.id })
        .from(datasetEntries)
        .where(namedEntries(ctx, input.datasetId, entryIds));
      const s = sampler(rows.length, testShare(input.testRatio, rows.length), ctx.deps.random);
      await s.place(
        tx,
        rows.map((r) => r.id),
      );
      return { matched: rows.length, ...s.placed };
    });
  }
  const { count } = await countDatasetEntries(ctx, { datasetId: input.datasetId, filter: input.filter });
  const s = sampler(count, testShare(input.testRatio, count), ctx.deps.random);
  await eachEntryBatch(ctx, input.datasetId, input.filter, s.place);
  return { matched: s.placed.test + s.placed.train, ...s.placed };
}
