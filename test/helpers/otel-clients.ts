import { startJobs } from "../../src/background";
import { createTestApp, serve, storeProviderKey, type TestApp } from "./app";
import { waitForModelStatus } from "./factories";
import { type FakeTrainer, startFakeTrainer } from "./fake-trainer";
import { startFakeOpenAI, type FakeUpstream } from "./fake-upstreams";
import { gqlData } from "./gql";
import { trpcClient } from "./trpc";
import { waitFor } from "./wait-for";

// What the tests of real instrumented clients (test/http/otel-*.test.ts) share: a served app with
// a job worker and a fake trainer, a project, and a fake OpenAI the clients call; and the end of
// each: the runs' last calls imported into a dataset that trains.

export type OtelClientWorld = {
  t: TestApp;
  server: { url: string; stop(): Promise<void> };
  upstream: FakeUpstream;
  trainer: FakeTrainer;
  project: { projectId: string; apiKey: string };
  /** The OTLP receiver's URL on the served app. */
  receiver: string;
  stop(): Promise<void>;
};

export async function startOtelClientWorld(name: string, upstreamKey: string): Promise<OtelClientWorld> {
  const upstream = startFakeOpenAI({ apiKey: upstreamKey });
  const trainer = startFakeTrainer();
  const t = await createTestApp({ env: { OPENAI_BASE_URL: `${trainer.url}/v1`, HONE_JOB_POLL_MS: "20", HONE_FINETUNE_POLL_MS: "30" } });
  const server = serve(t.app);
  const worker = startJobs(t.deps);
  const project = await t.createProject(name);
  // The key the fine-tune is started with (the fake trainer takes any).
  await storeProviderKey(t, "openai", `sk-trainer-${name}`, project.projectId);
  return {
    t,
    server,
    upstream,
    trainer,
    project,
    receiver: `${server.url}/api/v1/otel/v1/traces`,
    async stop() {
      await worker.stop();
      await server.stop();
      await upstream.stop();
      await trainer.stop();
      await t.close();
    },
  };
}

/**
 * Once every call of the runs is stored (`calls`: a span ended after a flush comes with the next
 * batch), imports each run's last call into a new dataset, trains a model on it in the fake
 * trainer and answers the training file's lines.
 */
export async function trainOnLastCalls(w: OtelClientWorld, opts: { slug: string; runs: number; calls: number }): Promise<{ messages: { role: string }[] }[]> {
  const trpc = trpcClient(w.t, w.project.apiKey);
  await waitFor(async () => (await trpc.logs.list.query({ filter: { source: "otel" }, first: 100 })).logs.length, {
    until: (n) => n === opts.calls,
    timeoutMs: 30_000,
    message: `the runs' ${opts.calls} calls stored`,
  });
  const ds = await trpc.datasets.create.mutate({ name: opts.slug });
  const imported = await trpc.datasets.importLogs.mutate({ datasetId: ds.id, filter: { source: "otel", lastInTrace: true } });
  if (imported.entriesCreated !== opts.runs) throw new Error(`imported ${imported.entriesCreated} entries, not one per run (${opts.runs})`);
  await gqlData(
    w.t,
    `mutation($ds: ID!, $slug: String!) { createModel(input: {datasetId: $ds, slug: $slug, trainingConfig: {provider: "openai", baseModel: "gpt-4.1-mini-2025-04-14"}}) { slug } }`,
    { ds: ds.id, slug: opts.slug },
    { key: w.project.apiKey },
  );
  await waitForModelStatus(w.t, opts.slug, ["DEPLOYED"], { key: w.project.apiKey });
  const job = [...w.trainer.jobs.values()].find((j) => j.suffix === opts.slug)!;
  return w.trainer.files
    .get(job.fileId)!
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { messages: { role: string }[] });
}
