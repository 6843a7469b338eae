import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTRPCClient, httpBatchStreamLink } from "@trpc/client";
import { systemCtx } from "../../src/domain/context";
import { createCustomProvider } from "../../src/domain/projects";
import type { AppRouter } from "../../src/http/trpc/router";
import { createTestApp, serve, storeProviderKey, type TestApp, type TestProject } from "../helpers/app";
import { type FakeUpstream, startFakeAnthropic, startFakeOpenAI } from "../helpers/fake-upstreams";
import { gql, gqlData } from "../helpers/gql";
import { logsOf } from "../helpers/logs";
import { trpcClient, trpcFailure } from "../helpers/trpc";

// Every upstream a call can reach is checked as the call itself is: a key's allowed models apply
// to each fallback and route target, each target is reserved against the limits at its own price,
// a call Hone cannot price is never admitted under a cost cap as if free, price changes apply to
// the next call, and prices are admin work.

let t: TestApp;
let openai: FakeUpstream;
let anthropic: FakeUpstream;
let server: { url: string; stop(): Promise<void> };
/** The test's clock, stopped one second into a minute (each test counts in its own project). */
const now = Math.floor(Date.now() / 60_000) * 60_000 + 1_000;

beforeAll(async () => {
  openai = startFakeOpenAI();
  anthropic = startFakeAnthropic();
  t = await createTestApp({
    env: {
      OPENAI_BASE_URL: `${openai.url}/v1`,
      ANTHROPIC_BASE_URL: anthropic.url,
      HONE_ALLOW_PRIVATE_UPSTREAMS: "true",
      HONE_RETRY_BACKOFF_MS: "1",
      HONE_API_KEY_CACHE_MS: "0",
    },
    deps: { clock: () => new Date(now) },
  });
  server = serve(t.app);
});
afterAll(async () => {
  await server.stop();
  await Promise.all([openai.stop(), anthropic.stop()]);
  await t.close();
});

async function project(name: string): Promise<TestProject> {
  const p = await t.createProject(name);
  await storeProviderKey(t, "openai", "sk-openai-0001", p.projectId);
  await storeProviderKey(t, "anthropic", "sk-ant-0001", p.projectId);
  return p;
}

const gqlAs = <T = any>(p: TestProject, query: string, variables: Record<string, unknown> = {}) => gqlData<T>(t, query, variables, { key: p.apiKey });

async function keyFor(p: TestProject, input: Record<string, unknown>): Promise<{ apiKey: string; id: string }> {
  const r = await gqlAs(p, `mutation ($input: CreateApiKeyInput) { createApiKey(input: $input) { apiKey key { id } } }`, { input });
  return { apiKey: r.createApiKey.apiKey, id: r.createApiKey.key.id };
}

const setLimit = (p: TestProject, input: Record<string, unknown>) =>
  gqlAs(p, `mutation ($input: SetLimitInput!) { setLimit(input: $input) { id unpricedCalls } }`, { input });

const override = (p: TestProject, input: Record<string, unknown>) =>
  gqlAs<{ createPriceOverride: { id: string } }>(p, `mutation ($input: CreatePriceOverrideInput!) { createPriceOverride(input: $input) { id } }`, { input });

