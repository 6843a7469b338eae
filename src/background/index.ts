import type { Deps } from "../deps";
import { evaluationJobs } from "./evaluation.job";
import { fineTuneJob } from "./fine-tune.job";
import { webhookJob } from "./webhook.job";
import { startWorker, type Worker } from "./worker";

/** Starts this process's job worker (all job kinds) and connects deps.jobs to it. */
export function startJobs(deps: Deps, opts: { pollMs?: number } = {}): Worker {
  const worker = startWorker(deps, { ...fineTuneJob, ...evaluationJobs, ...webhookJob }, opts);
  deps.jobs.connect(() => worker.nudge());
  return worker;
}
