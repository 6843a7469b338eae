import { and, asc, eq, gt, inArray, sql } from "drizzle-orm";
import { dbOf, type Ctx } from "../context";
import { datasetEntries, evaluationResults } from "../../db/schema";
import { parseInput } from "../../core/errors";
import { chargeAnswer, ROWS_INSTEAD } from "../answer-budget";
import { decodeCursor, ENTRY_SIZE, encodeCursor } from "../datasets";
import { splitEntry } from "../chat";
import { findEvaluationRow, RESULT_SIZE, toResult } from "./internal";
import { ListEvaluationEntriesInput, type EvaluationEntry } from "./schemas";

/**
 * Results grouped by dataset entry, in entry order, a page of entries at a time (20 by default),
 * each with the entry's input and reference answer so every model's output can be read side by
 * side with what was asked.
 */
export async function listEvaluationEntries(
  ctx: Ctx,
  raw: ListEvaluationEntriesInput,
): Promise<{ entries: EvaluationEntry[]; hasNextPage: boolean; endCursor: string | null }> {
  const input = parseInput(ListEvaluationEntriesInput, raw);
  const ev = await findEvaluationRow(ctx, input.id);
  const first = input.first ?? 20;
  const db = dbOf(ctx);
  const after = input.after ? decodeCursor(input.after) : null;
  const entries: EvaluationEntry[] = [];
  let cursor = after;
  let more = true;
  // With onlyDifferent, pages of entries are read until enough differ (a bounded number of reads).
  for (let reads = 0; entries.length < first && more && reads < 20; reads++) {
    const ids = await db
      .selectDistinct({ entryId: evaluationResults.entryId })
      .from(evaluationResults)
      .where(and(eq(evaluationResults.evaluationId, ev.id), cursor ? gt(evaluationResults.entryId, cursor) : undefined))
      .orderBy(asc(evaluationResults.entryId))
      .limit(first + 1);
    more = ids.length > first;
    const page = ids.slice(0, first).map((r) => r.entryId);
    if (!page.length) break;
    if (ctx.answer) {
      // The page's outputs and the entries' messages, sized before they are read.
      const [outputs, asked] = await Promise.all([
        db
          .select({ bytes: sql<number>`coalesce(sum(${RESULT_SIZE}), 0)` })
          .from(evaluationResults)
          .where(and(eq(evaluationResults.evaluationId, ev.id), inArray(evaluationResults.entryId, page))),
        db
          .select({ bytes: sql<number>`coalesce(sum(${ENTRY_SIZE}), 0)` })
          .from(datasetEntries)
          .where(and(eq(datasetEntries.projectId, ctx.projectId), inArray(datasetEntries.id, page))),
      ]);
      chargeAnswer(ctx, Number(outputs[0]?.bytes ?? 0) + Number(asked[0]?.bytes ?? 0), ROWS_INSTEAD);
    }
    const [results, sources] = await Promise.all([
      db
        .select()
        .from(evaluationResults)
        .where(and(eq(evaluationResults.evaluationId, ev.id), inArray(evaluationResults.entryId, page)))
        .orderBy(asc(evaluationResults.entryId), asc(evaluationResults.model)),
      db
        .select({ id: datasetEntries.id, messages: datasetEntries.messages })
        .from(datasetEntries)
        .where(and(eq(datasetEntries.projectId, ctx.projectId), inArray(datasetEntries.id, page))),
    ]);
    const messagesOf = new Map(sources.map((s) => [s.id, s.messages]));
    for (const entryId of page) {
      cursor = entryId;
      const mine = results.filter((r) => r.entryId === entryId).map(toResult);
      if (input.onlyDifferent && !differs(mine)) continue;
      const messages = messagesOf.get(entryId);
      const { input: asked, reference } = messages ? splitEntry(messages) : { input: null, reference: null };
      entries.push({ entryId, input: asked, reference, results: mine.sort((a, b) => ev.models.indexOf(a.model) - ev.models.indexOf(b.model)) });
      if (entries.length === first) {
        more = more || page.indexOf(entryId) < page.length - 1;
        break;
      }
    }
  }
  return { entries, hasNextPage: more, endCursor: cursor && more ? encodeCursor(cursor) : null };
}

/** Some model failed to answer, some verdict is an error, or the models' pass/fail differ on a criterion. */
function differs(results: EvaluationEntry["results"]): boolean {
  if (results.some((r) => r.error || Object.values(r.verdicts).some((v) => v.status === "error"))) return true;
  const criteria = new Set(results.flatMap((r) => Object.keys(r.verdicts)));
  for (const c of criteria) {
    const scores = new Set(results.map((r) => (r.verdicts[c]?.status === "success" ? (r.verdicts[c] as { score: number }).score : null)));
    if (scores.size > 1) return true;
  }
  return false;
}
