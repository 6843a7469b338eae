import { and, eq, sql } from "drizzle-orm";
import { dbOf, type Ctx } from "../../context";
import { evaluationResults } from "../../db/schema";
import { parseInput } from "../../errors";
import { chargeAnswer, ROWS_INSTEAD } from "../answer-budget";
import { findEvaluationRow, RESULT_SIZE, toResult } from "./internal";
import { ListEvaluationResultsInput, type EvaluationResult } from "./schemas";

export async function listEvaluationResults(ctx: Ctx, raw: ListEvaluationResultsInput): Promise<EvaluationResult[]> {
  const input = parseInput(ListEvaluationResultsInput, raw);
  await findEvaluationRow(ctx, input.id);
  const where = [eq(evaluationResults.evaluationId, input.id)];
  if (input.model) where.push(eq(evaluationResults.model, input.model));
  if (ctx.answer) {
    const [sized] = await dbOf(ctx)
      .select({ bytes: sql<number>`coalesce(sum(${RESULT_SIZE}), 0)` })
      .from(evaluationResults)
      .where(and(...where));
    chargeAnswer(ctx, Number(sized?.bytes ?? 0), ROWS_INSTEAD);
  }
  const rows = await dbOf(ctx)
    .select()
    .from(evaluationResults)
    .where(and(...where))
    .orderBy(evaluationResults.entryId, evaluationResults.model);
  return rows.map(toResult);
}
