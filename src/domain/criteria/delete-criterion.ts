import { and, eq } from "drizzle-orm";
import { dbOf, type Ctx } from "../context";
import { criteria } from "../../db/schema";
import { parseInput } from "../../core/errors";
import { criterionNotFound } from "./internal";
import { CriterionIdInput } from "./schemas";
import { type Deleted, deleted as deletedAs } from "../deleted";

/** Deletes a criterion with its versions, alignment rows and results. */
export async function deleteCriterion(ctx: Ctx, raw: { criterionId: string }): Promise<Deleted> {
  const { criterionId } = parseInput(CriterionIdInput, raw);
  const deleted = await dbOf(ctx)
    .delete(criteria)
    .where(and(eq(criteria.id, criterionId), eq(criteria.projectId, ctx.projectId)))
    .returning({ id: criteria.id });
  if (!deleted[0]) throw criterionNotFound(criterionId);
  return deletedAs(deleted[0].id);
}
