import { and, desc, eq, inArray, sql } from "drizzle-orm";
import { z } from "zod";
import { dbOf, type Ctx } from "../../context";
import { evaluationResults, evaluations } from "../../db/schema";
import { DomainError, notFound, parseInput } from "../../errors";
import { toEvaluation, toResult } from "./internal";
import type { Evaluation, EvaluationResult, EvaluationSummaryRow, HeadToHead } from "./schemas";

async function row(ctx: Ctx, id: string) {
  const [r] = await dbOf(ctx).select().from(evaluations).where(and(eq(evaluations.id, id), eq(evaluations.projectId, ctx.projectId)));
  if (!r) throw notFound("Evaluation", id);
  return r;
}

async function doneCounts(ctx: Ctx, ids: string[]): Promise<Map<string, number>> {
  if (!ids.length) return new Map();
  const rows = await dbOf(ctx)
    .select({ id: evaluationResults.evaluationId, n: sql<number>`count(*)::int` })
    .from(evaluationResults)
    .where(inArray(evaluationResults.evaluationId, ids))
    .groupBy(evaluationResults.evaluationId);
  return new Map(rows.map((r) => [r.id, Number(r.n)]));
}

export async function getEvaluation(ctx: Ctx, raw: { id: string }): Promise<Evaluation> {
  const r = await row(ctx, raw.id);
  return toEvaluation(r, (await doneCounts(ctx, [r.id])).get(r.id) ?? 0);
}

export async function listEvaluations(ctx: Ctx): Promise<Evaluation[]> {
  const rows = await dbOf(ctx).select().from(evaluations).where(eq(evaluations.projectId, ctx.projectId)).orderBy(desc(evaluations.id));
  const done = await doneCounts(ctx, rows.map((r) => r.id));
  return rows.map((r) => toEvaluation(r, done.get(r.id) ?? 0));
}

/** Stops an evaluation: no new pair starts; finished results stay. */
export async function cancelEvaluation(ctx: Ctx, raw: { id: string }): Promise<Evaluation> {
  const r = await row(ctx, raw.id);
  if (r.status === "QUEUED" || r.status === "RUNNING") {
    await dbOf(ctx).update(evaluations).set({ status: "CANCELLED", updatedAt: ctx.deps.clock() }).where(eq(evaluations.id, r.id));
  }
  return getEvaluation(ctx, raw);
}

export const ListResultsInput = z.object({ id: z.string().min(1), model: z.string().nullish() });

export async function listEvaluationResults(ctx: Ctx, raw: { id: string; model?: string | null }): Promise<EvaluationResult[]> {
  const input = parseInput(ListResultsInput, raw);
  await row(ctx, input.id);
  const where = [eq(evaluationResults.evaluationId, input.id)];
  if (input.model) where.push(eq(evaluationResults.model, input.model));
  const rows = await dbOf(ctx).select().from(evaluationResults).where(and(...where)).orderBy(evaluationResults.entryId, evaluationResults.model);
  return rows.map(toResult);
}

/** Per model and criterion: pass rate and mean score of successful verdicts, tokens, cost, latency. */
export async function evaluationSummary(ctx: Ctx, raw: { id: string }): Promise<EvaluationSummaryRow[]> {
  const ev = await row(ctx, raw.id);
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

const score = (r: EvaluationResult | undefined) => Object.values(r?.verdicts ?? {}).reduce((s, v) => s + (v.status === "success" ? v.score : 0), 0);

/** Two models of an evaluation side by side: the entries where one passes what the other fails. */
export async function headToHead(ctx: Ctx, raw: { id: string; modelA: string; modelB: string }): Promise<HeadToHead> {
  const ev = await row(ctx, raw.id);
  for (const m of [raw.modelA, raw.modelB]) {
    if (!ev.models.includes(m)) throw new DomainError("VALIDATION", `Model ${m} is not part of evaluation ${ev.id}`, { issues: [{ message: `unknown model ${m}` }] });
  }
  const results = await listEvaluationResults(ctx, { id: ev.id });
  const byEntry = new Map<string, { a?: EvaluationResult; b?: EvaluationResult }>();
  for (const r of results) {
    const slot = byEntry.get(r.entryId) ?? {};
    if (r.model === raw.modelA) slot.a = r;
    if (r.model === raw.modelB) slot.b = r;
    byEntry.set(r.entryId, slot);
  }
  const out: HeadToHead = { modelA: raw.modelA, modelB: raw.modelB, aWins: 0, bWins: 0, ties: 0, entries: [] };
  for (const [entryId, { a, b }] of byEntry) {
    if (!a || !b) continue;
    const scoreA = score(a);
    const scoreB = score(b);
    const differs = ev.criteria.some(({ criterionId }) => {
      const va = a.verdicts[criterionId];
      const vb = b.verdicts[criterionId];
      return va?.status === "success" && vb?.status === "success" && va.score !== vb.score;
    });
    if (scoreA > scoreB) out.aWins++;
    else if (scoreB > scoreA) out.bWins++;
    else out.ties++;
    if (differs) out.entries.push({ entryId, a, b, scoreA, scoreB });
  }
  return out;
}
