import { and, desc, eq } from "drizzle-orm";
import { dbOf, type Ctx } from "../context";
import { evaluations } from "../../db/schema";
import { type ListPageInput, listPage } from "../list-page";
import { countDoneResults, toEvaluation } from "./internal";
import type { Evaluation } from "./schemas";

/** A page of the project's evaluations, newest first (list-page.ts). */
export async function listEvaluations(ctx: Ctx, raw?: ListPageInput): Promise<Evaluation[]> {
  const page = listPage(ctx, raw, evaluations.id);
  const rows = await dbOf(ctx)
    .select()
    .from(evaluations)
    .where(and(eq(evaluations.projectId, ctx.projectId), page.after))
    .orderBy(desc(evaluations.id))
    .limit(page.limit);
  const done = await countDoneResults(
    ctx,
    rows.map((r) => r.id),
  );
  return rows.map((r) => toEvaluation(r, done.get(r.id) ?? 0));
}
