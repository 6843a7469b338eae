import type { Deps } from "../domain/deps";
import { errorFields } from "../core/logger";
import { startJobs } from "./index";
import type { Worker as JobWorker } from "./worker";

export type JobsThreadMessage = { t: "init"; env: Record<string, string | undefined> } | { t: "nudge" } | { t: "stop" };
export type JobsThreadReply = { t: "ready" } | { t: "stopped" } | { t: "fatal"; message: string };

/**
 * The job worker on its own thread (Postgres only: PGlite lives in the server's thread). Jobs
 * (fine-tune steps, evaluations judging hundreds of answers) then never take the serving thread's
 * time, and neither does the once-a-second claim query, which measurably lengthened every garbage
 * collection of the serving heap. The thread builds its own deps from the same environment, with
 * its own small connection pool. If it cannot start or dies, jobs run on this thread (`deps`).
 */
export function startJobsThread(deps: Deps, env: Record<string, string | undefined> = process.env): JobWorker {
  const thread = new Worker(new URL("./jobs.thread.ts", import.meta.url).href);
  let inThread: JobWorker | null = null;
  let stopping = false;
  let stopped: (() => void) | null = null;

  const failOver = (why: string, err?: unknown) => {
    if (inThread || stopping) return;
    deps.logger.error(`job thread ${why}: jobs now run on the main thread`, err ? errorFields(err) : {});
    thread.terminate();
    inThread = startJobs(deps);
  };
  thread.onmessage = (event: MessageEvent<JobsThreadReply>) => {
    const m = event.data;
    if (m.t === "ready") deps.logger.info("jobs run on their own thread");
    else if (m.t === "stopped") stopped?.();
    else if (m.t === "fatal") failOver(`could not start (${m.message})`);
  };
  thread.onerror = (event) => failOver("failed", (event as ErrorEvent).error ?? new Error((event as ErrorEvent).message));
  thread.addEventListener("close", () => {
    stopped?.();
    failOver("exited");
  });
  thread.postMessage({ t: "init", env: { ...env } } satisfies JobsThreadMessage);

  const nudge = () => (inThread ? inThread.nudge() : thread.postMessage({ t: "nudge" } satisfies JobsThreadMessage));
  deps.jobs.connect(nudge);
  return {
    id: "jobs-thread",
    nudge,
    async stop() {
      stopping = true;
      if (inThread) return inThread.stop();
      // The thread finishes the job step it is in, closes its connections and answers.
      await new Promise<void>((resolve) => {
        stopped = resolve;
        thread.postMessage({ t: "stop" } satisfies JobsThreadMessage);
      });
      thread.terminate();
    },
  };
}
