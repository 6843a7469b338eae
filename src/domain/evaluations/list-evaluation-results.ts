import { and, eq } from "drizzle-orm";
import { dbOf, type Ctx } from "../../context";
import { evaluationResults } from "../../db/schema";
import { parseInput } from "../../errors";
import { findEvaluationRow, toResult } from "./internal";
import { ListEvaluationResultsInput, type EvaluationResult } from "./schemas";

export async function listEvaluationResults(ctx: Ctx, raw: ListEvaluationResultsInput): Promise<EvaluationResult[]> {
  const input = parseInput(ListEvaluationResultsInput, raw);
  await findEvaluationRow(ctx, input.id);
  const where = [eq(evaluationResults.evaluationId, input.id)];
  if (input.model) where.push(eq(evaluationResults.model, input.model));
  const rows = await dbOf(ctx)
    .select()
    .from(evaluationResults)
    .where(and(...where))
    .orderBy(evaluationResults.entryId, evaluationResults.model);
  return rows.map(toResult);
}
