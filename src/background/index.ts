import type { Deps } from "../domain/deps";
import { evaluationJobs } from "./evaluation.job";
import { fineTuneJob } from "./fine-tune.job";
import { webhookJob } from "./webhook.job";
import { startMonitorRunner } from "./monitors";
import { startWorker, type Worker } from "./worker";

/** Starts this process's job worker (all job kinds) and monitor runner, and connects deps.jobs to the worker. */
export function startJobs(deps: Deps, opts: { pollMs?: number } = {}): Worker {
  const worker = startWorker(deps, { ...fineTuneJob, ...evaluationJobs, ...webhookJob }, opts);
  const monitors = startMonitorRunner(deps);
  deps.jobs.connect(() => worker.nudge());
  return {
    id: worker.id,
    nudge: () => worker.nudge(),
    async stop() {
      await Promise.all([worker.stop(), monitors.stop()]);
    },
  };
}
