import { and, eq, sql } from "drizzle-orm";
import { dbOf, type Ctx, withTx } from "../context";
import { datasetEntries, evaluations } from "../../db/schema";
import { DomainError, parseInput } from "../../core/errors";
import { requireKeyMayCall, resolveModel } from "../projects";
import { resolveCriterion } from "../criteria";
import { findDataset } from "../datasets";
import { enqueueJob } from "../jobs";
import { toEvaluation } from "./internal";
import { CreateEvaluationInput, DATASET_MODEL, type Evaluation } from "./schemas";

export const EVALUATION_JOB = "evaluation";

/** Creates an evaluation of models on a dataset's TEST entries; criterion versions are pinned now. */
export async function createEvaluation(ctx: Ctx, raw: CreateEvaluationInput): Promise<Evaluation> {
  const input = parseInput(CreateEvaluationInput, raw);
  requireKeyMayCall(ctx, input.models);
  const dataset = await findDataset(ctx, input.datasetId);
  const models = [...new Set(input.models)];
  for (const m of models) if (m !== DATASET_MODEL) resolveModel(m, ctx.deps.config.modelPrefixes);
  const criteria: { criterionId: string; version: number }[] = [];
  for (const ref of input.criterionIds) {
    const c = await resolveCriterion(ctx, ref);
    criteria.push({ criterionId: c.criterionId, version: c.version });
  }
  const [{ n }] = (await dbOf(ctx)
    .select({ n: sql<number>`count(*)::int` })
    .from(datasetEntries)
    .where(and(eq(datasetEntries.datasetId, dataset.id), eq(datasetEntries.split, "TEST")))) as [{ n: number }];
  if (Number(n) === 0) {
    throw new DomainError("VALIDATION", `Dataset ${dataset.id} has no TEST entries to evaluate on`, {
      issues: [{ message: "no TEST entries", path: ["datasetId"] }],
    });
  }
  const id = ctx.deps.ids("evaluation");
  const now = ctx.deps.clock();
  const [row] = await withTx(ctx, async (inTx, tx) => {
    const inserted = await tx
      .insert(evaluations)
      .values({
        id,
        projectId: ctx.projectId,
        datasetId: dataset.id,
        name: input.name ?? `${models.join(", ")} on ${dataset.name}`.slice(0, 200),
        models,
        criteria,
        status: "QUEUED",
        total: Number(n) * models.length,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    await enqueueJob(inTx, { kind: EVALUATION_JOB, payload: { evaluationId: id }, maxAttempts: 10 });
    return inserted;
  });
  ctx.deps.jobs.nudge();
  return toEvaluation(row!, 0);
}
