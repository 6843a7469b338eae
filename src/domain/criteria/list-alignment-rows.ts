import { asc, eq } from "drizzle-orm";
import { dbOf, type Ctx } from "../../context";
import { alignmentRows } from "../../db/schema";
import { parseInput } from "../../errors";
import { ownCriterionId } from "./internal";
import { CriterionIdInput, type AlignmentRow } from "./schemas";

export async function listAlignmentRows(ctx: Ctx, raw: CriterionIdInput): Promise<AlignmentRow[]> {
  const criterionId = await ownCriterionId(ctx, parseInput(CriterionIdInput, raw).criterionId);
  const rows = await dbOf(ctx).select().from(alignmentRows).where(eq(alignmentRows.criterionId, criterionId)).orderBy(asc(alignmentRows.id));
  return rows.map(({ criterionId: _, ...r }) => r);
}
