import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { jobs } from "../../src/db/schema";
import type { Worker } from "../../src/background/worker";
import { startJobs } from "../../src/background";
import { createTestApp, storeProviderKey, type TestApp } from "../helpers/app";
import type { FakeUpstream } from "../helpers/fake-upstreams";
import { type JobApp, startJobApp } from "../helpers/job-app";
import { startFakeTrainer } from "../helpers/fake-trainer";
import { createCriterion, createDataset, qa, waitForDatasetTask, waitForModelStatus } from "../helpers/factories";
import { gql as sharedGql } from "../helpers/gql";
import { waitFor } from "../helpers/wait-for";

// Evaluations and dataset quality against the fake OpenAI upstream (answers "echo: <q>"; its judge
// fails outputs containing "wrong").
let app: JobApp;
let t: TestApp;
let fake: FakeUpstream;
let server: JobApp["server"];
let worker: Worker;

beforeAll(async () => {
  app = await startJobApp({ providerKey: "sk-eval-000001" });
  ({ t, fake, server, worker } = app);
});
afterAll(() => app.close());

const json = async <T>(res: Response): Promise<T> => (await res.json()) as T;
/** The members of a model (REST) these tests read. */
type ModelOut = { hone: { status: string } };
const gql = (query: string, variables: Record<string, unknown> = {}, key = t.project.apiKey) => sharedGql(t, query, variables, { key });
const dataset = (entries: { q: string; a: string; split: "TRAIN" | "TEST" }[], key = t.project.apiKey) =>
  createDataset(t, { name: "eval", entries: entries.map((e) => qa(e.q, e.a, e.split)), key });
const criterion = async (judgeModel = "openai:judge", key = t.project.apiKey) => (await createCriterion(t, { judgeModel, key })).id;
const EVAL = `query($id: ID!) { evaluation(id: $id) { id status progress { done total } criteria { criterionId version }
  summary { model criterionId passRate meanScore costUsd judged judgeErrors outputErrors inputTokens outputTokens } } }`;
const evaluation = async (id: string) => (await gql(EVAL, { id })).data.evaluation;
const waitEval = (id: string, statuses: string[], timeoutMs = 15_000) =>
  waitFor(() => evaluation(id), {
    until: (e) => statuses.includes(e.status),
    timeoutMs,
    message: (e) => `evaluation stuck in ${e?.status} (${JSON.stringify(e?.progress)})`,
  });
const waitTask = (id: string) => waitForDatasetTask(t, id);

const ENTRIES = [
  { q: "capital of France", a: "Paris", split: "TEST" as const },
  { q: "capital of Spain", a: "this is wrong", split: "TEST" as const },
  { q: "wrong question", a: "Rome", split: "TEST" as const },
  { q: "capital of Peru", a: "Lima", split: "TEST" as const },
  { q: "train only", a: "x", split: "TRAIN" as const },
];

