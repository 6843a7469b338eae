import { and, eq, gte } from "drizzle-orm";
import { dbOf, type Ctx } from "../context";
import { datasetEntries, entryVerdicts } from "../../db/schema";
import { DomainError, notFound, parseInput } from "../../core/errors";
import { entryContentHash, toDatasetEntry } from "./internal";
import { verdictsOfEntries } from "./entry-queries";
import { type DatasetEntryInput, type DatasetEntryWithVerdicts, RevertEntryInput } from "./schemas";

/**
 * Rejects a relabelling: the entry gets back the messages it had before its first relabelling.
 * Verdicts given since the relabelling judged the answer that is gone, so they go too; older ones
 * judged the original and stay. relabeledAt is kept so a relabel task still running does not
 * relabel the entry again.
 */
export async function revertDatasetEntryRelabel(ctx: Ctx, raw: { entryId: string }): Promise<DatasetEntryWithVerdicts> {
  const input = parseInput(RevertEntryInput, raw);
  const entry = await dbOf(ctx).transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(datasetEntries)
      .where(and(eq(datasetEntries.id, input.entryId), eq(datasetEntries.projectId, ctx.projectId)))
      .for("update");
    if (!row) throw notFound("Dataset entry", input.entryId);
    if (!row.originalMessages) throw new DomainError("CONFLICT", `Dataset entry ${input.entryId} has not been relabelled: there is nothing to revert`);
    const messages = row.originalMessages;
    const [updated] = await tx
      .update(datasetEntries)
      .set({
        messages,
        originalMessages: null,
        relabeledBy: null,
        contentHash: entryContentHash({
          messages: messages as never,
          tools: row.tools as never,
          tool_choice: row.toolChoice as never,
          response_format: row.responseFormat as DatasetEntryInput["response_format"],
        }),
      })
      .where(eq(datasetEntries.id, row.id))
      .returning();
    if (row.relabeledAt) await tx.delete(entryVerdicts).where(and(eq(entryVerdicts.entryId, row.id), gte(entryVerdicts.createdAt, row.relabeledAt)));
    return toDatasetEntry(updated!);
  });
  const verdicts = await verdictsOfEntries(dbOf(ctx), ctx.projectId, [entry.id]);
  return { ...entry, verdicts: verdicts.get(entry.id) ?? [] };
}
