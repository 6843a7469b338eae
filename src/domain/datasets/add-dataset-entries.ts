import { and, eq } from "drizzle-orm";
import { dbOf, type Ctx } from "../../context";
import { datasetEntries, datasets } from "../../db/schema";
import { issuesFromZod, notFound, parseInput } from "../../errors";
import { assignSplits } from "./internal";
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
    else errors.push({ entryIndex: index, message: issuesFromZod(r.error).map((i) => i.message).join("; ") });
  });
  const splits = assignSplits(
    valid.map((v) => v.entry.split),
    ctx.deps.random,
  );

  return dbOf(ctx).transaction(async (tx) => {
    // Locks the dataset row: a concurrent delete cannot slip between the check and the insert.
    const now = ctx.deps.clock();
    const [dataset] = await tx
      .update(datasets)
      .set({ updatedAt: now })
      .where(and(eq(datasets.id, input.datasetId), eq(datasets.projectId, ctx.projectId)))
      .returning({ id: datasets.id });
    if (!dataset) throw notFound("Dataset", input.datasetId);
    if (valid.length > 0) {
      await tx.insert(datasetEntries).values(
        valid.map(({ entry }, i) => ({
          id: ctx.deps.ids("datasetEntry"),
          datasetId: dataset.id,
          projectId: ctx.projectId,
          messages: entry.messages,
          tools: entry.tools ?? null,
          toolChoice: entry.tool_choice ?? null,
          responseFormat: entry.response_format ?? null,
          metadata: entry.metadata ?? {},
          split: splits[i]!,
          createdAt: now,
        })),
      );
    }
    return { entriesCreated: valid.length, errors };
  });
}
