import { startJobs } from "../../src/background";
import type { Worker } from "../../src/background/worker";
import { createTestApp, serve, storeProviderKey, type TestApp } from "./app";
import { type FakeUpstream, startFakeOpenAI } from "./fake-upstreams";

/** A test app whose background jobs run (evaluations, relabelling, judging), against the fake OpenAI upstream, served on a port. */
export type JobApp = {
  t: TestApp;
  fake: FakeUpstream;
  server: { url: string; stop(): Promise<void> };
  worker: Worker;
  close(): Promise<void>;
};

/**
 * Starts one: the fake OpenAI upstream (answers "echo: <question>"; its judge fails outputs
 * containing "wrong"), the app with that upstream's key stored, a job worker polling every 20 ms
 * running 4 evaluation calls at once, and a server.
 */
export async function startJobApp(opts: { providerKey: string; env?: Record<string, string> }): Promise<JobApp> {
  const fake = startFakeOpenAI();
  const t = await createTestApp({ env: { OPENAI_BASE_URL: `${fake.url}/v1`, HONE_JOB_POLL_MS: "20", HONE_EVAL_CONCURRENCY: "4", ...opts.env } });
  await storeProviderKey(t, "openai", opts.providerKey);
  const worker = startJobs(t.deps);
  const server = serve(t.app);
  return {
    t,
    fake,
    server,
    worker,
    async close() {
      await worker.stop();
      await server.stop();
      await fake.stop();
      await t.close();
    },
  };
}
