import { and, eq } from "drizzle-orm";
import { dbOf, type Ctx } from "../context";
import { datasetEntries } from "../../db/schema";
import { DomainError, notFound, parseInput } from "../../core/errors";
import { toDatasetEntry } from "./internal";
import { verdictsOfEntries } from "./entry-queries";
import { type DatasetEntryWithVerdicts, RevertEntryInput } from "./schemas";

/**
 * Accepts a relabelling: the new answer stays and the original is let go, so the entry leaves the
 * review queue (`pendingReview`). relabeledBy still names the model that wrote the answer.
 */
export async function acceptDatasetEntryRelabel(ctx: Ctx, raw: { entryId: string }): Promise<DatasetEntryWithVerdicts> {
  const input = parseInput(RevertEntryInput, raw);
  const [row] = await dbOf(ctx)
    .select({ id: datasetEntries.id, original: datasetEntries.originalMessages })
    .from(datasetEntries)
    .where(and(eq(datasetEntries.id, input.entryId), eq(datasetEntries.projectId, ctx.projectId)));
  if (!row) throw notFound("Dataset entry", input.entryId);
  if (!row.original) throw new DomainError("CONFLICT", `Dataset entry ${input.entryId} has no relabelling awaiting review`);
  const [updated] = await dbOf(ctx).update(datasetEntries).set({ originalMessages: null }).where(eq(datasetEntries.id, row.id)).returning();
  const entry = toDatasetEntry(updated!);
  const verdicts = await verdictsOfEntries(dbOf(ctx), ctx.projectId, [entry.id]);
  return { ...entry, verdicts: verdicts.get(entry.id) ?? [] };
}
