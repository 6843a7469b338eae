import { asc, inArray } from "drizzle-orm";
import { dbOf, type Ctx } from "../context";
import { evaluationResults, evaluations } from "../../db/schema";
import { parseInput } from "../../core/errors";
import { findEvaluationRow } from "./internal";
import { EvaluationIdInput, type EvaluationSummaryRow } from "./schemas";

/** Per model and criterion: pass rate and mean score of successful verdicts, tokens, cost, latency. */
export async function summarizeEvaluation(ctx: Ctx, raw: EvaluationIdInput): Promise<EvaluationSummaryRow[]> {
  const ev = await findEvaluationRow(ctx, parseInput(EvaluationIdInput, raw).id);
  return (await loadEvaluationSummaries(ctx, [ev.id])).get(ev.id) ?? [];
}

/**
 * The summaries of several evaluations of the project at once (a GraphQL list of evaluations asking
 * for theirs): two queries, reading the results' figures and verdicts, never their outputs.
 */
export async function loadEvaluationSummaries(ctx: Ctx, ids: readonly string[]): Promise<Map<string, EvaluationSummaryRow[]>> {
  const out = new Map<string, EvaluationSummaryRow[]>();
  if (!ids.length) return out;
  const db = dbOf(ctx);
  const evs = (
    await db
      .select()
      .from(evaluations)
      .where(inArray(evaluations.id, [...ids]))
  ).filter((e) => e.projectId === ctx.projectId);
  if (!evs.length) return out;
  const results = await db
    .select({
      evaluationId: evaluationResults.evaluationId,
      model: evaluationResults.model,
      error: evaluationResults.error,
      latencyMs: evaluationResults.latencyMs,
      inputTokens: evaluationResults.inputTokens,
      outputTokens: evaluationResults.outputTokens,
      costUsd: evaluationResults.costUsd,
      verdicts: evaluationResults.verdicts,
    })
    .from(evaluationResults)
    .where(
      inArray(
        evaluationResults.evaluationId,
        evs.map((e) => e.id),
      ),
    )
    .orderBy(asc(evaluationResults.evaluationId));
  for (const ev of evs) {
    const rows: EvaluationSummaryRow[] = [];
    const own = results.filter((r) => r.evaluationId === ev.id);
    for (const model of ev.models) {
      const mine = own.filter((r) => r.model === model);
      const latencies = mine.filter((r) => r.latencyMs !== null && !r.error).map((r) => r.latencyMs!);
      // An answer without a price is unknown, not free: counted apart, never summed as $0.
      const answered = mine.filter((r) => !r.error);
      const priced = answered.filter((r) => r.costUsd !== null);
      for (const { criterionId } of ev.criteria) {
        const verdicts = mine.map((r) => (r.verdicts as Record<string, { status: string; score?: number }>)[criterionId]).filter((v) => v !== undefined);
        const ok = verdicts.filter((v) => v.status === "success") as { score: number }[];
        const passes = ok.filter((v) => v.score >= 1).length;
        rows.push({
          model,
          criterionId,
          passRate: ok.length ? passes / ok.length : null,
          meanScore: ok.length ? ok.reduce((s, v) => s + v.score, 0) / ok.length : null,
          judged: ok.length,
          judgeErrors: verdicts.length - ok.length,
          outputErrors: mine.filter((r) => r.error).length,
          inputTokens: mine.reduce((s, r) => s + (r.inputTokens ?? 0), 0),
          outputTokens: mine.reduce((s, r) => s + (r.outputTokens ?? 0), 0),
          costUsd: priced.length ? priced.reduce((s, r) => s + r.costUsd!, 0) : null,
          unpricedCalls: answered.length - priced.length,
          meanLatencyMs: latencies.length ? latencies.reduce((s, x) => s + x, 0) / latencies.length : null,
        });
      }
    }
    out.set(ev.id, rows);
  }
  return out;
}
