import { and, eq } from "drizzle-orm";
import { dbOf, type Ctx } from "../context";
import { alignmentRows, criteria } from "../../db/schema";
import { notFound, parseInput } from "../../core/errors";
import { LabelAlignmentRowInput, type AlignmentRow } from "./schemas";

/** Sets or clears (null) the human label of a row. */
export async function labelAlignmentRow(ctx: Ctx, raw: LabelAlignmentRowInput): Promise<AlignmentRow> {
  const input = parseInput(LabelAlignmentRowInput, raw);
  const [owned] = await dbOf(ctx)
    .select({ id: alignmentRows.id })
    .from(alignmentRows)
    .innerJoin(criteria, eq(criteria.id, alignmentRows.criterionId))
    .where(and(eq(alignmentRows.id, input.rowId), eq(criteria.projectId, ctx.projectId)));
  if (!owned) throw notFound("Alignment row", input.rowId);
  const [row] = await dbOf(ctx).update(alignmentRows).set({ judgement: input.judgement }).where(eq(alignmentRows.id, owned.id)).returning();
  const { criterionId: _, ...out } = row!;
  return out;
}
