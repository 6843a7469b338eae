import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, storeProviderKey, type TestApp } from "../helpers/app";
import { startJobs } from "../../src/background";
import type { Worker } from "../../src/background/worker";
import { createCriterion, createDataset, qa, waitForModelStatus } from "../helpers/factories";
import { type FakeTrainer, startFakeTrainer } from "../helpers/fake-trainer";
import { type FakeUpstream, startFakeOpenAI } from "../helpers/fake-upstreams";
import { gql, gqlData } from "../helpers/gql";
import { trpcClient } from "../helpers/trpc";
import { waitFor } from "../helpers/wait-for";

// Relabel runs (named, side by side with verdicts, accepted in part), preference data from its
// three sources (an accepted relabel, a person's edit, a judged best-of-N call), the preference
// export, and DPO fine-tunes on OpenAI and Together whose files the fake trainer checks line by
// line. The fake OpenAI upstream answers "echo: <question>"; its judge fails outputs with "wrong".
let t: TestApp;
let fake: FakeUpstream;
let trainer: FakeTrainer;
let front: ReturnType<typeof Bun.serve>;
let worker: Worker;

beforeAll(async () => {
  fake = startFakeOpenAI();
  trainer = startFakeTrainer();
  // One OpenAI base URL for both: chat and judges go to the fake upstream, files and fine-tuning jobs to the fake trainer.
  front = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: (req) => {
      const url = new URL(req.url);
      const to = /^\/v1\/(files|fine_tuning|fine-tunes)/.test(url.pathname) ? trainer.url : fake.url;
      return fetch(`${to}${url.pathname}${url.search}`, { method: req.method, headers: req.headers, body: req.body, duplex: "half" } as RequestInit);
    },
  });
  t = await createTestApp({
    env: {
      OPENAI_BASE_URL: `http://127.0.0.1:${front.port}/v1`,
      TOGETHER_BASE_URL: `${trainer.url}/v1`,
      HONE_JOB_POLL_MS: "20",
      HONE_FINETUNE_POLL_MS: "30",
      HONE_MONITOR_POLL_MS: "20",
    },
  });
  await storeProviderKey(t, "openai", "sk-relabel-0001");
  await storeProviderKey(t, "together", "tg-relabel-0001");
  worker = startJobs(t.deps);
});
afterAll(async () => {
  await worker.stop();
  front.stop(true);
  await fake.stop();
  await trainer.stop();
  await t.close();
});

const RUN = `id name model criteria status progress { done total } accepted rejected undecided failed costUsd`;
const createRun = (input: Record<string, unknown>) =>
  gql(t, `mutation($input: CreateRelabelRunInput!) { createRelabelRun(input: $input) { ${RUN} } }`, { input });
const runOf = async (id: string) => (await gqlData(t, `query($id: ID!) { relabelRun(id: $id) { ${RUN} } }`, { id })).relabelRun;
const waitDone = (id: string) =>
  waitFor(
    async () => {
      const r = await runOf(id);
      return r.status === "DONE" ? r : null;
    },
    { timeoutMs: 30_000 },
  );
type Msg = { role: string; content: string };
type Verdict = { criterionId: string; judgement: string; explanation: string };
/** A relabel run's output as outputsOf reads it. */
type RelabelOutput = {
  entryId: string;
  input: Msg[];
  current: Msg | null;
  proposed: Msg | null;
  error: string | null;
  decision: string | null;
  stale: boolean;
  currentVerdicts: Verdict[];
  proposedVerdicts: Verdict[];
};
/** A dataset entry as `entries` reads it (ENTRY). */
type Entry = {
  id: string;
  messages: Msg[];
  originalMessages: Msg[] | null;
  relabeledBy: string | null;
  rejectedOutputs: { message: Msg; source: string; ref: string; at: string }[];
  verdicts: { criterionId: string; judgement: string }[];
};
/** The entries' first user texts (their questions). */
type Question = "q1" | "q2" | "q3" | "q4" | "best of three";
const outputsOf = async (id: string, decision?: string) =>
  (
    await gqlData<{ relabelRun: { outputs: { outputs: RelabelOutput[] } } }>(
      t,
      `query($id: ID!, $d: String) { relabelRun(id: $id) { outputs(first: 100, decision: $d) { outputs { entryId input current proposed error decision stale
        currentVerdicts { criterionId judgement explanation } proposedVerdicts { criterionId judgement explanation } } } } }`,
      { id, d: decision ?? null },
    )
  ).relabelRun.outputs.outputs;
const ENTRY = `id messages originalMessages relabeledBy rejectedOutputs verdicts { criterionId judgement }`;
async function entries(ds: string): Promise<Record<Question, Entry>> {
  const r = await gqlData<{ dataset: { entries: { edges: { node: Entry }[] } } }>(
    t,
    `query($id: ID!) { dataset(id: $id) { entries(first: 100) { edges { node { ${ENTRY} } } } } }`,
    { id: ds },
  );
  return Object.fromEntries(r.dataset.entries.edges.map((e) => [e.node.messages[0]!.content, e.node])) as Record<Question, Entry>;
}

