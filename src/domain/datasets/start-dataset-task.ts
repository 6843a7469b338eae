import { and, eq, sql } from "drizzle-orm";
import { dbOf, type Ctx, withTx } from "../context";
import { datasetEntries, datasetTasks, entryVerdicts } from "../../db/schema";
import { resolveModel } from "../projects";
import { resolveCriterion } from "../criteria";
import { enqueueJob } from "../jobs";
import { findDataset, toDatasetTask } from "./internal";
import type { DatasetTask } from "./schemas";

export const DATASET_TASK_JOB = "dataset-task";

/** Stores a judge or relabel task (input already parsed by the calling verb) and queues its job. */
export async function startDatasetTask(
  ctx: Ctx,
  input: { datasetId: string; criterionId: string; kind: "judge" | "relabel"; model?: string },
): Promise<DatasetTask> {
  const dataset = await findDataset(ctx, input.datasetId);
  const criterion = await resolveCriterion(ctx, input.criterionId);
  if (input.model) resolveModel(input.model, ctx.deps.config.modelPrefixes);
  const id = ctx.deps.ids("datasetTask");
  const now = ctx.deps.clock();
  // A relabel task handles every entry whose latest verdict is not PASS: the unjudged (and those
  // the judge could not decide) are judged first, then the failing ones relabelled and judged again.
  const total =
    input.kind === "judge"
      ? dataset.entryCount
      : dataset.entryCount -
        Number(
          (
            await dbOf(ctx)
              .select({ n: sql<number>`count(*)::int` })
              .from(entryVerdicts)
              .innerJoin(datasetEntries, eq(datasetEntries.id, entryVerdicts.entryId))
              .where(and(eq(datasetEntries.datasetId, dataset.id), eq(entryVerdicts.criterionId, criterion.criterionId), eq(entryVerdicts.judgement, "PASS")))
          )[0]!.n,
        );
  const [row] = await withTx(ctx, async (inTx, tx) => {
    const inserted = await tx
      .insert(datasetTasks)
      .values({
        id,
        projectId: ctx.projectId,
        datasetId: dataset.id,
        kind: input.kind,
        criterionId: criterion.criterionId,
        criterionVersion: criterion.version,
        model: input.model ?? null,
        status: "QUEUED",
        total,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    await enqueueJob(inTx, { kind: DATASET_TASK_JOB, payload: { taskId: id }, maxAttempts: 10 });
    return inserted;
  });
  ctx.deps.jobs.nudge();
  return toDatasetTask(row!);
}
