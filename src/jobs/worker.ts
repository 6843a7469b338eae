import { systemCtx } from "../context";
import type { Deps } from "../deps";
import { claimJob, settleJob, type Job } from "../domain/jobs";
import { errorFields } from "../logger";

/** What a handler asks for: the job is finished, or it should run again later (polling). */
export type JobResult = { done: true } | { runAgainInMs: number };
export type JobHandler = (deps: Deps, payload: unknown, job: Job) => Promise<JobResult>;

export type Worker = { nudge(): void; stop(): Promise<void>; readonly id: string };

const LEASE_MS = 5 * 60 * 1000;

/**
 * Runs due jobs one at a time. Failures are retried with exponential backoff up to the job's
 * maxAttempts; a crash leaves the job to be claimed again when its lease runs out, so handlers
 * must be safe to run again from their last stored state.
 */
export function startWorker(deps: Deps, handlers: Record<string, JobHandler>, opts: { pollMs?: number } = {}): Worker {
  const id = `worker_${Bun.randomUUIDv7().replaceAll("-", "").slice(-12)}`;
  const ctx = systemCtx(deps, "worker");
  const kinds = Object.keys(handlers);
  const pollMs = opts.pollMs ?? deps.config.jobPollMs;
  let stopped = false;
  let wake: (() => void) | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;

  async function runOne(): Promise<boolean> {
    const job = await claimJob(ctx, { workerId: id, kinds, leaseMs: LEASE_MS });
    if (!job) return false;
    try {
      const result = await handlers[job.kind]!(deps, job.payload, job);
      await settleJob(ctx, { id: job.id, workerId: id, outcome: "done" in result ? { done: true } : { runAgainInMs: result.runAgainInMs, resetAttempts: true } });
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      deps.logger.warn("job failed", { jobId: job.id, kind: job.kind, attempt: job.attempts, ...errorFields(err) });
      if (job.attempts >= job.maxAttempts) await settleJob(ctx, { id: job.id, workerId: id, outcome: { failed: message } });
      else await settleJob(ctx, { id: job.id, workerId: id, outcome: { runAgainInMs: Math.min(1000 * 2 ** job.attempts, 5 * 60_000), error: message } });
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
