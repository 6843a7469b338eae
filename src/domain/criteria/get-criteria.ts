import { and, asc, desc, eq, inArray } from "drizzle-orm";
import { dbOf, type Ctx } from "../../context";
import { criteria, criterionVersions } from "../../db/schema";
import { parseInput } from "../../errors";
import { criterionNotFound } from "./internal";
import { CriterionIdInput, type Criterion } from "./schemas";

async function withVersions(ctx: Ctx, rows: { id: string; name: string; createdAt: Date }[]): Promise<Criterion[]> {
  if (rows.length === 0) return [];
  const versions = await dbOf(ctx)
    .select()
    .from(criterionVersions)
    .where(inArray(criterionVersions.criterionId, rows.map((r) => r.id)))
    .orderBy(asc(criterionVersions.version));
  return rows.map((r) => {
    const vs = versions.filter((v) => v.criterionId === r.id).map(({ version, judgeModel, prompt, createdAt }) => ({ version, judgeModel, prompt, createdAt }));
    return { ...r, latestVersion: vs.at(-1)?.version ?? 0, versions: vs };
  });
}

export async function listCriteria(ctx: Ctx): Promise<Criterion[]> {
  const rows = await dbOf(ctx)
    .select({ id: criteria.id, name: criteria.name, createdAt: criteria.createdAt })
    .from(criteria)
    .where(eq(criteria.projectId, ctx.projectId))
    .orderBy(desc(criteria.id));
  return withVersions(ctx, rows);
}

export async function getCriterion(ctx: Ctx, raw: { criterionId: string }): Promise<Criterion> {
  const { criterionId } = parseInput(CriterionIdInput, raw);
  const rows = await dbOf(ctx)
    .select({ id: criteria.id, name: criteria.name, createdAt: criteria.createdAt })
    .from(criteria)
    .where(and(eq(criteria.id, criterionId), eq(criteria.projectId, ctx.projectId)));
  if (!rows[0]) throw criterionNotFound(criterionId);
  return (await withVersions(ctx, rows))[0]!;
}

/** Deletes a criterion with its versions, alignment rows and results. */
export async function deleteCriterion(ctx: Ctx, raw: { criterionId: string }): Promise<{ id: string }> {
  const { criterionId } = parseInput(CriterionIdInput, raw);
  const deleted = await dbOf(ctx)
    .delete(criteria)
    .where(and(eq(criteria.id, criterionId), eq(criteria.projectId, ctx.projectId)))
    .returning({ id: criteria.id });
  if (!deleted[0]) throw criterionNotFound(criterionId);
  return { id: deleted[0].id };
}
