import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { asc, eq } from "drizzle-orm";
import { countTokens } from "gpt-tokenizer";
import { requestLogs } from "../../src/db/schema";
import { startJobs } from "../../src/background";
import type { Worker } from "../../src/background/worker";
import { createTestApp, storeProviderKey, type TestApp } from "../helpers/app";
import { createDataset, waitForModelStatus } from "../helpers/factories";
import { type FakeTrainer, startFakeTrainer } from "../helpers/fake-trainer";
import { gql, gqlData } from "../helpers/gql";

// Pruning rules: a system prompt every entry shares is removed from the training file, and from
// every request to the fine-tune trained with it before the request goes upstream (the fake
// trainer also serves the trained model's chat calls and records what it was sent).
let t: TestApp;
let trainer: FakeTrainer;
let worker: Worker;

const SYSTEM = `You are the support assistant of Acme. ${"Answer briefly, politely and only about Acme's products. ".repeat(20)}`;

beforeAll(async () => {
  trainer = startFakeTrainer();
  t = await createTestApp({ env: { OPENAI_BASE_URL: `${trainer.url}/v1`, HONE_JOB_POLL_MS: "20", HONE_FINETUNE_POLL_MS: "30" } });
  await storeProviderKey(t, "openai", "sk-prune-0001");
  worker = startJobs(t.deps);
});
afterAll(async () => {
  await worker.stop();
  await trainer.stop();
  await t.close();
});

const entry = (q: string, a: string) => ({
  messages: [
    { role: "system", content: SYSTEM },
    { role: "user", content: q },
    { role: "assistant", content: a },
  ],
  split: "TRAIN" as const,
});

