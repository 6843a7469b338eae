import { type Ctx, withTx } from "../context";
import { alignmentTasks } from "../../db/schema";
import { parseInput } from "../../core/errors";
import { enqueueJob } from "../jobs";
import { countAlignmentRows, toAlignmentTask } from "./alignment";
import { resolveCriterion } from "./internal";
import { RunAlignmentInput, type AlignmentTask } from "./schemas";

export const ALIGNMENT_RUN_JOB = "alignment-run";

/**
 * Starts an alignment run in the background: the version (the latest when none is given) is
 * pinned now and judges every row of the set, a chunk per job step; follow it with
 * `getAlignmentTask`. When it is DONE its statistics are stored as the version's last run.
 */
export async function startAlignmentRun(ctx: Ctx, raw: RunAlignmentInput): Promise<AlignmentTask> {
  const input = parseInput(RunAlignmentInput, raw);
  const criterion = await resolveCriterion(ctx, input.version ? `${input.criterionId}@v${input.version}` : input.criterionId);
  const total = await countAlignmentRows(ctx, criterion.criterionId);
  const id = ctx.deps.ids("alignmentTask");
  const now = ctx.deps.clock();
  const [row] = await withTx(ctx, async (inTx, tx) => {
    const inserted = await tx
      .insert(alignmentTasks)
      .values({
        id,
        projectId: ctx.projectId,
        criterionId: criterion.criterionId,
        version: criterion.version,
        status: "QUEUED",
        total,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    await enqueueJob(inTx, { kind: ALIGNMENT_RUN_JOB, payload: { taskId: id }, maxAttempts: 10 });
    return inserted;
  });
  ctx.deps.jobs.nudge();
  return toAlignmentTask(row!);
}
