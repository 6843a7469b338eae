// The job thread: runs this process's job worker with its own deps (config from the server's
// environment, its own Postgres pool and log writer). Messages in: init (first), nudge, stop.
// Messages out: ready, fatal (it could not start), stopped (after stop: the running step finished
// and its connections are closed).
import { loadConfig } from "../core/config";
import { openDatabase } from "../db/client";
import { createDeps } from "../compose";
import type { Deps } from "../domain/deps";
import { closeSpanExport } from "../domain/calls";
import { createLogger } from "../core/logger";
import { resolveSecretKey } from "../db/secret-key";
import { startJobs } from "./index";
import type { JobsThreadMessage, JobsThreadReply } from "./start-jobs-thread";
import type { Worker as JobWorker } from "./worker";

declare const self: Worker;

const reply = (m: JobsThreadReply) => self.postMessage(m);
// Jobs run one at a time; an evaluation's judge calls are the most it does at once.
const POOL_SIZE = 2;

let running: { deps: Deps; worker: JobWorker } | null = null;
let starting: Promise<void> | null = null;

async function start(env: Record<string, string | undefined>): Promise<void> {
  const config = loadConfig(env);
  const logger = createLogger(config.logLevel);
  // Everything that can fail without holding a connection comes first.
  const secretKey = resolveSecretKey(config);
  const database = await openDatabase({ ...config, dbPoolSize: Math.min(config.dbPoolSize, POOL_SIZE) }, { migrate: false });
  const deps = createDeps({ config, database, logger, secretKey });
  running = { deps, worker: startJobs(deps) };
}

self.onmessage = async (event: MessageEvent<JobsThreadMessage>) => {
  const m = event.data;
  if (m.t === "init") {
    starting = start(m.env).then(
      () => reply({ t: "ready" }),
      (err) => reply({ t: "fatal", message: err instanceof Error ? err.message : String(err) }),
    );
    return;
  }
  await starting;
  if (m.t === "nudge") running?.worker.nudge();
  else if (m.t === "stop") {
    if (running) {
      await running.worker.stop();
      await closeSpanExport(running.deps.config);
      await running.deps.logWriter.close();
      await running.deps.database.close();
      running = null;
    }
    reply({ t: "stopped" });
  }
};