describe("evaluations", () => {
  test("models and the dataset's references are run on TEST entries and judged; summary, results and head to head", async () => {
    const ds = await dataset(ENTRIES);
    const crit = await criterion();
    const created = await gql(
      `mutation($ds: ID!, $c: [String!]!) { createEvaluation(input: {datasetId: $ds, models: ["gpt-4o-mini", "dataset"], criterionIds: $c}) { id status progress { done total } } }`,
      { ds, c: [crit] },
    );
    expect(created.data.createEvaluation).toMatchObject({ status: "QUEUED", progress: { done: 0, total: 8 } });
    const ev = await waitEval(created.data.createEvaluation.id, ["DONE"]);
    expect(ev.progress).toEqual({ done: 8, total: 8 });
    expect(ev.criteria).toEqual([{ criterionId: crit, version: 1 }]);
    const byModel = Object.fromEntries(ev.summary.map((s: { model: string }) => [s.model, s]));
    // gpt-4o-mini echoes the question: fails on "wrong question"; the references fail on "this is wrong".
    expect(byModel["gpt-4o-mini"]).toMatchObject({
      criterionId: crit,
      passRate: 0.75,
      meanScore: 0.75,
      judged: 4,
      judgeErrors: 0,
      inputTokens: 44,
      outputTokens: 28,
    });
    expect(byModel["gpt-4o-mini"].costUsd).toBeGreaterThan(0);
    expect(byModel.dataset).toMatchObject({ passRate: 0.75, costUsd: 0, inputTokens: 0 });
    // The model only saw the input, never the reference answer.
    const generated = fake.requests.filter((r) => r.body.model === "gpt-4o-mini" && !r.body.tools);
    expect(generated.every((r) => r.body.messages!.length === 1 && r.body.messages![0]!.role === "user")).toBe(true);

    const h2h = await gql(
      `query($id: ID!) { evaluation(id: $id) { headToHead(modelA: "gpt-4o-mini", modelB: "dataset") { aWins bWins ties entries { entryId scoreA scoreB a { output } b { output } } } } }`,
      { id: ev.id },
    );
    const h = h2h.data.evaluation.headToHead;
    expect({ aWins: h.aWins, bWins: h.bWins, ties: h.ties }).toEqual({ aWins: 1, bWins: 1, ties: 2 });
    expect(h.entries).toHaveLength(2);
    const results = await gql(`query($id: ID!) { evaluation(id: $id) { results(model: "gpt-4o-mini") { entryId output verdicts latencyMs } } }`, { id: ev.id });
    expect(results.data.evaluation.results).toHaveLength(4);
    expect(results.data.evaluation.results[0].verdicts[crit].status).toBe("success");
  });

  test("criterion versions are pinned at creation; a failing judge is recorded per entry without failing the evaluation", async () => {
    const ds = await dataset(ENTRIES);
    const crit = await criterion("openai:error-500");
    const ev = (
      await gql(`mutation($ds: ID!, $c: [String!]!) { createEvaluation(input: {datasetId: $ds, models: ["dataset"], criterionIds: $c}) { id } }`, {
        ds,
        c: [crit],
      })
    ).data.createEvaluation;
    // A version made now must not be used by the evaluation already created.
    await gql(`mutation($id: ID!) { createCriterionVersion(input: {criterionId: $id, judgeModel: "openai:judge-v2"}) { version } }`, { id: crit });
    const done = await waitEval(ev.id, ["DONE"]);
    expect(done.criteria).toEqual([{ criterionId: crit, version: 1 }]);
    expect(done.summary[0]).toMatchObject({ judged: 0, judgeErrors: 4, passRate: null });
    expect(fake.requests.some((r) => r.body.model === "judge-v2")).toBe(false);
  });

  test("cancellation stops the evaluation; finished results stay", async () => {
    const many = Array.from({ length: 30 }, (_, i) => ({ q: `q${i}`, a: `a${i}`, split: "TEST" as const }));
    const ds = await dataset(many);
    const crit = await criterion();
    const ev = (
      await gql(`mutation($ds: ID!, $c: [String!]!) { createEvaluation(input: {datasetId: $ds, models: ["slow-150"], criterionIds: $c}) { id } }`, {
        ds,
        c: [crit],
      })
    ).data.createEvaluation;
    await waitFor(() => evaluation(ev.id), { until: (e) => e.progress.done >= 2, message: "two finished pairs" });
    const cancelled = await gql(`mutation($id: ID!) { cancelEvaluation(id: $id) { id status } }`, { id: ev.id });
    expect(cancelled.data.cancelEvaluation.status).toBe("CANCELLED");
    // Pairs in flight at the cancel may still finish; once the job has ended nothing else runs.
    await waitFor(
      async () =>
        (await t.deps.database.db.select({ status: jobs.status }).from(jobs).where(sql`${jobs.payload}->>'evaluationId' = ${ev.id}`))[0]?.status === "done",
      {
        message: "the cancelled evaluation's job to end",
      },
    );
    const a = (await gql(EVAL, { id: ev.id })).data.evaluation.progress.done;
    // Time must pass to show the count stays put: this sleep is the point of the test.
    await Bun.sleep(600);
    const b = (await gql(EVAL, { id: ev.id })).data.evaluation;
    expect(b.status).toBe("CANCELLED");
    expect(b.progress.done).toBe(a);
    expect(a).toBeLessThan(30);
    expect(a).toBeGreaterThanOrEqual(2);
  });

  test("a restart in the middle finishes without redoing finished pairs", async () => {
    const many = Array.from({ length: 12 }, (_, i) => ({ q: `restart ${i}`, a: `a${i}`, split: "TEST" as const }));
    const ds = await dataset(many);
    const crit = await criterion();
    await worker.stop();
    try {
      const ev = (
        await gql(`mutation($ds: ID!, $c: [String!]!) { createEvaluation(input: {datasetId: $ds, models: ["slow-60"], criterionIds: $c}) { id } }`, {
          ds,
          c: [crit],
        })
      ).data.createEvaluation;
      const first = startJobs(t.deps);
      await waitFor(() => evaluation(ev.id), { until: (e) => e.progress.done >= 3, intervalMs: 10, message: "three finished pairs" });
      await first.stop();
      const midway = (await gql(EVAL, { id: ev.id })).data.evaluation.progress.done;
      expect(midway).toBeGreaterThanOrEqual(3);
      const second = startJobs(t.deps);
      const done = await waitEval(ev.id, ["DONE"]);
      await second.stop();
      expect(done.progress).toEqual({ done: 12, total: 12 });
      const generated = fake.requests.filter((r) => r.body.model === "slow-60" && !r.body.tools);
      expect(generated).toHaveLength(12);
    } finally {
      worker = startJobs(t.deps);
    }
  });

  test("a criterion deleted while its evaluation waits ends the evaluation in ERROR, saying why", async () => {
    const ds = await dataset(ENTRIES);
    const crit = await criterion();
    await worker.stop();
    try {
      const ev = (
        await gql(`mutation($ds: ID!, $c: [String!]!) { createEvaluation(input: {datasetId: $ds, models: ["dataset"], criterionIds: $c}) { id } }`, {
          ds,
          c: [crit],
        })
      ).data.createEvaluation;
      await gql(`mutation($id: ID!) { deleteCriterion(id: $id) }`, { id: crit });
      worker = startJobs(t.deps);
      const done = await waitEval(ev.id, ["ERROR", "DONE"]);
      expect(done.status).toBe("ERROR");
      const msg = (await gql(`query($id: ID!) { evaluation(id: $id) { errorMessage } }`, { id: ev.id })).data.evaluation.errorMessage;
      expect(msg).toBe(`Criterion ${crit} not found`);
    } finally {
      await worker.stop();
      worker = startJobs(t.deps);
    }
  });

  test("bad input and other projects' evaluations and datasets", async () => {
    const ds = await dataset(ENTRIES);
    const crit = await criterion();
    const noTest = await dataset([{ q: "x", a: "y", split: "TRAIN" }]);
    const bad = async (vars: Record<string, unknown>) =>
      (await gql(`mutation($ds: ID!, $m: [String!]!, $c: [String!]!) { createEvaluation(input: {datasetId: $ds, models: $m, criterionIds: $c}) { id } }`, vars))
        .errors[0];
    expect((await bad({ ds: noTest, m: ["dataset"], c: [crit] })).message).toContain("no TEST entries");
    expect((await bad({ ds, m: ["nowhere:x"], c: [crit] })).extensions.code).toBe("VALIDATION");
    expect((await bad({ ds, m: ["dataset"], c: ["crit_missing"] })).message).toBe("Criterion crit_missing not found");
    expect((await bad({ ds, m: [], c: [crit] })).extensions.code).toBe("VALIDATION");

    const mine = (await gql(`{ evaluations { id } }`)).data.evaluations;
    expect(mine.length).toBeGreaterThan(0);
    const other = await t.createProject("other-eval");
    expect((await gql(`{ evaluations { id } }`, {}, other.apiKey)).data.evaluations).toEqual([]);
    expect((await gql(EVAL, { id: mine[0].id }, other.apiKey)).errors[0].extensions.code).toBe("NOT_FOUND");
    expect((await gql(`mutation($id: ID!) { cancelEvaluation(id: $id) { id } }`, { id: mine[0].id }, other.apiKey)).errors[0].extensions.code).toBe(
      "NOT_FOUND",
    );
    const theirCrit = await criterion("openai:judge", other.apiKey);
    expect((await bad({ ds, m: ["dataset"], c: [theirCrit] })).extensions.code).toBe("NOT_FOUND");
  });
});

