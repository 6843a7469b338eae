import { and, eq, inArray } from "drizzle-orm";
import pLimit from "p-limit";
import { dbOf, type Ctx } from "../../context";
import { alignmentRows, alignmentRuns, alignmentVerdicts } from "../../db/schema";
import { parseInput } from "../../errors";
import { computeAlignmentStats } from "./compute-alignment-stats";
import { resolveCriterion } from "./internal";
import { judgeOutput } from "./judge-output";
import { RunAlignmentInput, type AlignmentStats } from "./schemas";

/**
 * Runs one criterion version (the latest when none is given) over the whole alignment set, a few
 * judge calls at a time (HONE_JUDGE_CONCURRENCY); stores every verdict and the statistics of
 * the version, replacing those of an earlier run of the same version.
 */
export async function runAlignment(ctx: Ctx, raw: RunAlignmentInput): Promise<AlignmentStats> {
  const input = parseInput(RunAlignmentInput, raw);
  const criterion = await resolveCriterion(ctx, input.version ? `${input.criterionId}@v${input.version}` : input.criterionId);
  const rows = await dbOf(ctx).select().from(alignmentRows).where(eq(alignmentRows.criterionId, criterion.criterionId));
  const limit = pLimit(ctx.deps.config.judgeConcurrency);
  const verdicts = await Promise.all(
    rows.map((row) =>
      limit(async () => {
        try {
          const v = await judgeOutput(ctx, criterion, { messages: row.messages, tools: row.tools, tool_choice: row.toolChoice, output: row.output });
          return { rowId: row.id, verdict: v.judgement, explanation: v.explanation, error: null };
        } catch (err) {
          return { rowId: row.id, verdict: null, explanation: null, error: err instanceof Error ? err.message : String(err) };
        }
      }),
    ),
  );
  const stats = computeAlignmentStats(
    criterion.version,
    rows.map((r, i) => ({ human: r.judgement, judge: verdicts[i]!.verdict })),
    verdicts.filter((v) => v.error).length,
  );
  const now = ctx.deps.clock();
  await dbOf(ctx).transaction(async (tx) => {
    if (rows.length) {
      await tx.delete(alignmentVerdicts).where(
        and(
          inArray(
            alignmentVerdicts.rowId,
            rows.map((r) => r.id),
          ),
          eq(alignmentVerdicts.version, criterion.version),
        ),
      );
      for (let i = 0; i < verdicts.length; i += 500) {
        await tx.insert(alignmentVerdicts).values(verdicts.slice(i, i + 500).map((v) => ({ ...v, version: criterion.version, createdAt: now })));
      }
    }
    await tx
      .insert(alignmentRuns)
      .values({ criterionId: criterion.criterionId, version: criterion.version, stats, createdAt: now })
      .onConflictDoUpdate({ target: [alignmentRuns.criterionId, alignmentRuns.version], set: { stats, createdAt: now } });
  });
  return stats;
}
