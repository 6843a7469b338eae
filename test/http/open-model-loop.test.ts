import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startJobs } from "../../src/background";
import type { Worker } from "../../src/background/worker";
import { createTestApp, storeProviderKey, type TestApp, type TestProject } from "../helpers/app";
import { createCriterion, createDataset, qa } from "../helpers/factories";
import { type FakeUpstream, startFakeOpenAI } from "../helpers/fake-upstreams";
import { gql, gqlData } from "../helpers/gql";
import { latestLog, logsOf } from "../helpers/logs";
import { rest } from "../helpers/rest";
import { deployedTrainerModel, trainerCall } from "../helpers/trainer-jobs";
import { trpcClient } from "../helpers/trpc";
import { waitFor } from "../helpers/wait-for";

// The loop on an open model trained by Hone's own trainer, at the API level: an adapter taken to
// DEPLOYED through the trainer API, served by a vLLM server (a custom provider of kind vllm whose
// sync reported it loaded), is called through the gateway and logged at the project's price,
// evaluated against its base model (called through the same server) by an LLM judge, and rolled
// out by a route; keys that may not call it (another project's, one whose allowed models leave it
// out) reach nothing. The vLLM server and the judge are the fake OpenAI upstream: it answers
// "echo: <question>" for any model name, and its judge fails a prompt containing "wrong".

const BASE = "meta-llama/Llama-3.2-1B-Instruct";
const SLUG = "quimby";
const PROVIDER = "gpu-1";
/** The base model as the custom provider's server calls it (vLLM serves the base by its path). */
const BASE_VIA_SERVER = `hone:${PROVIDER}/${BASE}`;
const ROUTE = "support";
// $1 per million input tokens, $2 per million output: the fake reports 11 in and 7 out per call.
const RATES = { input_mtok: 1, output_mtok: 2 };
const CALL_COST = (11 * 1 + 7 * 2) / 1e6;

let t: TestApp;
let fake: FakeUpstream;
let worker: Worker;
let trainerKey: string;
/** The adapter's LoRA name on the server: the trainer job's (and model's) id. */
let loraName: string;

const trainer = <T>(method: string, path: string, body?: unknown) => trainerCall<T>(t, trainerKey, method, path, body);
const deployed = (slug: string) => deployedTrainerModel(t, trainerKey, slug, BASE);

/** A gateway call, logged (a fine-tune's calls are logged when the client asks: OpenPipe's rule). */
const ask = (model: string, q: string, key?: string) =>
  t.request("POST", "/api/v1/chat/completions", {
    body: { model, messages: [{ role: "user", content: q }] },
    key,
    headers: { "op-log-request": "true" },
  });
/** The chat calls (not judge calls) the fake received since `from`, by the model it was asked for. */
const chatsSince = (from: number) => fake.requests.slice(from).filter((r) => r.path.endsWith("/chat/completions") && !r.body.tools);

async function keyFor(p: TestProject, input: Record<string, unknown>): Promise<string> {
  const r = await gqlData<{ createApiKey: { apiKey: string } }>(
    t,
    `mutation ($input: CreateApiKeyInput) { createApiKey(input: $input) { apiKey } }`,
    { input },
    { key: p.apiKey },
  );
  return r.createApiKey.apiKey;
}