function post(path: string, key: string, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return fetch(`${server.url}/api/v1${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "anthropic-version": "2023-06-01", ...headers },
    body: JSON.stringify(body),
  });
}

const chatBody = (model: string, extra: Record<string, unknown> = {}) => ({ model, messages: [{ role: "user", content: "hi" }], max_tokens: 50, ...extra });
/** Requests the fake OpenAI received for a model since `from`. */
const sentTo = (model: string, from: number) => openai.requests.slice(from).filter((r) => r.body?.model === model).length;

describe("allowed models apply to every target a call can reach", () => {
  let p: TestProject;
  let limited: string;
  beforeAll(async () => {
    p = await project("allowed-models");
    // The key may call the models named error-*: the fake answers them with that status.
    limited = (await keyFor(p, { scopes: ["gateway"], allowedModels: ["openai:error-*"] })).apiKey;
  });

  test("directly, a model the key may not call is 403 (as before)", async () => {
    const r = await post("/chat/completions", limited, chatBody("openai:gpt-4o"));
    expect(r.status).toBe(403);
  });

  const ways: [string, string, (fallbacks: string[]) => { body: Record<string, unknown>; headers?: Record<string, string> }][] = [
    ["op-fallbacks on /chat/completions", "/chat/completions", (f) => ({ body: chatBody("openai:error-404"), headers: { "op-fallbacks": JSON.stringify(f) } })],
    ["hone.fallbacks on /chat/completions", "/chat/completions", (f) => ({ body: chatBody("openai:error-404", { hone: { fallbacks: f } }) })],
    ["hone.fallbacks on /responses", "/responses", (f) => ({ body: { model: "openai:error-404", input: "hi", hone: { fallbacks: f } } })],
    ["op-fallbacks on /messages", "/messages", (f) => ({ body: chatBody("openai:error-404"), headers: { "op-fallbacks": JSON.stringify(f) } })],
    ["hone.fallbacks on /embeddings", "/embeddings", (f) => ({ body: { model: "openai:error-404", input: "hi", hone: { fallbacks: f } } })],
  ];
  for (const [name, path, shape] of ways) {
    test(`${name}: a fallback the key may not call is skipped, never called, and the log says why`, async () => {
      const before = openai.requests.length;
      const { body, headers } = shape(["openai:gpt-4o"]);
      const r = await post(path, limited, body, headers);
      expect(r.status).not.toBe(200);
      expect(sentTo("gpt-4o", before)).toBe(0);
      expect(sentTo("error-404", before)).toBeGreaterThan(0);
      await t.deps.logWriter.flush();
      // The newest call that reached an upstream (refusals of the tests before are logged too).
      const log = (await logsOf(t, p.projectId)).filter((l) => !l.refusal).at(-1)!;
      const attempts = log.attempts as { target: string; statusCode: number; error: string; next: string }[];
      expect(attempts.map((a) => [a.target, a.statusCode])).toEqual([
        ["openai:error-404", 404],
        ["openai:gpt-4o", 403],
      ]);
      expect(attempts[1]!.error).toContain("may not call the model openai:gpt-4o");
    });
  }

  test("a fallback the key may call is still called", async () => {
    const both = (await keyFor(p, { scopes: ["gateway"], allowedModels: ["openai:error-*", "openai:gpt-4o"] })).apiKey;
    const r = await post("/chat/completions", both, chatBody("openai:error-404", { hone: { fallbacks: ["openai:gpt-4o"] } }));
    expect(r.status).toBe(200);
    expect(((await r.json()) as { model: string }).model).toBe("gpt-4o");
  });

  test("a route whose targets the key may not call: 403 naming them, nothing sent upstream", async () => {
    await gqlAs(p, `mutation ($input: CreateRouteInput!) { createRoute(input: $input) { slug } }`, {
      input: { slug: "support", groups: [{ targets: [{ model: "openai:gpt-4o", weight: 100 }] }] },
    });
    const routeOnly = (await keyFor(p, { scopes: ["gateway"], allowedModels: ["hone:support"] })).apiKey;
    const before = openai.requests.length;
    const r = await post("/chat/completions", routeOnly, chatBody("hone:support"));
    expect(r.status).toBe(403);
    const body = (await r.json()) as { message: string };
    expect(body.message).toContain("openai:gpt-4o");
    expect(body.message).toContain("hone:support");
    expect(openai.requests.length).toBe(before);
    // With the target allowed too, the route answers.
    const withTarget = (await keyFor(p, { scopes: ["gateway"], allowedModels: ["hone:support", "openai:gpt-4o"] })).apiKey;
    expect((await post("/chat/completions", withTarget, chatBody("hone:support"))).status).toBe(200);
  });
});

describe("limits count each target at its own price", () => {
  test("a fallback to a dearer model reserves at its price: over the budget, it is not called", async () => {
    const p = await project("dearer-fallback");
    // The first target is priced cheap (and always fails); the fallback, gpt-4o, at list price
    // ($10 per million output tokens: 1,000 of them are $0.01, more than the whole budget).
    await override(p, { model: "openai:error-404", rates: { input_mtok: 0.01, output_mtok: 0.01 } });
    await setLimit(p, { scope: "project", costPerDayUsd: 0.005 });
    const before = openai.requests.length;
    const r = await post("/chat/completions", p.apiKey, chatBody("openai:error-404", { max_tokens: 1000, hone: { fallbacks: ["openai:gpt-4o"] } }));
    expect(r.status).toBe(429);
    expect(((await r.json()) as { error: { code: string } }).error.code).toBe("budget_exceeded");
    expect(sentTo("error-404", before)).toBe(1);
    expect(sentTo("gpt-4o", before)).toBe(0);
  });

  test("a route is priced, reserved and settled by its target: a per-user cap refuses it as it refuses the target", async () => {
    const p = await project("route-cost-cap");
    await gqlAs(p, `mutation ($input: CreateRouteInput!) { createRoute(input: $input) { slug } }`, {
      input: { slug: "gpt", groups: [{ targets: [{ model: "openai:gpt-4o", weight: 100 }] }] },
    });
    await setLimit(p, { scope: "tag", tagKey: "user", costPerDayUsd: 0.000001 });
    const before = openai.requests.length;
    const statuses: number[] = [];
    for (const model of ["openai:gpt-4o", "hone:gpt"]) {
      for (let i = 0; i < 6; i++) statuses.push((await post("/chat/completions", p.apiKey, chatBody(model, { metadata: { user: "u1" } }))).status);
    }
    expect(statuses).toEqual(Array(12).fill(429));
    expect(openai.requests.length).toBe(before);
  });

  test("a routed call is logged at its target's price, with the target's override", async () => {
    const p = await project("route-priced");
    await gqlAs(p, `mutation ($input: CreateRouteInput!) { createRoute(input: $input) { slug } }`, {
      input: { slug: "gpt", groups: [{ targets: [{ model: "openai:gpt-4o", weight: 100 }] }] },
    });
    await override(p, { model: "openai:gpt-4o", rates: { input_mtok: 1000, output_mtok: 1000 } });
    expect((await post("/chat/completions", p.apiKey, chatBody("hone:gpt"))).status).toBe(200);
    await t.deps.logWriter.flush();
    const [log] = await logsOf(t, p.projectId);
    // The fake reports 11 input and 7 output tokens: 18 at $1,000 per million.
    expect(log!.model).toBe("hone:gpt");
    expect(log!.costUsd).toBeCloseTo(0.018, 9);
  });

  test("a model Hone cannot price is refused under a cost cap, unless the limit allows unpriced calls", async () => {
    const p = await project("unpriced");
    await createCustomProvider({ ...systemCtx(t.deps, "test"), projectId: p.projectId }, { slug: "local", kind: "openai", baseUrl: `${openai.url}/v1` });
    const limit = await setLimit(p, { scope: "project", costPerDayUsd: 10 });
    expect(limit.setLimit.unpricedCalls).toBe("refuse");
    const before = openai.requests.length;
    const refused = await post("/chat/completions", p.apiKey, chatBody("hone:local/llama"));
    expect(refused.status).toBe(403);
    const body = (await refused.json()) as { message: string; error: { code: string } };
    expect(body.error.code).toBe("unpriced_model");
    expect(body.message).toContain("hone:local/llama");
    expect(body.message).toContain("unpricedCalls");
    expect(openai.requests.length).toBe(before);
    // Without a cost cap, nothing changes.
    const q = await project("unpriced-no-cap");
    await createCustomProvider({ ...systemCtx(t.deps, "test"), projectId: q.projectId }, { slug: "local", kind: "openai", baseUrl: `${openai.url}/v1` });
    await setLimit(q, { scope: "project", requestsPerMinute: 100 });
    expect((await post("/chat/completions", q.apiKey, chatBody("hone:local/llama"))).status).toBe(200);
    // The limit says so: admitted.
    await setLimit(p, { scope: "project", costPerDayUsd: 10, unpricedCalls: "allow" });
    expect((await post("/chat/completions", p.apiKey, chatBody("hone:local/llama"))).status).toBe(200);
    // A word it does not know is a 400.
    const bad = await gql(
      t,
      `mutation ($input: SetLimitInput!) { setLimit(input: $input) { id } }`,
      { input: { scope: "project", costPerDayUsd: 1, unpricedCalls: "maybe" } },
      { key: p.apiKey },
    );
    expect(bad.errors?.[0]?.extensions?.code).toBe("VALIDATION");
  });

  test("a window at or over its cap admits nothing, whatever the estimate (an unpriced call it allows)", async () => {
    const p = await project("spent-window");
    await createCustomProvider({ ...systemCtx(t.deps, "test"), projectId: p.projectId }, { slug: "local", kind: "openai", baseUrl: `${openai.url}/v1` });
    // Estimated at 5 input and 1 output token, the call really uses 18 (the fake's usage): at $50
    // per million, admitted for about $0.0003, settled at $0.0009, past the $0.0005 cap.
    await override(p, { model: "openai:gpt-4o-mini", rates: { input_mtok: 50, output_mtok: 50 } });
    await setLimit(p, { scope: "project", costPerDayUsd: 0.0005, unpricedCalls: "allow" });
    expect((await post("/chat/completions", p.apiKey, chatBody("openai:gpt-4o-mini", { max_tokens: 1 }))).status).toBe(200);
    const before = openai.requests.length;
    const r = await post("/chat/completions", p.apiKey, chatBody("hone:local/llama"));
    expect(r.status).toBe(429);
    expect(((await r.json()) as { error: { code: string } }).error.code).toBe("budget_exceeded");
    expect(openai.requests.length).toBe(before);
  });

  test("a price override applies to the very next call's reservation", async () => {
    const p = await project("override-now");
    await setLimit(p, { scope: "project", costPerDayUsd: 0.05 });
    const call = () => post("/chat/completions", p.apiKey, chatBody("openai:gpt-4o-mini", { max_tokens: 1000 }));
    // At list price, 1,000 output tokens of gpt-4o-mini are $0.0006.
    expect((await call()).status).toBe(200);
    // At $100 per million they are $0.10: more than the whole cap.
    const o = await override(p, { model: "openai:gpt-4o-mini", rates: { input_mtok: 100, output_mtok: 100 } });
    const burst = await Promise.all(Array.from({ length: 10 }, call));
    expect(burst.map((r) => r.status)).toEqual(Array(10).fill(429));
    // Deleted, the list price applies again at once.
    await gqlAs(p, `mutation ($id: ID!) { deletePriceOverride(id: $id) }`, { id: o.createPriceOverride.id });
    expect((await call()).status).toBe(200);
  });
});

describe("prices are admin work", () => {
  test("a member's key cannot create or delete overrides or recalculate costs, on any transport", async () => {
    const p = await project("prices-admin");
    // A read+write key is a member's (a key with every scope is an admin's).
    const member = (await keyFor(p, { scopes: ["read", "write"] })).apiKey;
    const g = await gql(t, `mutation { createPriceOverride(input: {model: "openai:gpt-4o", multiplier: 0.000001}) { id } }`, {}, { key: member });
    expect(g.errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
    expect((await gql(t, `mutation { recalculateCosts { id } }`, {}, { key: member })).errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
    const trpc = trpcClient(t, member);
    expect((await trpcFailure(trpc.pricing.createOverride.mutate({ model: "openai:gpt-4o", multiplier: 0.5 }))).data?.code).toBe("FORBIDDEN");
    expect((await trpcFailure(trpc.pricing.recalculate.mutate({}))).data?.code).toBe("FORBIDDEN");
    const made = await override(p, { model: "openai:gpt-4o", multiplier: 2 });
    expect((await trpcFailure(trpc.pricing.deleteOverride.mutate({ id: made.createPriceOverride.id }))).data?.code).toBe("FORBIDDEN");
    const r = await post("/price-overrides", member, { model: "openai:gpt-4o", multiplier: 0.5 });
    expect(r.status).toBe(403);
    expect((await post("/costs/recalculate", member, {})).status).toBe(403);
    // Nothing was stored but the admin's own override.
    const list = await gqlAs(p, `{ priceOverrides { id } }`);
    expect(list.priceOverrides).toHaveLength(1);
  });
});

describe("work that calls models on a key's behalf is checked against its allowed models when asked for", () => {
  test("evaluations, relabelling, criteria judges and the playground: 403 naming the model", async () => {
    const p = await project("deferred-calls");
    const limited = (await keyFor(p, { scopes: ["gateway", "read", "write"], allowedModels: ["openai:gpt-4o-mini"] })).apiKey;
    const code = async (query: string) => {
      const r = await gql(t, query, {}, { key: limited });
      return [r.errors?.[0]?.extensions?.code ?? "OK", r.errors?.[0]?.message ?? ""];
    };
    const dataset = (await gqlAs(p, `mutation { createDataset(input: {name: "d"}) { id } }`)).createDataset.id as string;
    const criterion = (await gqlAs(p, `mutation { createCriterion(input: {name: "c", judgeModel: "openai:gpt-4o-mini", prompt: "Is {{output}} ok?"}) { id } }`))
      .createCriterion.id as string;
    const refused = [
      `mutation { createCriterion(input: {name: "x", judgeModel: "openai:gpt-4o", prompt: "Is {{output}} ok?"}) { id } }`,
      `mutation { createCriterionVersion(input: {criterionId: "${criterion}", judgeModel: "openai:gpt-4o"}) { version } }`,
      `mutation { createEvaluation(input: {datasetId: "${dataset}", models: ["openai:gpt-4o-mini", "openai:gpt-4o"], criterionIds: ["${criterion}"]}) { id } }`,
      `mutation { relabelDatasetEntries(input: {datasetId: "${dataset}", criterionId: "${criterion}", model: "openai:gpt-4o"}) { id } }`,
      `mutation { createRelabelRun(input: {datasetId: "${dataset}", model: "openai:gpt-4o", criterionIds: ["${criterion}"]}) { id } }`,
    ];
    for (const q of refused) {
      const [c, message] = await code(q);
      expect([q, c]).toEqual([q, "FORBIDDEN"]);
      expect(message).toContain("openai:gpt-4o");
    }
    // The console's link for streamed procedures.
    const streaming = createTRPCClient<AppRouter>({
      links: [
        httpBatchStreamLink({
          url: "http://localhost/trpc",
          headers: { authorization: `Bearer ${limited}` },
          fetch: (url, init) => t.app.handle(new Request(url, init as RequestInit)),
        }),
      ],
    });
    const err = await trpcFailure(
      (async () => {
        for await (const _ of await streaming.playground.run.mutate({ model: "openai:gpt-4o", messages: [{ role: "user", content: "hi" }] })) {
          // drained
        }
      })(),
    );
    expect(err.data?.code).toBe("FORBIDDEN");
    // Within its models, the same work is accepted.
    expect((await code(`mutation { createCriterion(input: {name: "y", judgeModel: "openai:gpt-4o-mini", prompt: "Is {{output}} ok?"}) { id } }`))[0]).toBe(
      "OK",
    );
  });
});

test("op-criteria on a gateway call: a judge model the key may not call is a 403, and nothing is called", async () => {
  const p = await project("criteria-judges");
  const limited = (await keyFor(p, { scopes: ["gateway"], allowedModels: ["openai:gpt-4o-mini"] })).apiKey;
  const criterion = (await gqlAs(p, `mutation { createCriterion(input: {name: "c", judgeModel: "openai:gpt-4o", prompt: "Is {{output}} ok?"}) { id } }`))
    .createCriterion.id as string;
  const before = openai.requests.length;
  for (const path of ["/chat/completions", "/messages"]) {
    const r = await post(path, limited, chatBody(path === "/messages" ? "openai:gpt-4o-mini" : "gpt-4o-mini"), { "op-criteria": JSON.stringify([criterion]) });
    expect([path, r.status]).toEqual([path, 403]);
    expect(((await r.json()) as { message?: string; error?: { message: string } }).error?.message ?? "").toContain("openai:gpt-4o");
  }
  expect(openai.requests.length).toBe(before);
});