/** An entry as the relabel query reads it. */
type RelabelledEntry = { messages: unknown[]; originalMessages: unknown[]; relabeledBy: string | null };

describe("dataset quality", () => {
  test("judge entries, filter by verdict (GraphQL and export), relabel failing ones keeping the original", async () => {
    const ds = await dataset(ENTRIES);
    const crit = await criterion();
    const task = (await gql(`mutation($ds: ID!, $c: String!) { judgeDatasetEntries(input: {datasetId: $ds, criterionId: $c}) { id status } }`, { ds, c: crit }))
      .data.judgeDatasetEntries;
    expect(task.status).toBe("QUEUED");
    expect(await waitTask(task.id)).toMatchObject({ status: "DONE", progress: { done: 5, total: 5 } });

    const failing = await gql(
      `query($id: ID!, $c: String!) { dataset(id: $id) { entries(verdict: {criterionId: $c, judgement: "FAIL"}) { edges { node { id messages } } } } }`,
      { id: ds, c: crit },
    );
    const failed = failing.data.dataset.entries.edges.map((e: { node: { messages: { content: string }[] } }) => e.node.messages[1]!.content);
    expect(failed).toEqual(["this is wrong"]);
    const passing = await fetch(`${server.url}/api/v1/datasets/${ds}/export?criterion=${crit}&judgement=PASS`, {
      headers: { authorization: `Bearer ${t.project.apiKey}` },
    });
    expect((await passing.text()).trim().split("\n")).toHaveLength(4);

    const relabel = (
      await gql(`mutation($ds: ID!, $c: String!) { relabelDatasetEntries(input: {datasetId: $ds, criterionId: $c, model: "gpt-4o-mini"}) { id status } }`, {
        ds,
        c: crit,
      })
    ).data.relabelDatasetEntries;
    expect(await waitTask(relabel.id)).toMatchObject({ status: "DONE", progress: { done: 1, total: 1 } });
    const entries = (
      await gql(`query($id: ID!) { dataset(id: $id) { entries { edges { node { messages originalMessages relabeledBy } } } } }`, { id: ds })
    ).data.dataset.entries.edges.map((e: { node: RelabelledEntry }) => e.node) as RelabelledEntry[];
    const relabelled = entries.find((e) => e.relabeledBy)!;
    expect(relabelled.messages[1]).toEqual({ role: "assistant", content: "echo: capital of Spain" });
    expect(relabelled.originalMessages[1]).toEqual({ role: "assistant", content: "this is wrong" });
    expect(relabelled.relabeledBy).toBe("gpt-4o-mini");
    // Its old verdict no longer applies.
    const stillFailing = await gql(
      `query($id: ID!, $c: String!) { dataset(id: $id) { entries(verdict: {criterionId: $c, judgement: "FAIL"}) { edges { node { id } } } } }`,
      { id: ds, c: crit },
    );
    expect(stillFailing.data.dataset.entries.edges).toEqual([]);
  });
});

