import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../helpers/app";
import { startFakeOpenAI, type FakeUpstream } from "../helpers/fake-upstreams";
import { gql } from "../helpers/gql";
import { latestLog } from "../helpers/logs";
import { ADAPTER_CONFIG, ADAPTER_WEIGHTS, deployedTrainerModel, sha256, trainerCall } from "../helpers/trainer-jobs";
import { trpcClient, trpcFailure } from "../helpers/trpc";

// Serving the adapters of Hone's trainers: a vLLM server is a custom provider of kind vllm naming
// its base model; `hone-trainer sync` beside it reports what it has loaded (POST
// /api/v1/trainer/serving) and fetches the adapters it should hold; the gateway sends hone:<slug>
// to a server whose fresh report lists it. The vLLM here is the fake OpenAI upstream (it answers
// for any model name); test/e2e/trainer-work.test.ts runs the real sync and server.

const BASE = "meta-llama/Llama-3.2-1B-Instruct";
let t: TestApp;
let vllm: FakeUpstream;
let offsetMs = 0;
let trainerKey: string;
let modelId: string;
const sha = sha256;
const CONFIG = ADAPTER_CONFIG;
const WEIGHTS = ADAPTER_WEIGHTS;
const trainer = <T>(method: string, path: string, body?: unknown, key = trainerKey) => trainerCall<T>(t, key, method, path, body);
const deployed = (slug: string, baseModel = BASE) => deployedTrainerModel(t, trainerKey, slug, baseModel);

// A fine-tune's calls are logged when the client asks (OpenPipe's rule).
const ask = (model: string, key?: string) =>
  t.request("POST", "/api/v1/chat/completions", {
    body: { model, messages: [{ role: "user", content: "capital?" }] },
    key,
    headers: { "op-log-request": "true" },
  });
const report = (body: Record<string, unknown>, key = trainerKey) =>
  trainer<{
    provider: { slug: string; baseModel: string };
    adapters: { name: string; slug: string; files: { path: string; sha256: string; bytes: number }[] }[];
    message: string;
  }>("POST", "/serving", { vllmUrl: "http://127.0.0.1:8000", served: [], ...body }, key);

beforeAll(async () => {
  vllm = startFakeOpenAI();
  t = await createTestApp({ env: { HONE_ALLOW_PRIVATE_UPSTREAMS: "true" }, deps: { clock: () => new Date(Date.now() + offsetMs) } });
  trainerKey = (await trpcClient(t).apiKeys.create.mutate({ name: "sync", scopes: ["trainer"] })).apiKey;
  modelId = await deployed("zorblax");
});
afterAll(async () => {
  await t.close();
  await vllm.stop();
});

describe("custom providers of kind vllm", () => {
  test("need their base model, and only they have one", async () => {
    const missing = await trpcFailure(trpcClient(t).customProviders.create.mutate({ slug: "gpu-1", kind: "vllm", baseUrl: `${vllm.url}/v1` }));
    expect(JSON.stringify(missing.data)).toContain("baseModel is required for vllm");
    const stray = await trpcFailure(trpcClient(t).customProviders.create.mutate({ slug: "x", kind: "openai", baseUrl: `${vllm.url}/v1`, baseModel: BASE }));
    expect(JSON.stringify(stray.data)).toContain("baseModel is for kind vllm only");
    const viaGql = await gql<{ createCustomProvider: { kind: string; baseModel: string } }>(
      t,
      `mutation ($input: CreateCustomProviderInput!) { createCustomProvider(input: $input) { kind baseModel } }`,
      { input: { slug: "gpu-1", kind: "vllm", baseUrl: `${vllm.url}/v1`, baseModel: BASE } },
    );
    expect(viaGql.data?.createCustomProvider).toEqual({ kind: "vllm", baseModel: BASE });
  });
});

