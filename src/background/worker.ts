import { systemCtx } from "../domain/context";
import type { Deps } from "../domain/deps";
import { claimJob, failAbandonedJobs, renewJobLease, settleJob, type Job } from "../domain/jobs";
import { errorFields } from "../core/logger";

/** What a step asks for: the job is finished, or it should run again later (polling). */
export type JobResult = { done: true } | { runAgainInMs: number };

export type JobHandler = {
  /**
   * One step. `signal` aborts when the step overruns HONE_JOB_STEP_TIMEOUT_MS or this worker lost
   * its lease: pass it to upstream calls and stop early. A step that ignores it is abandoned all
   * the same (the worker moves on), but may keep running in the background until it returns.
   */
  run(deps: Deps, payload: unknown, job: Job, signal: AbortSignal): Promise<JobResult>;
  /**
   * The job was given up for good (its last attempt failed or overran, or the worker kept stopping
   * while running it): show the failure on what it worked on, which would otherwise look busy forever.
   */
  failed?(deps: Deps, payload: unknown, reason: string): Promise<void>;
};

export type Worker = { nudge(): void; stop(): Promise<void>; readonly id: string };

type WorkerOptions = { pollMs?: number; leaseMs?: number; stepTimeoutMs?: number };

class StepTimeout extends Error {
  override name = "StepTimeout";
}
class LeaseLost extends Error {
  override name = "LeaseLost";
}

/**
 * Runs due jobs one at a time. Each step runs under a deadline (HONE_JOB_STEP_TIMEOUT_MS) while
 * its lease (HONE_JOB_LEASE_MS) is renewed every third of a lease, so a long step is never taken
 * by a second worker but a dead worker's job is due again soon. Failures and overruns are retried
 * with exponential backoff up to the job's maxAttempts; a crash leaves the job to be claimed again
 * when its lease runs out (so handlers must be safe to run again from their last stored state),
 * and a job whose worker stopped maxAttempts times is failed rather than claimed again.
 */
export function startWorker(deps: Deps, handlers: Record<string, JobHandler>, opts: WorkerOptions = {}): Worker {
  const id = `worker_${Bun.randomUUIDv7().replaceAll("-", "").slice(-12)}`;
  const ctx = systemCtx(deps, "worker");
  const kinds = Object.keys(handlers);
  const pollMs = opts.pollMs ?? deps.config.jobPollMs;
  const leaseMs = opts.leaseMs ?? deps.config.jobLeaseMs;
  const stepTimeoutMs = opts.stepTimeoutMs ?? deps.config.jobStepTimeoutMs;
  let stopped = false;
  let wake: (() => void) | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;

  async function giveUp(job: Job, reason: string) {
    const failed = handlers[job.kind]?.failed;
    if (!failed) return;
    try {
      await failed(deps, job.payload, reason);
    } catch (err) {
      deps.logger.error("could not record a job's failure", { jobId: job.id, kind: job.kind, ...errorFields(err) });
    }
  }

  /** Runs the step under its deadline and lease; resolves with its result or rejects with why it stopped. */
  async function runStep(job: Job): Promise<JobResult> {
    const controller = new AbortController();
    const stop = new Promise<never>((_, reject) => controller.signal.addEventListener("abort", () => reject(controller.signal.reason), { once: true }));
    const deadline = setTimeout(
      () => controller.abort(new StepTimeout(`the step ran longer than ${stepTimeoutMs} ms (HONE_JOB_STEP_TIMEOUT_MS)`)),
      stepTimeoutMs,
    );
    let renewing = false;
    const renewal = setInterval(
      async () => {
        if (renewing || controller.signal.aborted) return;
        renewing = true;
        try {
          if (!(await renewJobLease(ctx, { id: job.id, workerId: id, leaseMs }))) controller.abort(new LeaseLost("the job's lease was lost"));
        } catch (err) {
          // A renewal that fails (database hiccup) is tried again; the lease has two more thirds left.
          deps.logger.warn("could not renew a job's lease", { jobId: job.id, ...errorFields(err) });
        } finally {
          renewing = false;
        }
      },
      Math.max(1, Math.floor(leaseMs / 3)),
    );
    try {
      return await Promise.race([handlers[job.kind]!.run(deps, job.payload, job, controller.signal), stop]);
    } finally {
      clearTimeout(deadline);
      clearInterval(renewal);
      // Whatever the step still has in flight is told to stop.
      if (!controller.signal.aborted) controller.abort(new LeaseLost("the step is over"));
    }
  }

  async function runOne(): Promise<boolean> {
    const abandoned = await failAbandonedJobs(ctx, { kinds });
    for (const job of abandoned) {
      deps.logger.error("job failed: its worker kept stopping", { jobId: job.id, kind: job.kind, attempts: job.attempts });
      await giveUp(job, job.lastError ?? "the worker kept stopping");
    }
    const job = await claimJob(ctx, { workerId: id, kinds, leaseMs });
    if (!job) return abandoned.length > 0;
    try {
      const result = await runStep(job);
      await settleJob(ctx, {
        id: job.id,
        workerId: id,
        outcome: "done" in result ? { done: true } : { runAgainInMs: result.runAgainInMs, resetAttempts: true },
      });
    } catch (err) {
      if (err instanceof LeaseLost) {
        // Another worker holds the job now; it settles it.
        deps.logger.warn("job step stopped: its lease was lost", { jobId: job.id, kind: job.kind });
        return true;
      }
      const message = err instanceof Error ? err.message : String(err);
      deps.logger.warn("job failed", { jobId: job.id, kind: job.kind, attempt: job.attempts, ...errorFields(err) });
      if (job.attempts >= job.maxAttempts) {
        await settleJob(ctx, { id: job.id, workerId: id, outcome: { failed: message } });
        await giveUp(job, message);
      } else {
        await settleJob(ctx, { id: job.id, workerId: id, outcome: { runAgainInMs: Math.min(1000 * 2 ** job.attempts, 5 * 60_000), error: message } });
      }
    }
    return true;
  }

  const loop = (async () => {
    while (!stopped) {
      let worked = false;
      try {
        worked = await runOne();
      } catch (err) {
        deps.logger.error("job worker error", errorFields(err));
      }
      if (worked || stopped) continue;
      await new Promise<void>((resolve) => {
        wake = resolve;
        timer = setTimeout(resolve, pollMs);
      });
      wake = null;
    }
  })();

  return {
    id,
    nudge() {
      if (timer) clearTimeout(timer);
      wake?.();
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      wake?.();
      await loop;
    },
  };
}
