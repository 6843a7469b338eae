import { and, asc, eq, gt, sql, type SQL } from "drizzle-orm";
import type { Ctx } from "../context";
import { datasetEntries } from "../../db/schema";
import { verdictCondition } from "./entry-queries";

/**
 * The training examples of a dataset: its TRAIN entries (or its held-out TEST entries, to evaluate on), without those whose
 * latest verdict of an excluded criterion is FAIL, in the chat fine-tuning format, a page at a time.
 */
export async function* trainingEntries(
  ctx: Ctx,
  datasetId: string,
  excludeFailing: string[],
  split: "TRAIN" | "TEST" = "TRAIN",
): AsyncGenerator<{ messages: unknown[]; tools?: unknown[] }> {
  let after: string | null = null;
  for (;;) {
    const where: SQL[] = [eq(datasetEntries.datasetId, datasetId), eq(datasetEntries.projectId, ctx.projectId), eq(datasetEntries.split, split)];
    if (after) where.push(gt(datasetEntries.id, after));
    for (const criterionId of excludeFailing) where.push(sql`not ${verdictCondition({ criterionId, judgement: "FAIL" })}`);
    const page = await ctx.deps.database.db
      .select({ id: datasetEntries.id, messages: datasetEntries.messages, tools: datasetEntries.tools })
      .from(datasetEntries)
      .where(and(...where))
      .orderBy(asc(datasetEntries.id))
      .limit(1000);
    for (const e of page) yield e.tools?.length ? { messages: e.messages, tools: e.tools } : { messages: e.messages };
    if (page.length < 1000) break;
    after = page.at(-1)!.id;
  }
}