describe("the loop: logs -> dataset -> quality -> fine-tune -> evaluation", () => {
  test("a fine-tune made from cleaned production logs beats its base model on TEST", async () => {
    const trainer = startFakeTrainer();
    const loop = await createTestApp({ env: { OPENAI_BASE_URL: `${trainer.url}/v1`, HONE_JOB_POLL_MS: "20", HONE_FINETUNE_POLL_MS: "20" } });
    const w = startJobs(loop.deps);
    try {
      await storeProviderKey(loop, "openai", "sk-loop-000001");
      const call = async <T>(method: string, path: string, body?: unknown) => json<T>(await loop.request(method, path, { body }));
      const q = (query: string, variables: Record<string, unknown> = {}) => sharedGql(loop, query, variables);
      // Production traffic: half the answers are good, half bad.
      for (let i = 0; i < 20; i++) {
        const r = await loop.request("POST", "/api/v1/report", {
          body: {
            reqPayload: { model: "gpt-4o-mini", messages: [{ role: "user", content: `ticket ${i}` }] },
            respPayload: {
              id: `c${i}`,
              choices: [{ index: 0, message: { role: "assistant", content: `${i % 2 ? "bad" : "good"}: ticket ${i}` }, finish_reason: "stop" }],
            },
            statusCode: 200,
            tags: { feature: "support" },
          },
        });
        expect(r.status).toBe(200);
      }
      const ds = (await call<{ id: string }>("POST", "/api/v1/datasets", { name: "support" })).id;
      const imported = await q(
        `mutation($ds: ID!) { importLogsToDataset(input: {datasetId: $ds, filter: {metadata: [{key: "feature", equals: "support"}]}}) { entriesCreated } }`,
        { ds },
      );
      expect(imported.data.importLogsToDataset.entriesCreated).toBe(20);
      const crit = (
        await q(`mutation { createCriterion(input: {name: "helpful", judgeModel: "openai:judge", prompt: "Is it helpful? Output: {{output}}"}) { id } }`)
      ).data.createCriterion.id;

      const wait = async (id: string) => expect((await waitForDatasetTask(loop, id, { timeoutMs: 20_000 })).status).toBe("DONE");
      await wait(
        (await q(`mutation($ds: ID!, $c: String!) { judgeDatasetEntries(input: {datasetId: $ds, criterionId: $c}) { id } }`, { ds, c: crit })).data
          .judgeDatasetEntries.id,
      );
      const failing = (
        await q(`query($ds: ID!, $c: String!) { dataset(id: $ds) { entries(verdict: {criterionId: $c, judgement: "FAIL"}) { edges { node { id } } } } }`, {
          ds,
          c: crit,
        })
      ).data.dataset.entries.edges;
      expect(failing).toHaveLength(10);
      // Relabel the bad answers with a better model, then judge again: everything passes.
      await wait(
        (
          await q(`mutation($ds: ID!, $c: String!) { relabelDatasetEntries(input: {datasetId: $ds, criterionId: $c, model: "gpt-4o-relabel"}) { id } }`, {
            ds,
            c: crit,
          })
        ).data.relabelDatasetEntries.id,
      );
      await wait(
        (await q(`mutation($ds: ID!, $c: String!) { judgeDatasetEntries(input: {datasetId: $ds, criterionId: $c}) { id } }`, { ds, c: crit })).data
          .judgeDatasetEntries.id,
      );
      const stillFailing = (
        await q(`query($ds: ID!, $c: String!) { dataset(id: $ds) { entries(verdict: {criterionId: $c, judgement: "FAIL"}) { edges { node { id } } } } }`, {
          ds,
          c: crit,
        })
      ).data.dataset.entries.edges;
      expect(stillFailing).toHaveLength(0);

      const model = await call<ModelOut>("POST", "/api/v1/models", {
        datasetId: ds,
        slug: "support-ft",
        excludeFailing: [crit],
        trainingConfig: { provider: "openai", baseModel: "gpt-4o-mini-2024-07-18" },
      });
      expect(model.hone.status).toBe("PENDING");
      await waitForModelStatus(loop, "support-ft", ["DEPLOYED"], { timeoutMs: 20_000 });
      expect((await call<ModelOut>("GET", "/api/v1/models/support-ft")).hone.status).toBe("DEPLOYED");
      const trained = [...trainer.files.values()]
        .at(-1)!
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l).messages[1].content);
      expect(trained.every((c: string) => c.startsWith("good:"))).toBe(true);

      const ev = (
        await q(
          `mutation($ds: ID!, $c: [String!]!) { createEvaluation(input: {datasetId: $ds, models: ["gpt-4o-mini", "hone:support-ft"], criterionIds: $c}) { id } }`,
          { ds, c: [crit] },
        )
      ).data.createEvaluation;
      const EVAL_RESULT = `query($id: ID!) { evaluation(id: $id) { status summary { model passRate } headToHead(modelA: "hone:support-ft", modelB: "gpt-4o-mini") { aWins bWins } } }`;
      const result = await waitFor(async () => (await q(EVAL_RESULT, { id: ev.id })).data.evaluation, {
        until: (e) => e.status === "DONE",
        timeoutMs: 20_000,
        message: "the evaluation to finish",
      });
      expect(result.status).toBe("DONE");
      const rate = Object.fromEntries(result.summary.map((s: { model: string; passRate: number }) => [s.model, s.passRate]));
      expect(rate).toEqual({ "gpt-4o-mini": 0, "hone:support-ft": 1 });
      expect(result.headToHead.bWins).toBe(0);
      expect(result.headToHead.aWins).toBeGreaterThan(0);
    } finally {
      await w.stop();
      await loop.close();
      await trainer.stop();
    }
  }, 60_000);
});
