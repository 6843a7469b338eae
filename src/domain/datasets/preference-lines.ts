import { and, asc, eq, gt, type SQL, sql } from "drizzle-orm";
import { dbOf, type Ctx } from "../context";
import { datasetEntries } from "../../db/schema";
import { parseInput } from "../../core/errors";
import { assistantOutput, findDataset } from "./internal";
import { verdictCondition } from "./entry-queries";
import { DatasetIdInput } from "./schemas";

// Preference data: the pairs DPO trains on and the preference export writes.

/** Entries read at a time: each may hold 10 rejected outputs besides its own content, so few. */
const PAGE = 50;

/** One DPO line: the conversation, the entry's own answer preferred, one of its rejected outputs not. */
export type PreferenceLine = {
  input: { messages: unknown[]; tools?: unknown[] };
  preferred_output: unknown[];
  non_preferred_output: unknown[];
};

/**
 * The preference pairs of a dataset's entries (of one split), in OpenAI's (and Together's) DPO
 * format: for each entry ending in an assistant answer, one line per rejected output it holds.
 * Entries without one give none.
 */
export async function* preferenceLines(
  ctx: Ctx,
  datasetId: string,
  opts: { excludeFailing?: string[]; split?: "TRAIN" | "TEST" | null },
): AsyncGenerator<PreferenceLine> {
  let after: string | null = null;
  for (;;) {
    const where: SQL[] = [
      eq(datasetEntries.datasetId, datasetId),
      eq(datasetEntries.projectId, ctx.projectId),
      sql`jsonb_array_length(${datasetEntries.rejectedOutputs}) > 0`,
    ];
    if (opts.split) where.push(eq(datasetEntries.split, opts.split));
    if (after) where.push(gt(datasetEntries.id, after));
    for (const criterionId of opts.excludeFailing ?? []) where.push(sql`not ${verdictCondition({ criterionId, judgement: "FAIL" })}`);
    const page = await ctx.deps.database.db
      .select({ id: datasetEntries.id, messages: datasetEntries.messages, tools: datasetEntries.tools, rejected: datasetEntries.rejectedOutputs })
      .from(datasetEntries)
      .where(and(...where))
      .orderBy(asc(datasetEntries.id))
      .limit(PAGE);
    for (const e of page) {
      const last = e.messages.at(-1) as Record<string, unknown> | undefined;
      if (last?.role !== "assistant") continue;
      const input = { messages: e.messages.slice(0, -1), ...(e.tools?.length ? { tools: e.tools } : {}) };
      for (const r of e.rejected) yield { input, preferred_output: [assistantOutput(last)], non_preferred_output: [assistantOutput(r.message)] };
    }
    if (page.length < PAGE) break;
    after = page.at(-1)!.id;
  }
}

/** How many preference pairs the dataset's TRAIN entries hold (what a DPO fine-tune would train on). */
export async function countPreferencePairs(ctx: Ctx, raw: { datasetId: string }): Promise<{ pairs: number; entries: number }> {
  const { datasetId } = parseInput(DatasetIdInput, raw);
  await findDataset(ctx, datasetId);
  const [r] = await dbOf(ctx)
    .select({
      pairs: sql<number>`coalesce(sum(jsonb_array_length(${datasetEntries.rejectedOutputs})), 0)::int`,
      entries: sql<number>`count(*)::int`,
    })
    .from(datasetEntries)
    .where(
      and(
        eq(datasetEntries.datasetId, datasetId),
        eq(datasetEntries.projectId, ctx.projectId),
        eq(datasetEntries.split, "TRAIN"),
        sql`jsonb_array_length(${datasetEntries.rejectedOutputs}) > 0`,
      ),
    );
  return { pairs: Number(r?.pairs ?? 0), entries: Number(r?.entries ?? 0) };
}
