import { and, desc, eq } from "drizzle-orm";
import { dbOf, type Ctx } from "../context";
import { alignmentTasks } from "../../db/schema";
import { notFound, parseInput } from "../../core/errors";
import { toAlignmentTask } from "./alignment";
import { ownCriterionId } from "./internal";
import { AlignmentTaskIdInput, CriterionIdInput, type AlignmentTask } from "./schemas";

export async function getAlignmentTask(ctx: Ctx, raw: AlignmentTaskIdInput): Promise<AlignmentTask> {
  const { id } = parseInput(AlignmentTaskIdInput, raw);
  const [r] = await dbOf(ctx)
    .select()
    .from(alignmentTasks)
    .where(and(eq(alignmentTasks.id, id), eq(alignmentTasks.projectId, ctx.projectId)));
  if (!r) throw notFound("Alignment run", id);
  return toAlignmentTask(r);
}

/** The criterion's 20 most recent background alignment runs, newest first. */
export async function listAlignmentTasks(ctx: Ctx, raw: CriterionIdInput): Promise<AlignmentTask[]> {
  const criterionId = await ownCriterionId(ctx, parseInput(CriterionIdInput, raw).criterionId);
  const rows = await dbOf(ctx).select().from(alignmentTasks).where(eq(alignmentTasks.criterionId, criterionId)).orderBy(desc(alignmentTasks.id)).limit(20);
  return rows.map(toAlignmentTask);
}
