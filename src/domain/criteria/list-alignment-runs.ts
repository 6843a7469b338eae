import { and, asc, eq, inArray } from "drizzle-orm";
import { dbOf, type Ctx } from "../context";
import { alignmentRuns, criteria } from "../../db/schema";
import { parseInput } from "../../core/errors";
import { ownCriterionId } from "./internal";
import { CriterionIdInput, type AlignmentStats } from "./schemas";

/** The stored statistics of every version's last alignment run, oldest version first. */
export async function listAlignmentRuns(ctx: Ctx, raw: CriterionIdInput): Promise<(AlignmentStats & { createdAt: Date })[]> {
  const criterionId = await ownCriterionId(ctx, parseInput(CriterionIdInput, raw).criterionId);
  const runs = await dbOf(ctx).select().from(alignmentRuns).where(eq(alignmentRuns.criterionId, criterionId)).orderBy(asc(alignmentRuns.version));
  return runs.map((r) => ({ ...(r.stats as AlignmentStats), createdAt: r.createdAt }));
}

/** The same for each of these criteria of the project: one query for a page of criteria. */
export async function loadAlignmentRunsByCriterion(ctx: Ctx, criterionIds: readonly string[]): Promise<Map<string, (AlignmentStats & { createdAt: Date })[]>> {
  const byCriterion = new Map<string, (AlignmentStats & { createdAt: Date })[]>();
  if (!criterionIds.length) return byCriterion;
  const rows = await dbOf(ctx)
    .select({ criterionId: alignmentRuns.criterionId, stats: alignmentRuns.stats, createdAt: alignmentRuns.createdAt })
    .from(alignmentRuns)
    .innerJoin(criteria, eq(criteria.id, alignmentRuns.criterionId))
    .where(and(eq(criteria.projectId, ctx.projectId), inArray(alignmentRuns.criterionId, [...criterionIds])))
    .orderBy(asc(alignmentRuns.version));
  for (const r of rows) {
    const list = byCriterion.get(r.criterionId) ?? [];
    list.push({ ...(r.stats as AlignmentStats), createdAt: r.createdAt });
    byCriterion.set(r.criterionId, list);
  }
  return byCriterion;
}
