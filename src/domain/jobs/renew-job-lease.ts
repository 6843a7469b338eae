import { and, eq } from "drizzle-orm";
import { dbOf, type BaseCtx } from "../context";
import { jobs } from "../../db/schema";

/**
 * Extends the lease of a job this worker is running, so a step that takes longer than one lease
 * is not claimed by a second worker. Only the holder renews: false means the lease was lost (it ran
 * out and another worker took the job, or the job was settled), and the step should stop.
 */
export async function renewJobLease(ctx: BaseCtx, input: { id: string; workerId: string; leaseMs: number }): Promise<boolean> {
  const now = ctx.deps.clock();
  const renewed = await dbOf(ctx)
    .update(jobs)
    .set({ lockedUntil: new Date(now.getTime() + input.leaseMs), updatedAt: now })
    .where(and(eq(jobs.id, input.id), eq(jobs.lockedBy, input.workerId), eq(jobs.status, "running")))
    .returning({ id: jobs.id });
  return renewed.length > 0;
}
