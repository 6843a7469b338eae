import { and, eq, inArray, sql } from "drizzle-orm";
import { dbOf, type Ctx } from "../context";
import { evaluationResults, evaluations } from "../../db/schema";
import { notFound } from "../../core/errors";
import type { Evaluation, EvaluationResult, Verdicts } from "./schemas";

export function toEvaluation(r: typeof evaluations.$inferSelect, done: number): Evaluation {
  return {
    id: r.id,
    name: r.name ?? `${r.models.join(", ")}`,
    datasetId: r.datasetId,
    models: r.models,
    criteria: r.criteria,
    status: r.status,
    progress: { done, total: r.total },
    errorMessage: r.errorMessage,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

export function toResult(r: typeof evaluationResults.$inferSelect): EvaluationResult {
  return {
    entryId: r.entryId,
    model: r.model,
    output: r.output,
    error: r.error,
    inputTokens: r.inputTokens,
    outputTokens: r.outputTokens,
    costUsd: r.costUsd,
    latencyMs: r.latencyMs,
    verdicts: r.verdicts as Verdicts,
  };
}

/** The project's evaluation row, or NOT_FOUND. */
export async function findEvaluationRow(ctx: Ctx, id: string): Promise<typeof evaluations.$inferSelect> {
  const [r] = await dbOf(ctx)
    .select()
    .from(evaluations)
    .where(and(eq(evaluations.id, id), eq(evaluations.projectId, ctx.projectId)));
  if (!r) throw notFound("Evaluation", id);
  return r;
}

/** Stored results per evaluation, for the progress of several in one query. */
export async function countDoneResults(ctx: Ctx, ids: string[]): Promise<Map<string, number>> {
  if (!ids.length) return new Map();
  const rows = await dbOf(ctx)
    .select({ id: evaluationResults.evaluationId, n: sql<number>`count(*)::int` })
    .from(evaluationResults)
    .where(inArray(evaluationResults.evaluationId, ids))
    .groupBy(evaluationResults.evaluationId);
  return new Map(rows.map((r) => [r.id, Number(r.n)]));
}

/** A result's stored size (kept by a trigger on every write; measured for older rows), what reading it costs an answer. */
export const RESULT_SIZE = sql<number>`coalesce(${evaluationResults.bytes}, coalesce(octet_length(${evaluationResults.output}::text), 0)
  + octet_length(${evaluationResults.verdicts}::text) + coalesce(octet_length(${evaluationResults.error}), 0))`;
