import { and, eq, inArray, sql } from "drizzle-orm";
import { dbOf, type BaseCtx } from "../context";
import { jobs } from "../../db/schema";

export type Job = typeof jobs.$inferSelect;

/** Adds a job, due at once unless runAt is given. */
export async function enqueueJob(ctx: BaseCtx, input: { kind: string; payload: unknown; runAt?: Date; maxAttempts?: number }): Promise<string> {
  const id = ctx.deps.ids("job");
  const now = ctx.deps.clock();
  await dbOf(ctx)
    .insert(jobs)
    .values({
      id,
      kind: input.kind,
      payload: input.payload,
      status: "queued",
      runAt: input.runAt ?? now,
      maxAttempts: input.maxAttempts ?? 5,
      createdAt: now,
      updatedAt: now,
    });
  return id;
}

/**
 * Claims the next due job of these kinds for this worker, holding a lease (the worker renews it
 * while the step runs). FOR UPDATE SKIP LOCKED makes concurrent workers (in any process) take
 * different jobs; a running job whose lease ran out (its worker died) is due again, unless it was
 * already claimed maxAttempts times: that one is never claimed again (failAbandonedJobs fails it).
 */
export async function claimJob(ctx: BaseCtx, input: { workerId: string; kinds: string[]; leaseMs: number }): Promise<Job | null> {
  const now = ctx.deps.clock();
  const leaseUntil = new Date(now.getTime() + input.leaseMs);
  const due = sql`(${jobs.status} = 'queued' and ${jobs.runAt} <= ${now.toISOString()}::timestamptz)
    or (${jobs.status} = 'running' and ${jobs.lockedUntil} < ${now.toISOString()}::timestamptz and ${jobs.attempts} < ${jobs.maxAttempts})`;
  const next = dbOf(ctx)
    .select({ id: jobs.id })
    .from(jobs)
    .where(and(inArray(jobs.kind, input.kinds), due))
    .orderBy(jobs.runAt)
    .limit(1)
    .for("update", { skipLocked: true });
  const [job] = await dbOf(ctx)
    .update(jobs)
    .set({ status: "running", lockedBy: input.workerId, lockedUntil: leaseUntil, attempts: sql`${jobs.attempts} + 1`, updatedAt: now })
    .where(inArray(jobs.id, next))
    .returning();
  return job ?? null;
}

/** Finishes a job this worker holds: done, due again later, or failed for good. */
export async function settleJob(
  ctx: BaseCtx,
  input: { id: string; workerId: string; outcome: { done: true } | { runAgainInMs: number; resetAttempts?: boolean; error?: string } | { failed: string } },
): Promise<void> {
  const now = ctx.deps.clock();
  const o = input.outcome;
  const set =
    "done" in o
      ? { status: "done" as const, lockedBy: null, lockedUntil: null, updatedAt: now }
      : "failed" in o
        ? { status: "failed" as const, lockedBy: null, lockedUntil: null, lastError: o.failed, updatedAt: now }
        : {
            status: "queued" as const,
            runAt: new Date(now.getTime() + o.runAgainInMs),
            lockedBy: null,
            lockedUntil: null,
            updatedAt: now,
            ...(o.resetAttempts ? { attempts: 0 } : {}),
            ...(o.error ? { lastError: o.error } : {}),
          };
  // Only the lease holder may settle: a worker that lost its lease must not overwrite.
  await dbOf(ctx)
    .update(jobs)
    .set(set)
    .where(and(eq(jobs.id, input.id), eq(jobs.lockedBy, input.workerId)));
}
