import { and, eq } from "drizzle-orm";
import { dbOf, type Ctx } from "../context";
import { criteria } from "../../db/schema";
import { parseInput } from "../../core/errors";
import { criterionNotFound, withVersions } from "./internal";
import { CriterionIdInput, type Criterion } from "./schemas";

export async function getCriterion(ctx: Ctx, raw: { criterionId: string }): Promise<Criterion> {
  const { criterionId } = parseInput(CriterionIdInput, raw);
  const rows = await dbOf(ctx)
    .select({ id: criteria.id, name: criteria.name, createdAt: criteria.createdAt })
    .from(criteria)
    .where(and(eq(criteria.id, criterionId), eq(criteria.projectId, ctx.projectId)));
  if (!rows[0]) throw criterionNotFound(criterionId);
  return (await withVersions(ctx, rows))[0]!;
}
