import type { Ctx } from "../../context";
import { parseInput } from "../../errors";
import { findEvaluationRow } from "./internal";
import { listEvaluationResults } from "./list-evaluation-results";
import { EvaluationIdInput, type EvaluationSummaryRow } from "./schemas";

/** Per model and criterion: pass rate and mean score of successful verdicts, tokens, cost, latency. */
export async function summarizeEvaluation(ctx: Ctx, raw: EvaluationIdInput): Promise<EvaluationSummaryRow[]> {
  const ev = await findEvaluationRow(ctx, parseInput(EvaluationIdInput, raw).id);
  const results = await listEvaluationResults(ctx, { id: ev.id });
  const out: EvaluationSummaryRow[] = [];
  for (const model of ev.models) {
    const mine = results.filter((r) => r.model === model);
    const latencies = mine.filter((r) => r.latencyMs !== null && !r.error).map((r) => r.latencyMs!);
    for (const { criterionId } of ev.criteria) {
      const verdicts = mine.map((r) => r.verdicts[criterionId]).filter((v) => v !== undefined);
      const ok = verdicts.filter((v) => v.status === "success") as { score: number }[];
      const passes = ok.filter((v) => v.score >= 1).length;
      out.push({
        model,
        criterionId,
        passRate: ok.length ? passes / ok.length : null,
        meanScore: ok.length ? ok.reduce((s, v) => s + v.score, 0) / ok.length : null,
        judged: ok.length,
        judgeErrors: verdicts.length - ok.length,
        outputErrors: mine.filter((r) => r.error).length,
        inputTokens: mine.reduce((s, r) => s + (r.inputTokens ?? 0), 0),
        outputTokens: mine.reduce((s, r) => s + (r.outputTokens ?? 0), 0),
        costUsd: mine.reduce((s, r) => s + (r.costUsd ?? 0), 0),
        meanLatencyMs: latencies.length ? latencies.reduce((s, x) => s + x, 0) / latencies.length : null,
      });
    }
  }
  return out;
}
