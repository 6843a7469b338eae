import { and, eq, inArray } from "drizzle-orm";
import { dbOf, type Ctx } from "../context";
import { alignmentRows } from "../../db/schema";
import { parseInput } from "../../core/errors";
import { ownCriterionId } from "./internal";
import { DeleteAlignmentRowsInput } from "./schemas";

/** Removes rows from the criterion's alignment set (with their verdicts); ids it does not hold are ignored. */
export async function deleteAlignmentRows(ctx: Ctx, raw: DeleteAlignmentRowsInput): Promise<{ deleted: number }> {
  const input = parseInput(DeleteAlignmentRowsInput, raw);
  const criterionId = await ownCriterionId(ctx, input.criterionId);
  const gone = await dbOf(ctx)
    .delete(alignmentRows)
    .where(and(eq(alignmentRows.criterionId, criterionId), inArray(alignmentRows.id, [...new Set(input.rowIds)])))
    .returning({ id: alignmentRows.id });
  return { deleted: gone.length };
}