describe("relabel runs and preference data", () => {
  let ds: string;
  let crit: string;
  let byQ: Record<Question, Entry>;

  test("a named run proposes outputs judged beside the current ones; accepted in part, the rest rejected", async () => {
    ds = await createDataset(t, {
      name: "support",
      entries: [qa("q1", "a wrong answer"), qa("q2", "a fine answer"), qa("q3", "wrong again"), qa("q4", "good one")],
    });
    crit = (await createCriterion(t, { name: "right", judgeModel: "openai:gpt-4o-mini", prompt: "Right? {{output}}" })).id;
    const created = await createRun({ datasetId: ds, name: "stronger model", model: "gpt-4o-mini", criterionIds: [crit] });
    expect(created.errors).toBeUndefined();
    const run = created.data.createRelabelRun;
    expect(run).toMatchObject({ name: "stronger model", model: "gpt-4o-mini", criteria: [`${crit}@v1`], progress: { total: 4 } });
    const done = await waitDone(run.id);
    expect(done).toMatchObject({ progress: { done: 4, total: 4 }, undecided: 4, accepted: 0, failed: 0 });
    expect(done.costUsd).toBeGreaterThan(0);
    // Nothing changed in the dataset yet.
    byQ = await entries(ds);
    expect(byQ.q1.messages[1]!.content).toBe("a wrong answer");

    const side = await outputsOf(run.id);
    expect(side).toHaveLength(4);
    const q1 = side.find((o) => o.input[0]!.content === "q1");
    expect(q1).toMatchObject({
      current: { role: "assistant", content: "a wrong answer" },
      proposed: { role: "assistant", content: "echo: q1" },
      decision: null,
      stale: false,
      currentVerdicts: [{ criterionId: `${crit}@v1`, judgement: "FAIL" }],
      proposedVerdicts: [{ criterionId: `${crit}@v1`, judgement: "PASS" }],
    });
    // The model and judge calls were Hone's own, of kind relabel.
    await t.deps.logWriter.flush();
    const internal = await gqlData(t, `{ logs(first: 50, filter: {internalKind: "relabel"}) { edges { node { id } } } }`);
    expect(internal.logs.edges.length).toBe(4 + 8);

    // Accept the two that failed; reject the rest.
    const failing = side.filter((o) => o.currentVerdicts[0]!.judgement === "FAIL").map((o) => o.entryId);
    expect(failing).toHaveLength(2);
    const accepted = await gqlData(t, `mutation($id: ID!, $e: [ID!]) { acceptRelabelOutputs(id: $id, entryIds: $e) { accepted rejected stale } }`, {
      id: run.id,
      e: failing,
    });
    expect(accepted.acceptRelabelOutputs).toEqual({ accepted: 2, rejected: 0, stale: 0 });
    const rest = await gqlData(t, `mutation($id: ID!) { rejectRelabelOutputs(id: $id) { rejected } }`, { id: run.id });
    expect(rest.rejectRelabelOutputs.rejected).toBe(2);
    expect(await runOf(run.id)).toMatchObject({ accepted: 2, rejected: 2, undecided: 0 });

    byQ = await entries(ds);
    expect(byQ.q1.messages[1]).toEqual({ role: "assistant", content: "echo: q1" });
    expect(byQ.q1.originalMessages![1]!.content).toBe("a wrong answer");
    expect(byQ.q1.relabeledBy).toBe("stronger model (gpt-4o-mini)");
    expect(byQ.q1.rejectedOutputs).toEqual([
      { message: { role: "assistant", content: "a wrong answer" }, source: "relabel", ref: run.id, at: expect.any(String) },
    ]);
    // The proposal's verdict became the entry's.
    expect(byQ.q1.verdicts).toEqual([{ criterionId: crit, judgement: "PASS" }]);
    expect(byQ.q2.messages[1]!.content).toBe("a fine answer");
    expect(byQ.q2.rejectedOutputs).toEqual([]);
  });

  test("several runs coexist; an entry edited after a run read it is not overwritten; a person's edit keeps the old answer as rejected", async () => {
    const run2 = (await createRun({ datasetId: ds, model: "gpt-4o", entryIds: [byQ.q2.id, byQ.q4.id] })).data.createRelabelRun;
    expect(run2.name).toBe("gpt-4o");
    await waitDone(run2.id);
    const listed = await gqlData(t, `query($ds: ID!) { relabelRuns(datasetId: $ds) { id } }`, { ds });
    expect(listed.relabelRuns.length).toBe(2);

    // A person edits q2's answer in the console (tRPC) after the run read it.
    await trpcClient(t).datasets.updateEntry.mutate({
      datasetId: ds,
      entryId: byQ.q2.id,
      messages: [
        { role: "user", content: "q2" },
        { role: "assistant", content: "a better answer, by hand" },
      ],
    });
    const stale = (await outputsOf(run2.id)).find((o) => o.entryId === byQ.q2.id)!;
    expect(stale.stale).toBe(true);
    const r = await gqlData(t, `mutation($id: ID!) { acceptRelabelOutputs(id: $id) { accepted stale } }`, { id: run2.id });
    expect(r.acceptRelabelOutputs).toEqual({ accepted: 1, stale: 1 });
    byQ = await entries(ds);
    expect(byQ.q2.messages[1]!.content).toBe("a better answer, by hand");
    expect(byQ.q2.rejectedOutputs).toEqual([
      { message: { role: "assistant", content: "a fine answer" }, source: "edit", ref: expect.stringMatching(/^key key_/), at: expect.any(String) },
    ]);
    expect(byQ.q4.messages[1]!.content).toBe("echo: q4");
    expect(byQ.q4.rejectedOutputs[0]).toMatchObject({ source: "relabel", ref: run2.id });
  });

  test("a judged best-of-N call imported from the logs brings its losers as rejected outputs", async () => {
    const choice = (i: number, content: string, score: number) => ({
      index: i,
      message: { role: "assistant", content },
      finish_reason: "stop",
      criteria_results: { [crit]: { status: "success", score, explanation: score ? "fine" : "wrong" } },
    });
    const res = await t.request("POST", "/api/v1/report", {
      body: {
        requestedAt: Date.now(),
        receivedAt: Date.now(),
        statusCode: 200,
        reqPayload: { model: "gpt-4o-mini", n: 3, messages: [{ role: "user", content: "best of three" }] },
        respPayload: {
          id: "chatcmpl-bon",
          object: "chat.completion",
          model: "gpt-4o-mini",
          choices: [choice(1, "the best", 1), choice(0, "worse", 0), choice(2, "also worse", 0)],
        },
        tags: { kind: "bon" },
      },
    });
    expect(res.status).toBe(200);
    await t.deps.logWriter.flush();
    const imported = await gqlData(
      t,
      `mutation($ds: ID!) { importLogsToDataset(input: {datasetId: $ds, filter: {metadata: [{key: "kind", equals: "bon"}]}}) { entriesCreated } }`,
      { ds },
    );
    expect(imported.importLogsToDataset.entriesCreated).toBe(1);
    byQ = await entries(ds);
    expect(byQ["best of three"].messages.at(-1)!.content).toBe("the best");
    expect(byQ["best of three"].rejectedOutputs.map((r) => [r.source, r.message.content])).toEqual([
      ["best-of-n", "worse"],
      ["best-of-n", "also worse"],
    ]);
  });

  test("the preference export: OpenAI's DPO lines, one per rejected output", async () => {
    const res = await t.request("GET", `/api/v1/datasets/${ds}/export?format=preference`);
    expect(res.status).toBe(200);
    const lines = (await res.text())
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    // q1 and q3 (relabel), q2 (edit), q4 (relabel), best of three (2 losers).
    expect(lines.length).toBe(6);
    const q1 = lines.find((l) => l.input.messages[0].content === "q1");
    expect(q1).toEqual({
      input: { messages: [{ role: "user", content: "q1" }] },
      preferred_output: [{ role: "assistant", content: "echo: q1" }],
      non_preferred_output: [{ role: "assistant", content: "a wrong answer" }],
    });
    const bad = await t.request("GET", `/api/v1/datasets/${ds}/export?format=dpo`);
    expect(bad.status).toBe(400);
  });

  test("DPO fine-tunes on OpenAI and Together: the trainer accepts the preference file line by line", async () => {
    const created = await gqlData(
      t,
      `mutation($ds: ID!) { createModel(input: {datasetId: $ds, slug: "support-dpo", method: "dpo", beta: 0.2,
        trainingConfig: {provider: "openai", baseModel: "gpt-4.1-mini-2025-04-14"}}) { slug method dpoBeta status } }`,
      { ds },
    );
    expect(created.createModel).toMatchObject({ method: "dpo", dpoBeta: 0.2 });
    await waitForModelStatus(t, "support-dpo", ["DEPLOYED"]);
    const job = [...trainer.jobs.values()].find((j) => j.suffix === "support-dpo")!;
    expect(job.body.method).toEqual({ type: "dpo", dpo: { hyperparameters: { beta: 0.2 } } });
    const file = trainer.files.get(job.fileId)!.trim().split("\n");
    // TRAIN entries only (the imported best-of-N entry's split was drawn at random): the TRAIN export's lines.
    const train = (await (await t.request("GET", `/api/v1/datasets/${ds}/export?format=preference&split=TRAIN`)).text()).trim().split("\n");
    expect(train.length).toBeGreaterThanOrEqual(4);
    expect(file).toEqual(train);

    // Together, through REST (the trainer checks its training_method and file the same way).
    const res = await t.request("POST", "/api/v1/models", {
      body: { datasetId: ds, slug: "support-dpo-tg", method: "dpo", trainingConfig: { provider: "together", baseModel: "Qwen/Qwen2.5-7B-Instruct" } },
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { hone: unknown }).hone).toMatchObject({ method: "dpo", dpoBeta: null });
    await waitForModelStatus(t, "support-dpo-tg", ["DEPLOYED"]);
    const tg = [...trainer.jobs.values()].find((j) => j.suffix === "support-dpo-tg")!;
    expect(tg.body.training_method).toEqual({ method: "dpo" });

    // Training curves from the backends' events: OpenAI's metrics events and checkpoints, Together's progress events.
    const CURVE = `query($slug: String!) { model(slug: $slug) { trainingCurve { step trainLoss validLoss } checkpoints { id step model trainLoss validLoss } } }`;
    const oa = (await gqlData(t, CURVE, { slug: "support-dpo" })).model;
    expect(oa.trainingCurve.map((p: { step: number }) => p.step)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(oa.trainingCurve[0]).toEqual({ step: 1, trainLoss: 2, validLoss: null });
    expect(oa.trainingCurve[4]).toEqual({ step: 5, trainLoss: 0.894, validLoss: 0.984 });
    expect(oa.checkpoints).toEqual([
      { id: `ftckpt-${job.id}-10`, step: 10, model: expect.stringContaining("ckpt-step-10"), trainLoss: 0.632, validLoss: 0.696 },
    ]);
    const together = (await gqlData(t, CURVE, { slug: "support-dpo-tg" })).model;
    expect(together.trainingCurve.length).toBe(10);
    expect(together.trainingCurve[9]).toEqual({ step: 10, trainLoss: 0.632, validLoss: 0.696 });
    expect(together.checkpoints).toEqual([{ id: "acct/ckpt-10", step: 10, model: "acct/ckpt-10", trainLoss: 0.632, validLoss: 0.696 }]);

    // The same file as a supervised job would be refused by the trainer: the check can fail.
    const { checkTrainingFile } = await import("../helpers/fake-trainer");
    expect(checkTrainingFile(trainer.files.get(job.fileId)!, "sft")).toContain("line 1");

    // A dataset without preference pairs, and beta on a supervised fine-tune: 400s naming the field.
    const plain = await createDataset(t, { name: "plain", entries: [qa("x", "y")] });
    const noPairs = await gql(
      t,
      `mutation($ds: ID!) { createModel(input: {datasetId: $ds, slug: "nope", method: "dpo", trainingConfig: {provider: "openai", baseModel: "gpt-4.1-mini-2025-04-14"}}) { slug } }`,
      { ds: plain },
    );
    expect(noPairs.errors?.[0]?.extensions?.code).toBe("VALIDATION");
    expect(noPairs.errors?.[0]?.message).toContain("rejected output");
    const betaSft = await t.request("POST", "/api/v1/models", {
      body: { datasetId: plain, slug: "nope2", beta: 0.1, trainingConfig: { provider: "openai", baseModel: "gpt-4.1-mini-2025-04-14" } },
    });
    expect(betaSft.status).toBe(400);
    expect(JSON.stringify(await betaSft.json())).toContain("beta");
  });

  test("relabel runs: bad input is a 400, unknown ids 404, other projects see nothing", async () => {
    expect((await createRun({ datasetId: ds, model: "" })).errors?.[0]?.extensions?.code).toBe("VALIDATION");
    expect((await createRun({ datasetId: ds, model: "nosuch:model" })).errors?.[0]?.extensions?.code).toBe("VALIDATION");
    expect((await createRun({ datasetId: "ds_missing", model: "gpt-4o" })).errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
    expect((await createRun({ datasetId: ds, model: "gpt-4o", criterionIds: ["crit_missing"] })).errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
    const other = await t.createProject("other");
    const mine = (await gqlData(t, `query($ds: ID!) { relabelRuns(datasetId: $ds) { id } }`, { ds })).relabelRuns[0].id;
    const seen = await gql(t, `query($id: ID!) { relabelRun(id: $id) { id } }`, { id: mine }, { key: other.apiKey });
    expect(seen.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
    const acc = await gql(t, `mutation($id: ID!) { acceptRelabelOutputs(id: $id) { accepted } }`, { id: mine }, { key: other.apiKey });
    expect(acc.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
    expect((await gqlData(t, `{ relabelRuns { id } }`, {}, { key: other.apiKey })).relabelRuns).toEqual([]);
  });
});
