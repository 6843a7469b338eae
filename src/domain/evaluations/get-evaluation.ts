import type { Ctx } from "../context";
import { parseInput } from "../../core/errors";
import { countDoneResults, findEvaluationRow, toEvaluation } from "./internal";
import { EvaluationIdInput, type Evaluation } from "./schemas";

export async function getEvaluation(ctx: Ctx, raw: EvaluationIdInput): Promise<Evaluation> {
  const { id } = parseInput(EvaluationIdInput, raw);
  const r = await findEvaluationRow(ctx, id);
  return toEvaluation(r, (await countDoneResults(ctx, [r.id])).get(r.id) ?? 0);
}
