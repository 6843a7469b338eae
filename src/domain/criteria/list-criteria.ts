import { and, desc, eq, inArray } from "drizzle-orm";
import { dbOf, type Ctx } from "../context";
import { alignmentRuns, criteria } from "../../db/schema";
import { type ListPageInput, listPage } from "../list-page";
import { withVersions } from "./internal";
import type { AlignmentStats, Criterion } from "./schemas";

/** A page of the project's criteria, newest first (list-page.ts). */
export async function listCriteria(ctx: Ctx, raw?: ListPageInput): Promise<Criterion[]> {
  const page = listPage(ctx, raw, criteria.id);
  const rows = await dbOf(ctx)
    .select({ id: criteria.id, name: criteria.name, createdAt: criteria.createdAt })
    .from(criteria)
    .where(and(eq(criteria.projectId, ctx.projectId), page.after))
    .orderBy(desc(criteria.id))
    .limit(page.limit);
  return withVersions(ctx, rows);
}

/** Per criterion of these, its most recent alignment run (of any version), for a list to show. */
export async function lastAlignmentRuns(ctx: Ctx, criterionIds: string[]): Promise<Map<string, AlignmentStats & { createdAt: Date }>> {
  if (!criterionIds.length) return new Map();
  const runs = await dbOf(ctx)
    .selectDistinctOn([alignmentRuns.criterionId])
    .from(alignmentRuns)
    .where(inArray(alignmentRuns.criterionId, criterionIds))
    .orderBy(alignmentRuns.criterionId, desc(alignmentRuns.createdAt), desc(alignmentRuns.version));
  return new Map(runs.map((r) => [r.criterionId, { ...(r.stats as AlignmentStats), createdAt: r.createdAt }]));
}
