import { and, asc, eq, gte, inArray, isNull, lt, or, sql } from "drizzle-orm";
import { alignmentRows, alignmentTasks, alignmentVerdicts } from "../../db/schema";
import type { Deps } from "../deps";
import { toDomainError } from "../../core/errors";
import { runTaskStep, type StepResult, type TaskKind } from "../jobs";
import { judgeAlignmentRows, storeAlignmentStats } from "./alignment";
import { resolveCriterion } from "./internal";

/** Rows judged per job step; the step then yields so its lease never runs out. */
const CHUNK = 50;

type TaskRow = typeof alignmentTasks.$inferSelect;

const ALIGNMENT_TASK: TaskKind<TaskRow> = {
  job: "alignment-run",
  load: async (deps, id) => (await deps.database.db.select().from(alignmentTasks).where(eq(alignmentTasks.id, id)))[0],
  isFinal: (task) => task.status === "DONE" || task.status === "ERROR",
  markRunning: async (deps, task) => {
    if (task.status === "QUEUED")
      await deps.database.db.update(alignmentTasks).set({ status: "RUNNING", updatedAt: deps.clock() }).where(eq(alignmentTasks.id, task.id));
  },
  markFailed: async (deps, task, message) => {
    await deps.database.db
      .update(alignmentTasks)
      .set({ status: "ERROR", errorMessage: message, updatedAt: deps.clock() })
      .where(eq(alignmentTasks.id, task.id));
  },
};

/**
 * One step of a background alignment run: judges up to CHUNK rows that have no verdict of the
 * version given since the run started, records progress, and once none is left stores the
 * version's statistics on the task and as its last run.
 */
export async function runAlignmentStep(deps: Deps, input: { taskId: string }, signal: AbortSignal = new AbortController().signal): Promise<StepResult> {
  return runTaskStep(deps, ALIGNMENT_TASK, input.taskId, async (task, { ctx, fail }) => {
    let criterion: Awaited<ReturnType<typeof resolveCriterion>>;
    try {
      criterion = await resolveCriterion(ctx, `${task.criterionId}@v${task.version}`);
    } catch (err) {
      return fail(toDomainError(err).message);
    }
    const db = deps.database.db;
    const verdictOf = and(eq(alignmentVerdicts.rowId, alignmentRows.id), eq(alignmentVerdicts.version, task.version));
    const pending = await db
      .select({ row: alignmentRows })
      .from(alignmentRows)
      .leftJoin(alignmentVerdicts, verdictOf)
      .where(and(eq(alignmentRows.criterionId, task.criterionId), or(isNull(alignmentVerdicts.rowId), lt(alignmentVerdicts.createdAt, task.createdAt))))
      .orderBy(asc(alignmentRows.id))
      .limit(CHUNK);
    await judgeAlignmentRows(
      ctx,
      criterion,
      pending.map((p) => p.row),
      signal,
    );
    if (signal.aborted) return { runAgainInMs: 0 };
    const [counted] = await db
      .select({ n: sql<number>`count(*)::int` })
      .from(alignmentVerdicts)
      .where(
        and(
          eq(alignmentVerdicts.version, task.version),
          gte(alignmentVerdicts.createdAt, task.createdAt),
          inArray(alignmentVerdicts.rowId, db.select({ id: alignmentRows.id }).from(alignmentRows).where(eq(alignmentRows.criterionId, task.criterionId))),
        ),
      );
    const done = Number(counted?.n ?? 0);
    if (pending.length < CHUNK) {
      const stats = await storeAlignmentStats(ctx, criterion);
      await db
        .update(alignmentTasks)
        // Every row there is now has been judged: that is the total (rows deleted meanwhile are gone from it).
        .set({ status: "DONE", done, total: done, stats, updatedAt: deps.clock() })
        .where(eq(alignmentTasks.id, task.id));
      return { done: true };
    }
    await db.update(alignmentTasks).set({ done, updatedAt: deps.clock() }).where(eq(alignmentTasks.id, task.id));
    return { runAgainInMs: 0 };
  });
}

/**
 * Ends an alignment run in ERROR when its job was given up for good, so it does not show RUNNING
 * forever. A run that already finished keeps its state.
 */
export async function failAlignmentTask(deps: Deps, input: { taskId: string; reason: string }): Promise<void> {
  await deps.database.db
    .update(alignmentTasks)
    .set({ status: "ERROR", errorMessage: `The alignment run stopped: ${input.reason}`, updatedAt: deps.clock() })
    .where(and(eq(alignmentTasks.id, input.taskId), inArray(alignmentTasks.status, ["QUEUED", "RUNNING"])));
}