describe("hone:<slug> of a trainer's adapter through the gateway", () => {
  test("before any sync reports it loaded: a 503 that says what to run; with no vLLM provider for its base: a 409 that says what to add", async () => {
    const waiting = await ask("hone:zorblax");
    expect(waiting.status).toBe(503);
    expect((await waiting.json()).error.message).toContain("gpu-1: never reported");
    await deployed("other-base", "Qwen/Qwen2.5-0.5B-Instruct");
    const nowhere = await ask("hone:other-base");
    expect(nowhere.status).toBe(409);
    expect((await nowhere.json()).error.message).toContain("no custom provider of kind vllm serves its base model Qwen/Qwen2.5-0.5B-Instruct");
  });

  test("sync's report: the provider found by its URL or base, the adapters of that base to hold, their files checked by digest", async () => {
    // The provider is found by the base the server serves (the URL sync sees may not be Hone's).
    const plan = await report({ served: [{ id: "llama", root: BASE, parent: null }] });
    expect(plan.status).toBe(200);
    expect(plan.body.provider).toEqual({ slug: "gpu-1", baseModel: BASE });
    expect(plan.body.adapters).toEqual([
      {
        name: modelId,
        slug: "zorblax",
        files: [
          { path: "adapter_config.json", sha256: sha(CONFIG), bytes: CONFIG.byteLength },
          { path: "adapter_model.safetensors", sha256: sha(WEIGHTS), bytes: WEIGHTS.byteLength },
        ],
      },
    ]);
    const file = await t.request("GET", `/api/v1/trainer/adapters/${modelId}/files/adapter_model.safetensors`, { key: trainerKey });
    expect(file.status).toBe(200);
    expect(file.headers.get("x-hone-sha256")).toBe(sha(WEIGHTS));
    expect(new Uint8Array(await file.arrayBuffer())).toEqual(WEIGHTS);
    expect((await t.request("GET", `/api/v1/trainer/adapters/${modelId}/files/../../x`, { key: trainerKey })).status).toBe(404);
    expect((await t.request("GET", `/api/v1/trainer/adapters/${modelId}/files/nothing.bin`, { key: trainerKey })).status).toBe(404);

    // By name: unknown is a 404, another kind a 400; a server nothing matches is a 400 that says what to do.
    expect((await report({ provider: "nope" })).status).toBe(404);
    await trpcClient(t).customProviders.create.mutate({ slug: "plain", kind: "openai", baseUrl: `${vllm.url}/v1` });
    const plain = await report({ provider: "plain" });
    expect(plain.status).toBe(400);
    expect(plain.body.message).toContain("of kind openai, not vllm");
    const unmatched = await report({ served: [{ id: "mistral", root: "mistralai/Mistral-7B", parent: null }] });
    expect(unmatched.status).toBe(400);
    expect(unmatched.body.message).toContain("add one (kind vllm");
    // Unknown keys are named; only trainer tokens report.
    expect((await report({ servedd: [] })).body.message).toContain("servedd");
    expect((await report({ provider: "gpu-1" }, t.project.apiKey)).status).toBe(403);
  });

  test("once reported loaded, the call goes to that server as the adapter, answers as hone:<slug>, is logged and priced by the project's price", async () => {
    const loaded = await report({
      vllmUrl: vllm.url,
      served: [
        { id: "llama", root: BASE, parent: null },
        { id: modelId, root: `/adapters/${modelId}`, parent: "llama" },
      ],
    });
    expect(loaded.status).toBe(200);
    await gql(t, `mutation { createPriceOverride(input: {model: "hone:zorblax", usdPerHour: 3.6}) { id } }`);
    const before = vllm.requests.length;
    const res = await ask("hone:zorblax");
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.model).toBe("hone:zorblax");
    expect(vllm.requests.length).toBe(before + 1);
    expect(vllm.requests.at(-1)!.body.model).toBe(modelId);
    const log = await latestLog(t);
    expect(log.model).toBe("hone:zorblax");
    expect(log.statusCode).toBe(200);
    expect(log.costUsd).toBeGreaterThan(0);
  });

  test("a report older than 180 s is not trusted: the call is a 503 naming when it last came; an adapter unloaded is not called", async () => {
    offsetMs += 181_000;
    const stale = await ask("hone:zorblax");
    expect(stale.status).toBe(503);
    expect((await stale.json()).error.message).toContain("last reported");
    await report({ vllmUrl: vllm.url, served: [{ id: "llama", root: BASE, parent: null }], error: "vLLM at http://127.0.0.1:8000 did not answer" });
    const gone = await ask("hone:zorblax");
    expect(gone.status).toBe(503);
    expect((await gone.json()).error.message).toContain("did not answer");
  });

  test("another project's sync sees none of these adapters nor their files, and cannot report for this project's server", async () => {
    const other = await t.createProject("other");
    const otherKey = (await trpcClient(t, other.apiKey).apiKeys.create.mutate({ name: "sync", scopes: ["trainer"] })).apiKey;
    const theirs = await report({ provider: "gpu-1" }, otherKey);
    expect(theirs.status).toBe(404);
    expect((await t.request("GET", `/api/v1/trainer/adapters/${modelId}/files/adapter_model.safetensors`, { key: otherKey })).status).toBe(404);
    // Its own vllm provider of the same base holds nothing of ours.
    await trpcClient(t, other.apiKey).customProviders.create.mutate({ slug: "gpu-1", kind: "vllm", baseUrl: `${vllm.url}/v1`, baseModel: BASE });
    expect((await report({ provider: "gpu-1" }, otherKey)).body.adapters).toEqual([]);
  });

  test("a deleted model leaves the plan, so sync unloads it", async () => {
    await trpcClient(t).models.delete.mutate({ slug: "zorblax" });
    expect((await report({ provider: "gpu-1" })).body.adapters).toEqual([]);
  });
});
