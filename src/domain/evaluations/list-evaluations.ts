import { desc, eq } from "drizzle-orm";
import { dbOf, type Ctx } from "../../context";
import { evaluations } from "../../db/schema";
import { countDoneResults, toEvaluation } from "./internal";
import type { Evaluation } from "./schemas";

export async function listEvaluations(ctx: Ctx): Promise<Evaluation[]> {
  const rows = await dbOf(ctx).select().from(evaluations).where(eq(evaluations.projectId, ctx.projectId)).orderBy(desc(evaluations.id));
  const done = await countDoneResults(
    ctx,
    rows.map((r) => r.id),
  );
  return rows.map((r) => toEvaluation(r, done.get(r.id) ?? 0));
}
