import { dbOf, type Ctx } from "../context";
import { issuesFromZod, parseInput } from "../../core/errors";
import { assignSplits, entryContentHash, insertEntries, touchDataset } from "./internal";
import { AddDatasetEntriesInput, DatasetEntryInput, type AddDatasetEntriesResult } from "./schemas";

/**
 * Adds 1 to 100 entries. Each entry is validated on its own: invalid ones are reported with their
 * index and the valid ones are stored, all in one transaction.
 */
export async function addDatasetEntries(ctx: Ctx, raw: AddDatasetEntriesInput): Promise<AddDatasetEntriesResult> {
  const input = parseInput(AddDatasetEntriesInput, raw);
  const valid: { index: number; entry: DatasetEntryInput }[] = [];
  const errors: AddDatasetEntriesResult["errors"] = [];
  input.entries.forEach((candidate, index) => {
    const r = DatasetEntryInput.safeParse(candidate);
    if (r.success) valid.push({ index, entry: r.data });
    else
      errors.push({
        entryIndex: index,
        message: issuesFromZod(r.error)
          .map((i) => i.message)
          .join("; "),
      });
  });
  const splits = assignSplits(
    valid.map((v) => v.entry.split),
    ctx.deps.random,
  );

  return dbOf(ctx).transaction(async (tx) => {
    // Locks the dataset row: a concurrent delete cannot slip between the check and the insert.
    await touchDataset(ctx, tx, input.datasetId);
    await insertEntries(
      ctx,
      tx,
      input.datasetId,
      valid.map(({ entry }, i) => ({ entry, split: splits[i]!, hash: entryContentHash(entry), source: "manual" as const })),
    );
    return { entriesCreated: valid.length, errors };
  });
}
