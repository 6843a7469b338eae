import { and, eq, sql } from "drizzle-orm";
import pLimit from "p-limit";
import { dbOf, type Ctx } from "../context";
import { alignmentRows, alignmentRuns, type alignmentTasks, alignmentVerdicts, criteria } from "../../db/schema";
import { DomainError, toDomainError } from "../../core/errors";
import { MAX_ALIGNMENT_ROWS } from "../../core/limits";
import { computeAlignmentStats } from "./compute-alignment-stats";
import { judgeOutput } from "./judge-output";
import type { AlignmentStats, AlignmentTask, ResolvedCriterion } from "./schemas";

type Row = typeof alignmentRows.$inferSelect;

/**
 * Judges these rows with one criterion version, a few judge calls at a time
 * (HONE_JUDGE_CONCURRENCY), and stores each verdict (a failed judge call is stored as an error),
 * replacing the version's earlier verdict on the row. Past `signal` nothing new starts and nothing
 * cut off is stored, so the row stays to be judged.
 */
export async function judgeAlignmentRows(ctx: Ctx, criterion: ResolvedCriterion, rows: Row[], signal?: AbortSignal): Promise<void> {
  const limit = pLimit(ctx.deps.config.judgeConcurrency);
  await Promise.all(
    rows.map((row) =>
      limit(async () => {
        if (signal?.aborted) return;
        let verdict: { verdict: "PASS" | "FAIL" | null; explanation: string | null; error: string | null };
        try {
          const v = await judgeOutput(
            { ...ctx, internal: "alignment" },
            criterion,
            { messages: row.messages, tools: row.tools, tool_choice: row.toolChoice, output: row.output },
            signal,
          );
          verdict = { verdict: v.judgement, explanation: v.explanation, error: null };
        } catch (err) {
          if (signal?.aborted) return;
          verdict = { verdict: null, explanation: null, error: toDomainError(err).message };
        }
        const now = ctx.deps.clock();
        await dbOf(ctx)
          .insert(alignmentVerdicts)
          .values({ rowId: row.id, version: criterion.version, ...verdict, createdAt: now })
          .onConflictDoUpdate({ target: [alignmentVerdicts.rowId, alignmentVerdicts.version], set: { ...verdict, createdAt: now } });
      }),
    ),
  );
}

/**
 * The statistics of a version from what is stored: each row's human label against the version's
 * verdict on it. Kept as the version's last run (replacing an earlier one) and returned.
 */
export async function storeAlignmentStats(ctx: Ctx, criterion: ResolvedCriterion): Promise<AlignmentStats> {
  const pairs = await dbOf(ctx)
    .select({ human: alignmentRows.judgement, judge: alignmentVerdicts.verdict, error: alignmentVerdicts.error })
    .from(alignmentRows)
    .innerJoin(alignmentVerdicts, and(eq(alignmentVerdicts.rowId, alignmentRows.id), eq(alignmentVerdicts.version, criterion.version)))
    .where(eq(alignmentRows.criterionId, criterion.criterionId));
  const stats = computeAlignmentStats(criterion.version, pairs, pairs.filter((p) => p.error !== null).length);
  const now = ctx.deps.clock();
  await dbOf(ctx)
    .insert(alignmentRuns)
    .values({ criterionId: criterion.criterionId, version: criterion.version, stats, createdAt: now })
    .onConflictDoUpdate({ target: [alignmentRuns.criterionId, alignmentRuns.version], set: { stats, createdAt: now } });
  return stats;
}

/** Rows of the criterion's set: how many there are now. */
export async function countAlignmentRows(ctx: Ctx, criterionId: string): Promise<number> {
  const [r] = await dbOf(ctx).select({ n: sql<number>`count(*)::int` }).from(alignmentRows).where(eq(alignmentRows.criterionId, criterionId));
  return Number(r?.n ?? 0);
}

/**
 * Stores new rows of a criterion's set, all or none. Every run judges the whole set, so it may hold
 * at most MAX_ALIGNMENT_ROWS rows: the criterion's row is locked while the set is counted and
 * filled, so two imports at once cannot both squeeze past the cap.
 */
export async function insertAlignmentRows(ctx: Ctx, criterionId: string, rows: (typeof alignmentRows.$inferInsert)[]): Promise<void> {
  await dbOf(ctx).transaction(async (tx) => {
    await tx.select({ id: criteria.id }).from(criteria).where(eq(criteria.id, criterionId)).for("update");
    const [r] = await tx.select({ n: sql<number>`count(*)::int` }).from(alignmentRows).where(eq(alignmentRows.criterionId, criterionId));
    const has = Number(r?.n ?? 0);
    if (has + rows.length > MAX_ALIGNMENT_ROWS) {
      const message = `an alignment set may hold at most ${MAX_ALIGNMENT_ROWS} rows; it has ${has} and ${rows.length} more were given`;
      throw new DomainError("VALIDATION", `Too many rows: ${message}`, { issues: [{ message }] });
    }
    for (let i = 0; i < rows.length; i += 500) await tx.insert(alignmentRows).values(rows.slice(i, i + 500));
  });
}

export const toAlignmentTask = (r: typeof alignmentTasks.$inferSelect): AlignmentTask => ({
  id: r.id,
  criterionId: r.criterionId,
  version: r.version,
  status: r.status,
  progress: { done: r.done, total: r.total },
  stats: (r.stats as AlignmentStats | null) ?? null,
  errorMessage: r.errorMessage,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});
