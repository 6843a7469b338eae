import { asc, eq } from "drizzle-orm";
import { dbOf, type Ctx } from "../../context";
import { alignmentRuns } from "../../db/schema";
import { parseInput } from "../../errors";
import { ownCriterionId } from "./internal";
import { CriterionIdInput, type AlignmentStats } from "./schemas";

/** The stored statistics of every version's last alignment run, oldest version first. */
export async function listAlignmentRuns(ctx: Ctx, raw: CriterionIdInput): Promise<(AlignmentStats & { createdAt: Date })[]> {
  const criterionId = await ownCriterionId(ctx, parseInput(CriterionIdInput, raw).criterionId);
  const runs = await dbOf(ctx).select().from(alignmentRuns).where(eq(alignmentRuns.criterionId, criterionId)).orderBy(asc(alignmentRuns.version));
  return runs.map((r) => ({ ...(r.stats as AlignmentStats), createdAt: r.createdAt }));
}
