import { and, eq, inArray, sql } from "drizzle-orm";
import { dbOf, type Ctx } from "../context";
import { evaluationResults, evaluations } from "../../db/schema";
import { parseInput } from "../../core/errors";
import { checkPageSize } from "../../core/limits";
import { chargeAnswer, ROWS_INSTEAD } from "../answer-budget";
import { resultRows } from "../logs";
import { findEvaluationRow, RESULT_SIZE, toResult } from "./internal";
import { ListEvaluationResultsInput, type EvaluationResult } from "./schemas";

export type ResultPageArgs = { model?: string | null; first?: number | null; after?: string | null };

/** The cursor of a result: its entry and model (`<entryId>/<model>`; entry ids hold no slash). */
export const resultCursor = (r: { entryId: string; model: string }) => `${r.entryId}/${r.model}`;

/** A page of an evaluation's results, by entry then model (one model's alone with `model`). */
export async function listEvaluationResults(ctx: Ctx, raw: ListEvaluationResultsInput): Promise<EvaluationResult[]> {
  const input = parseInput(ListEvaluationResultsInput, raw);
  await findEvaluationRow(ctx, input.id);
  return (await loadEvaluationResultPages(ctx, [input.id], input)).get(input.id) ?? [];
}

/**
 * The same page of several evaluations of the project at once (a GraphQL list of evaluations
 * asking for their results): two queries whatever their number, the page's stored size charged to
 * the answer before its content is read.
 */
export async function loadEvaluationResultPages(ctx: Ctx, ids: readonly string[], page: ResultPageArgs): Promise<Map<string, EvaluationResult[]>> {
  const out = new Map<string, EvaluationResult[]>();
  if (!ids.length) return out;
  checkPageSize(page.first, ctx.deps.config.maxPageSize);
  const first = page.first ?? ctx.deps.config.maxPageSize;
  const slash = page.after ? page.after.indexOf("/") : -1;
  const after = page.after ? (slash < 0 ? [page.after, ""] : [page.after.slice(0, slash), page.after.slice(slash + 1)]) : null;
  // Each evaluation's page (of the project's evaluations only), numbered within it.
  const numbered = sql`
    select ${evaluationResults.evaluationId} as evaluation_id, ${evaluationResults.entryId} as entry_id, ${evaluationResults.model} as model,
      ${RESULT_SIZE} as size,
      row_number() over (partition by ${evaluationResults.evaluationId} order by ${evaluationResults.entryId}, ${evaluationResults.model}) as n
    from ${evaluationResults} join ${evaluations} e on e.id = ${evaluationResults.evaluationId} and e.project_id = ${ctx.projectId}
    where ${and(
      inArray(evaluationResults.evaluationId, [...ids]),
      page.model ? eq(evaluationResults.model, page.model) : undefined,
      after ? sql`(${evaluationResults.entryId}, ${evaluationResults.model}) > (${after[0]}, ${after[1]})` : undefined,
    )}`;
  const [sized] = resultRows<{ bytes: number | null; n: number }>(
    await dbOf(ctx).execute(sql`select sum(size)::float8 as bytes, count(*)::int as n from (${numbered}) x where n <= ${first}`),
  );
  if (!Number(sized?.n ?? 0)) return out;
  chargeAnswer(ctx, Number(sized?.bytes ?? 0), ROWS_INSTEAD);
  const rows = await dbOf(ctx)
    .select()
    .from(evaluationResults)
    .where(
      sql`(${evaluationResults.evaluationId}, ${evaluationResults.entryId}, ${evaluationResults.model}) in (select evaluation_id, entry_id, model from (${numbered}) x where n <= ${first})`,
    )
    .orderBy(evaluationResults.evaluationId, evaluationResults.entryId, evaluationResults.model);
  for (const r of rows) {
    const list = out.get(r.evaluationId) ?? [];
    list.push(toResult(r));
    out.set(r.evaluationId, list);
  }
  return out;
}

/**
 * Every result of an evaluation (of the models given, else all), charged to the answer whole before
 * it is read: for the verbs that compare them all (head to head), not a list to page through.
 */
export async function allEvaluationResults(ctx: Ctx, id: string, models?: string[]): Promise<EvaluationResult[]> {
  const where = and(eq(evaluationResults.evaluationId, id), models ? inArray(evaluationResults.model, models) : undefined);
  if (ctx.answer) {
    const [sized] = await dbOf(ctx)
      .select({ bytes: sql<number>`coalesce(sum(${RESULT_SIZE}), 0)` })
      .from(evaluationResults)
      .where(where);
    chargeAnswer(ctx, Number(sized?.bytes ?? 0), ROWS_INSTEAD);
  }
  const rows = await dbOf(ctx).select().from(evaluationResults).where(where).orderBy(evaluationResults.entryId, evaluationResults.model);
  return rows.map(toResult);
}