describe("pruning rules", () => {
  let ds: string;
  let ruleId: string;

  test("the rule's text leaves the training file; the tokens saved are on the model", async () => {
    ds = await createDataset(t, { name: "acme", entries: [entry("q1", "a1"), entry("q2", "a2"), entry(`q3 ${SYSTEM.slice(0, 37)}`, "a3")] });
    const rule = await gqlData(t, `mutation($ds: ID!, $text: String!) { createPruningRule(input: {datasetId: $ds, text: $text}) { id datasetId text } }`, {
      ds,
      text: SYSTEM,
    });
    ruleId = rule.createPruningRule.id;
    expect(rule.createPruningRule).toMatchObject({ datasetId: ds, text: SYSTEM });
    expect((await gqlData(t, `query($ds: ID!) { dataset(id: $ds) { pruningRules { id } } }`, { ds })).dataset.pruningRules).toEqual([{ id: ruleId }]);

    await gqlData(
      t,
      `mutation($ds: ID!) { createModel(input: {datasetId: $ds, slug: "acme-pruned", trainingConfig: {provider: "openai", baseModel: "gpt-4.1-mini-2025-04-14"}}) { slug } }`,
      { ds },
    );
    await waitForModelStatus(t, "acme-pruned", ["DEPLOYED"]);
    const job = [...trainer.jobs.values()].find((j) => j.suffix === "acme-pruned")!;
    const lines = trainer.files
      .get(job.fileId)!
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { messages: { role: string; content: unknown }[] });
    expect(lines).toHaveLength(3);
    // The system message held only the rule's text: it is gone; the rest is as it was.
    expect(lines.map((l) => l.messages.map((m) => m.role))).toEqual([
      ["user", "assistant"],
      ["user", "assistant"],
      ["user", "assistant"],
    ]);
    expect(JSON.stringify(lines)).not.toContain("only about Acme");
    expect(lines[2]!.messages[0]!.content).toBe(`q3 ${SYSTEM.slice(0, 37)}`);
    const model = (await gqlData(t, `{ model(slug: "acme-pruned") { pruningRules prunedTokens } }`)).model;
    expect(model.pruningRules).toEqual([SYSTEM]);
    expect(model.prunedTokens).toBe(3 * countTokens(SYSTEM));
  });

  test("requests to the fine-tune lose the text before they go upstream, in any message but the answers", async () => {
    const call = async (messages: unknown[]) => {
      // Logged when asked (a fine-tune's calls are, by OpenPipe's rule): the log carries what pruning saved.
      const res = await t.request("POST", "/api/v1/chat/completions", { body: { model: "hone:acme-pruned", messages, hone: { logRequest: true } } });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      return trainer.chats.at(-1)!.messages as { role: string; content: unknown }[];
    };
    expect(
      await call([
        { role: "system", content: SYSTEM },
        { role: "user", content: "hello" },
      ]),
    ).toEqual([{ role: "user", content: "hello" }]);
    expect(
      await call([
        { role: "system", content: `${SYSTEM}Today is Monday.` },
        { role: "user", content: [{ type: "text", text: `before ${SYSTEM} after` }] },
        { role: "assistant", content: `quoting ${SYSTEM}` },
        { role: "user", content: "and?" },
      ]),
    ).toEqual([
      { role: "system", content: "Today is Monday." },
      { role: "user", content: [{ type: "text", text: "before  after" }] },
      { role: "assistant", content: `quoting ${SYSTEM}` },
      { role: "user", content: "and?" },
    ]);
    // Other models are never pruned.
    const other = await t.request("POST", "/api/v1/chat/completions", {
      body: {
        model: "gpt-4o-mini",
        messages: [
          { role: "system", content: SYSTEM },
          { role: "user", content: "x" },
        ],
      },
    });
    expect(other.status).toBe(200);
    expect(trainer.chats.at(-1)!.messages[0]!.content).toBe(SYSTEM);

    // The tokens saved at serving: on each call's log (the rule's tokens per occurrence removed), and summed in the model's usage.
    await t.deps.logWriter.flush();
    const rows = await t.deps.database.db
      .select({ model: requestLogs.model, pruned: requestLogs.prunedTokens })
      .from(requestLogs)
      .where(eq(requestLogs.projectId, t.project.projectId))
      .orderBy(asc(requestLogs.id));
    const perRule = countTokens(SYSTEM);
    expect(rows.map((r) => [r.model, r.pruned])).toEqual([
      ["hone:acme-pruned", perRule],
      ["hone:acme-pruned", 2 * perRule],
      ["openai:gpt-4o-mini", null],
    ]);
    const usage = await gqlData<{ modelUsage: { days: number; requests: number; prunedTokens: number } }>(
      t,
      `{ modelUsage(slug: "acme-pruned") { days requests prunedTokens } }`,
    );
    expect(usage.modelUsage).toEqual({ days: 30, requests: 2, prunedTokens: 3 * perRule });
    expect((await gql(t, `{ modelUsage(slug: "nope") { requests } }`)).errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
    expect((await gql(t, `{ modelUsage(slug: "acme-pruned", days: 400) { requests } }`)).errors?.[0]?.extensions?.code).toBe("VALIDATION");
  });

  test("a deleted rule stays with the models trained with it; bad input and other projects", async () => {
    expect((await gqlData(t, `mutation($id: ID!) { deletePruningRule(id: $id) }`, { id: ruleId })).deletePruningRule).toBe(ruleId);
    const res = await t.request("POST", "/api/v1/chat/completions", {
      body: {
        model: "hone:acme-pruned",
        messages: [
          { role: "system", content: SYSTEM },
          { role: "user", content: "still" },
        ],
      },
    });
    expect(res.status).toBe(200);
    expect(trainer.chats.at(-1)!.messages).toEqual([{ role: "user", content: "still" }]);

    const empty = await gql(t, `mutation($ds: ID!) { createPruningRule(input: {datasetId: $ds, text: ""}) { id } }`, { ds });
    expect(empty.errors?.[0]?.extensions?.code).toBe("VALIDATION");
    const missing = await gql(t, `mutation { createPruningRule(input: {datasetId: "ds_nope", text: "x"}) { id } }`);
    expect(missing.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
    for (let i = 0; i < 20; i++)
      await gqlData(t, `mutation($ds: ID!, $x: String!) { createPruningRule(input: {datasetId: $ds, text: $x}) { id } }`, { ds, x: `rule ${i}` });
    const tooMany = await gql(t, `mutation($ds: ID!) { createPruningRule(input: {datasetId: $ds, text: "one more"}) { id } }`, { ds });
    expect(tooMany.errors?.[0]?.extensions?.code).toBe("VALIDATION");
    const other = await t.createProject("other");
    const theirs = await gql(t, `query($ds: ID!) { pruningRules(datasetId: $ds) { id } }`, { ds }, { key: other.apiKey });
    expect(theirs.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
    const rules = await gqlData(t, `query($ds: ID!) { pruningRules(datasetId: $ds) { id } }`, { ds });
    const del = await gql(t, `mutation($id: ID!) { deletePruningRule(id: $id) }`, { id: rules.pruningRules[0].id }, { key: other.apiKey });
    expect(del.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
  });
});
