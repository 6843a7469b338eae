import type { Ctx } from "../context";
import { DomainError, parseInput } from "../../core/errors";
import { findEvaluationRow } from "./internal";
import { allEvaluationResults } from "./list-evaluation-results";
import { HeadToHeadInput, type EvaluationResult, type HeadToHead } from "./schemas";

const score = (r: EvaluationResult | undefined) => Object.values(r?.verdicts ?? {}).reduce((s, v) => s + (v.status === "success" ? v.score : 0), 0);

/** Two models of an evaluation side by side: the entries where one passes what the other fails. */
export async function compareEvaluationModels(ctx: Ctx, raw: HeadToHeadInput): Promise<HeadToHead> {
  const input = parseInput(HeadToHeadInput, raw);
  const ev = await findEvaluationRow(ctx, input.id);
  for (const m of [input.modelA, input.modelB]) {
    if (!ev.models.includes(m))
      throw new DomainError("VALIDATION", `Model ${m} is not part of evaluation ${ev.id}`, { issues: [{ message: `unknown model ${m}` }] });
  }
  const results = await allEvaluationResults(ctx, ev.id, [input.modelA, input.modelB]);
  const byEntry = new Map<string, { a?: EvaluationResult; b?: EvaluationResult }>();
  for (const r of results) {
    const slot = byEntry.get(r.entryId) ?? {};
    if (r.model === input.modelA) slot.a = r;
    if (r.model === input.modelB) slot.b = r;
    byEntry.set(r.entryId, slot);
  }
  const out: HeadToHead = { modelA: input.modelA, modelB: input.modelB, aWins: 0, bWins: 0, ties: 0, entries: [] };
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
