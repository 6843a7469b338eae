import type { evaluationResults, evaluations } from "../../db/schema";
import type { Evaluation, EvaluationResult, Verdicts } from "./schemas";

export function toEvaluation(r: typeof evaluations.$inferSelect, done: number): Evaluation {
  return {
    id: r.id,
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

/** The input of a test entry (its messages without the final assistant turn) and that turn. */
export function splitEntry(messages: unknown[]): { input: unknown[]; reference: Record<string, unknown> | null } {
  const last = messages.at(-1) as Record<string, unknown> | undefined;
  if (last?.role === "assistant") return { input: messages.slice(0, -1), reference: last };
  return { input: messages, reference: null };
}
