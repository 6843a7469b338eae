// The job worker on its own thread (what the server runs on Postgres). It needs a Postgres server:
// its own database on the one the suite runs against, or on the local server when the suite runs
// on PGlite. The app around it is an ordinary test app on that database.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { openDatabase, type Database } from "../../src/db/client";
import { startJobsThread } from "../../src/background/start-jobs-thread";
import { createTestApp, storeProviderKey, type TestApp } from "../helpers/app";
import { createOwnPostgresDatabase } from "../helpers/db";
import { startFakeOpenAI, type FakeUpstream } from "../helpers/fake-upstreams";
import { createCriterion, createDataset, qa } from "../helpers/factories";
import { gqlData } from "../helpers/gql";
import { waitFor } from "../helpers/wait-for";

let url: string;
let drop: () => Promise<void>;
let database: Database;
let t: TestApp;
let fake: FakeUpstream;

beforeAll(async () => {
  ({ url, drop } = await createOwnPostgresDatabase());
  database = await openDatabase({ databaseUrl: url, dataDir: "", dbPoolSize: 4 });
  fake = startFakeOpenAI();
  t = await createTestApp({ env: { OPENAI_BASE_URL: `${fake.url}/v1`, HONE_JOB_POLL_MS: "20" }, deps: { database } });
  await storeProviderKey(t, "openai", "sk-thread-000001");
});

afterAll(async () => {
  await t.close();
  await database.close();
  await fake.stop();
  await drop();
});

/** What the server hands the thread: its own environment (here: this test app's settings). */
const threadEnv = (over: Record<string, string> = {}) => ({
  DATABASE_URL: url,
  HONE_SECRET_KEY: Buffer.from(t.deps.secretKey).toString("base64"),
  OPENAI_BASE_URL: `${fake.url}/v1`,
  HONE_JOB_POLL_MS: "20",
  HONE_LOG_LEVEL: "warn",
  ...over,
});

/** An evaluation of one model on two TEST entries, created through the API (which nudges the worker), run to its end. */
async function runEvaluation() {
  const ds = await createDataset(t, { name: "thread", entries: [qa("capital of France", "x", "TEST"), qa("capital of Peru", "x", "TEST")] });
  const crit = (await createCriterion(t, { prompt: "Good? {{output}}" })).id;
  const created = await gqlData(
    t,
    `mutation($ds: ID!, $c: [String!]!) { createEvaluation(input: {datasetId: $ds, models: ["gpt-4o-mini"], criterionIds: $c}) { id } }`,
    { ds, c: [crit] },
  );
  const id = created.createEvaluation.id;
  const EVAL = `query($id: ID!) { evaluation(id: $id) { status progress { done total } } }`;
  return waitFor(async () => (await gqlData(t, EVAL, { id })).evaluation, {
    until: (e) => e.status === "DONE" || e.status === "ERROR",
    timeoutMs: 20_000,
    message: "the evaluation to finish",
  });
}

const logged = (text: string) => t.logLines.some((l) => l.includes(text));

describe("the job thread", () => {
  test("runs the jobs this process enqueues; stop waits for it and ends it", async () => {
    t.logLines.length = 0;
    const worker = startJobsThread(t.deps, threadEnv());
    try {
      // No worker runs on this thread: only the job thread can finish the evaluation.
      expect(await runEvaluation()).toEqual({ status: "DONE", progress: { done: 2, total: 2 } });
      expect(logged("jobs run on their own thread")).toBe(true);
    } finally {
      await worker.stop();
    }
    expect(logged("jobs now run on the main thread")).toBe(false);
  });

  test("a thread that cannot start hands the jobs to this thread, and says why", async () => {
    t.logLines.length = 0;
    const worker = startJobsThread(t.deps, threadEnv({ DATABASE_URL: "postgres://hone@127.0.0.1:1/nowhere" }));
    try {
      await waitFor(() => logged("jobs now run on the main thread"), { message: "the fallback to the main thread" });
      const line = t.logLines.find((l) => l.includes("jobs now run on the main thread"));
      expect(line).toContain("job thread could not start");
      expect(await runEvaluation()).toEqual({ status: "DONE", progress: { done: 2, total: 2 } });
    } finally {
      await worker.stop();
    }
  });
});
