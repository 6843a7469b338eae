import { eq } from "drizzle-orm";
import { dbOf, type Ctx } from "../context";
import { evaluations } from "../../db/schema";
import { parseInput } from "../../core/errors";
import { getEvaluation } from "./get-evaluation";
import { findEvaluationRow } from "./internal";
import { EvaluationIdInput, type Evaluation } from "./schemas";

/** Stops an evaluation: no new pair starts; finished results stay. */
export async function cancelEvaluation(ctx: Ctx, raw: EvaluationIdInput): Promise<Evaluation> {
  const input = parseInput(EvaluationIdInput, raw);
  const r = await findEvaluationRow(ctx, input.id);
  if (r.status === "QUEUED" || r.status === "RUNNING") {
    await dbOf(ctx).update(evaluations).set({ status: "CANCELLED", updatedAt: ctx.deps.clock() }).where(eq(evaluations.id, r.id));
  }
  return getEvaluation(ctx, input);
}