beforeAll(async () => {
  fake = startFakeOpenAI();
  t = await createTestApp({
    env: {
      HONE_ALLOW_PRIVATE_UPSTREAMS: "true",
      OPENAI_BASE_URL: `${fake.url}/v1`,
      HONE_JOB_POLL_MS: "20",
      HONE_EVAL_CONCURRENCY: "4",
      HONE_API_KEY_CACHE_MS: "0",
    },
  });
  // The judge is an OpenAI model (openai:judge): the project's OpenAI key is stored.
  await storeProviderKey(t, "openai", "sk-judge-0001");
  trainerKey = (await trpcClient(t).apiKeys.create.mutate({ name: "sync", scopes: ["trainer"] })).apiKey;
  loraName = await deployed(SLUG);
  await gqlData(t, `mutation ($input: CreateCustomProviderInput!) { createCustomProvider(input: $input) { id } }`, {
    input: { slug: PROVIDER, kind: "vllm", baseUrl: `${fake.url}/v1`, baseModel: BASE },
  });
  // `hone-trainer sync` beside the server reports the base and the adapter loaded.
  const loaded = await trainer<{ provider: { slug: string }; adapters: { name: string; slug: string }[] }>("POST", "/serving", {
    vllmUrl: fake.url,
    served: [
      { id: BASE, root: BASE, parent: null },
      { id: loraName, root: `/adapters/${loraName}`, parent: BASE },
    ],
  });
  expect(loaded.status).toBe(200);
  expect(loaded.body.provider.slug).toBe(PROVIDER);
  expect(loaded.body.adapters.map((a) => [a.name, a.slug])).toEqual([[loraName, SLUG]]);
  await gqlData(t, `mutation ($input: CreatePriceOverrideInput!) { createPriceOverride(input: $input) { id } }`, {
    input: { model: `hone:${SLUG}`, rates: RATES },
  });
  worker = startJobs(t.deps);
});
afterAll(async () => {
  await worker.stop();
  await fake.stop();
  await t.close();
});

/** The route's one group: the adapter at `adapter`% (version "adapter"), the base at the rest (version "base"). */
const routeGroups = (adapter: number) => [
  {
    targets: [
      { model: `hone:${SLUG}`, weight: adapter, version: "adapter" },
      { model: BASE_VIA_SERVER, weight: 100 - adapter, version: "base" },
    ],
  },
];
const splitRoute = (adapter: number) =>
  gqlData(t, `mutation ($input: UpdateRouteInput!) { updateRoute(input: $input) { slug } }`, { input: { slug: ROUTE, groups: routeGroups(adapter) } });

