import { and, eq, gte, inArray, lt, sql } from "drizzle-orm";
import { dbOf, type BaseCtx } from "../context";
import { jobs } from "../../db/schema";
import type { Job } from "./queue";

// The lastError of a job given up because its worker kept stopping: "the worker stopped N times ...".
const BEFORE = "the worker stopped ";
const AFTER = " times while running this job (it crashed or was killed before finishing a step)";

/**
 * Marks failed, for good, the running jobs of these kinds whose lease ran out after they were
 * claimed maxAttempts times: their worker died on every attempt (a step that crashes the process,
 * runs out of memory, ...), and claiming them again would only crash the next worker. Each job is
 * returned to exactly one caller (the update locks the row and re-checks the status), which then
 * shows the failure on what the job worked on.
 */
export async function failAbandonedJobs(ctx: BaseCtx, input: { kinds: string[] }): Promise<Job[]> {
  const now = ctx.deps.clock();
  return dbOf(ctx)
    .update(jobs)
    .set({ status: "failed", lockedBy: null, lockedUntil: null, lastError: sql`${BEFORE}::text || ${jobs.attempts}::text || ${AFTER}::text`, updatedAt: now })
    .where(and(inArray(jobs.kind, input.kinds), eq(jobs.status, "running"), lt(jobs.lockedUntil, now), gte(jobs.attempts, jobs.maxAttempts)))
    .returning();
}