describe("an open model trained by Hone's trainer, served by vLLM", () => {
  test("the deployed adapter is called through the gateway as hone:<slug>: sent to the server by its LoRA name, logged, priced by the project's rates", async () => {
    expect((await rest(t).ok("GET /models/:modelSlug", { params: { modelSlug: SLUG } })).hone.status).toBe("DEPLOYED");
    const before = fake.requests.length;
    const res = await ask(`hone:${SLUG}`, "capital?");
    expect(res.status).toBe(200);
    const body = (await res.json()) as { model: string; choices: { message: { content: string } }[] };
    expect(body.model).toBe(`hone:${SLUG}`);
    expect(body.choices[0]!.message.content).toBe("echo: capital?");
    expect(chatsSince(before).map((r) => [r.path, r.body.model])).toEqual([["/v1/chat/completions", loraName]]);
    const log = await latestLog(t);
    expect(log).toMatchObject({ model: `hone:${SLUG}`, statusCode: 200, inputTokens: 11, outputTokens: 7 });
    expect(log.costUsd).toBeCloseTo(CALL_COST, 12);
  });

  test("evaluated against its base model (through the same server) with an LLM judge: both models judged on every TEST entry", async () => {
    const datasetId = await createDataset(t, {
      name: "eval",
      entries: [qa("capital of France", "Paris", "TEST"), qa("a wrong question", "no", "TEST"), qa("capital of Peru", "Lima", "TEST"), qa("train only", "x")],
    });
    const crit = await createCriterion(t, { name: "good", judgeModel: "openai:judge", prompt: "Is this a good answer? {{output}}" });
    const before = fake.requests.length;
    const created = await gqlData<{ createEvaluation: { id: string; status: string; progress: { total: number } } }>(
      t,
      `mutation ($ds: ID!, $m: [String!]!, $c: [String!]!) { createEvaluation(input: {datasetId: $ds, models: $m, criterionIds: $c}) { id status progress { total } } }`,
      { ds: datasetId, m: [`hone:${SLUG}`, BASE_VIA_SERVER], c: [crit.id] },
    );
    expect(created.createEvaluation).toMatchObject({ status: "QUEUED", progress: { total: 6 } });
    const id = created.createEvaluation.id;
    type Summary = {
      model: string;
      criterionId: string;
      passRate: number | null;
      judged: number;
      judgeErrors: number;
      outputErrors: number;
      costUsd: number | null;
      unpricedCalls: number;
    };
    const ev = await waitFor(
      async () =>
        (
          await gqlData<{ evaluation: { status: string; progress: { done: number; total: number }; summary: Summary[] } }>(
            t,
            `query ($id: ID!) { evaluation(id: $id) { status progress { done total } summary { model criterionId passRate judged judgeErrors outputErrors costUsd unpricedCalls } } }`,
            { id },
          )
        ).evaluation,
      {
        until: (e) => e.status === "DONE" || e.status === "ERROR" || e.status === "CANCELLED",
        timeoutMs: 15_000,
        message: (e) => `evaluation to end (${JSON.stringify(e)})`,
      },
    );
    expect(ev.status).toBe("DONE");
    expect(ev.progress).toEqual({ done: 6, total: 6 });
    const byModel = Object.fromEntries(ev.summary.map((s) => [s.model, s]));
    // Each echoes the question: the judge fails the one that says "wrong".
    for (const m of [`hone:${SLUG}`, BASE_VIA_SERVER]) {
      expect(byModel[m]).toMatchObject({ criterionId: crit.id, judged: 3, judgeErrors: 0, outputErrors: 0 });
      expect(byModel[m]!.passRate).toBeCloseTo(2 / 3, 6);
    }
    // The adapter's outputs are priced by the project's rates; the base has no price: unknown, not $0.
    expect(byModel[`hone:${SLUG}`]!.costUsd).toBeCloseTo(3 * CALL_COST, 12);
    expect(byModel[`hone:${SLUG}`]!.unpricedCalls).toBe(0);
    expect(byModel[BASE_VIA_SERVER]).toMatchObject({ costUsd: null, unpricedCalls: 3 });

    type Result = { entryId: string; output: { role: string; content: string }; verdicts: Record<string, { status: string; passed?: boolean }> };
    for (const m of [`hone:${SLUG}`, BASE_VIA_SERVER]) {
      const r = await gqlData<{ evaluation: { results: Result[] } }>(
        t,
        `query ($id: ID!, $m: String!) { evaluation(id: $id) { results(model: $m) { entryId output verdicts } } }`,
        {
          id,
          m,
        },
      );
      expect(r.evaluation.results).toHaveLength(3);
      expect(r.evaluation.results.map((x) => x.output.content).sort()).toEqual(["echo: a wrong question", "echo: capital of France", "echo: capital of Peru"]);
      expect(r.evaluation.results.every((x) => x.verdicts[crit.id]?.status === "success")).toBe(true);
    }
    // The server was asked for the adapter by its LoRA name and for the base by its own name, three
    // times each, with the input only; the judge was called six times.
    const sent = chatsSince(before);
    expect(sent.filter((r) => r.body.model === loraName)).toHaveLength(3);
    expect(sent.filter((r) => r.body.model === BASE)).toHaveLength(3);
    expect(sent).toHaveLength(6);
    expect(sent.every((r) => r.body.messages!.length === 1 && r.body.messages![0]!.role === "user")).toBe(true);
    expect(fake.requests.slice(before).filter((r) => r.body.model === "judge")).toHaveLength(6);
  });

  test("rolled out by a route: the call goes to the adapter, and the log names the route, its version, the target and the adapter's price", async () => {
    const made = await gqlData<{ createRoute: { slug: string; groups: { targets: { model: string; weight: number; version: string }[] }[] } }>(
      t,
      `mutation ($input: CreateRouteInput!) { createRoute(input: $input) { slug groups { targets { model weight version } } } }`,
      { input: { slug: ROUTE, groups: routeGroups(100) } },
    );
    expect(made.createRoute.groups[0]!.targets.map((x) => [x.model, x.weight])).toEqual([
      [`hone:${SLUG}`, 100],
      [BASE_VIA_SERVER, 0],
    ]);
    const before = fake.requests.length;
    const res = await ask(`hone:${ROUTE}`, "routed?");
    expect(res.status).toBe(200);
    expect(((await res.json()) as { choices: { message: { content: string } }[] }).choices[0]!.message.content).toBe("echo: routed?");
    expect(chatsSince(before).map((r) => r.body.model)).toEqual([loraName]);
    const log = await latestLog(t);
    expect(log).toMatchObject({ model: `hone:${ROUTE}`, route: ROUTE, routeVersion: "adapter", statusCode: 200 });
    expect(log.attempts).toEqual([expect.objectContaining({ target: `hone:${SLUG}`, version: "adapter", next: "answered" })]);
    expect(log.costUsd).toBeCloseTo(CALL_COST, 12);

    // The other version, without a price: its figures say "no price" (null and counted), never $0.
    await splitRoute(0);
    expect((await ask(`hone:${ROUTE}`, "base?")).status).toBe(200);
    await t.deps.logWriter.flush();
    const stats = await gqlData<{ route: { stats: { version: string; requests: number; costUsd: number | null; unpricedCalls: number }[] } }>(
      t,
      `{ route(slug: "${ROUTE}") { stats { version requests costUsd unpricedCalls } } }`,
    );
    const byVersion = Object.fromEntries(stats.route.stats.map((s) => [s.version, s]));
    expect(byVersion.base).toEqual({ version: "base", requests: 1, costUsd: null, unpricedCalls: 1 });
    expect(byVersion.adapter!.unpricedCalls).toBe(0);
    expect(byVersion.adapter!.costUsd).toBeCloseTo(CALL_COST, 12);
    // Back to the adapter, for the tests that follow.
    await splitRoute(100);
  });

  test("another project's key cannot call this project's adapter nor its route: refused, nothing reaches the server", async () => {
    const other = await t.createProject("attacker");
    await storeProviderKey(t, "openai", "sk-attacker-0001", other.projectId);
    const before = fake.requests.length;
    for (const model of [`hone:${SLUG}`, `hone:${ROUTE}`, BASE_VIA_SERVER, `hone:${loraName}`]) {
      const res = await ask(model, "steal?", other.apiKey);
      expect({ model, status: res.status }).toEqual({ model, status: 404 });
    }
    expect(fake.requests.length).toBe(before);
    // Nothing was logged in this project for the attacker's calls.
    const mine = await logsOf(t);
    expect(mine.some((l) => JSON.stringify(l.body?.reqPayload ?? "").includes("steal?"))).toBe(false);
  });

  test("a key whose allowed models leave the adapter out is refused directly and through the route, before any call", async () => {
    const me = t.project;
    const openaiOnly = await keyFor(me, { name: "openai-only", scopes: ["gateway"], allowedModels: ["openai:*"] });
    const routeOnly = await keyFor(me, { name: "route-only", scopes: ["gateway"], allowedModels: [`hone:${ROUTE}`] });
    const before = fake.requests.length;

    const direct = await ask(`hone:${SLUG}`, "direct?", openaiOnly);
    expect(direct.status).toBe(403);
    expect(((await direct.json()) as { message: string }).message).toContain(`may not call the model hone:${SLUG}`);
    const viaRoute = await ask(`hone:${ROUTE}`, "via route?", openaiOnly);
    expect(viaRoute.status).toBe(403);
    // The route's name allowed, but not the targets it reaches: refused, naming them.
    const routeNamed = await ask(`hone:${ROUTE}`, "via route?", routeOnly);
    expect(routeNamed.status).toBe(403);
    const msg = ((await routeNamed.json()) as { message: string }).message;
    expect(msg).toContain(`hone:${SLUG}`);
    expect(msg).toContain(`hone:${ROUTE}`);
    expect((await ask(`hone:${SLUG}`, "direct?", routeOnly)).status).toBe(403);
    // Nor may it start an evaluation that would call it.
    const ev = await gql(
      t,
      `mutation { createEvaluation(input: {datasetId: "x", models: ["hone:${SLUG}"], criterionIds: ["y"]}) { id } }`,
      {},
      { key: openaiOnly },
    );
    expect(ev.errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
    expect(fake.requests.length).toBe(before);

    // The same key with the adapter allowed too reaches it through the route.
    const both = await keyFor(me, { name: "both", scopes: ["gateway"], allowedModels: [`hone:${ROUTE}`, `hone:${SLUG}`] });
    expect((await ask(`hone:${ROUTE}`, "allowed?", both)).status).toBe(200);
    expect(chatsSince(before).map((r) => r.body.model)).toEqual([loraName]);
  });
});
