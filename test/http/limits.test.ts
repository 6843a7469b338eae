import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { createApp, type App } from "../../src/app";
import { createDeps } from "../../src/compose";
import { flushLeases, returnLeases } from "../../src/domain/limits";
import { globMatch } from "../../src/domain/projects/key-scopes";
import { createLogger } from "../../src/core/logger";
import { createTestApp, openAiClient, serve, storeProviderKey, testConfig, type TestApp } from "../helpers/app";
import { startFakeAnthropic, startFakeOpenAI, type FakeUpstream } from "../helpers/fake-upstreams";
import { gql, gqlData } from "../helpers/gql";
import { logsOf } from "../helpers/logs";
import type { ChatErrorBody, ErrorBody } from "../helpers/rest";
import { trpcClient, trpcFailure } from "../helpers/trpc";

// Limits on the gateway: requests, tokens and cost reserved before the upstream is called and
// settled when the call ends; the protocol's own 429 with OpenAI's rate-limit headers; limits per
// project, key and tag value; counters shared by the processes of one database.

const UPSTREAM_KEY = "sk-limits-upstream-0001";
const ANTHROPIC_KEY = "sk-ant-limits-0001";
// Every answer reports 1,000 input and 1,000 output tokens: gpt-4o-mini at $0.15 and $0.60 per
// million tokens, $0.00075 a call.
const USAGE = { prompt_tokens: 1000, completion_tokens: 1000, total_tokens: 2000 };
const CALL_USD = (1000 * 0.15 + 1000 * 0.6) / 1e6;

let t: TestApp;
let fake: FakeUpstream;
let anthropicFake: FakeUpstream;
let server: { url: string; stop(): Promise<void> };
/**
 * The test's clock, stopped one second into a minute so that no test's calls straddle two windows;
 * moved forward by hand to reach the next one.
 */
let now = Math.floor(Date.now() / 60_000) * 60_000 + 1_000;

beforeAll(async () => {
  fake = startFakeOpenAI({ apiKey: UPSTREAM_KEY, chatUsage: USAGE });
  anthropicFake = startFakeAnthropic({ apiKey: ANTHROPIC_KEY });
  t = await createTestApp({
    env: { OPENAI_BASE_URL: `${fake.url}/v1`, ANTHROPIC_BASE_URL: anthropicFake.url },
    deps: { clock: () => new Date(now) },
  });
  await storeProviderKey(t, "openai", UPSTREAM_KEY);
  server = serve(t.app);
});
afterAll(async () => {
  await server.stop();
  await fake.stop();
  await anthropicFake.stop();
  await t.close();
});

const SET_LIMIT = `mutation ($input: SetLimitInput!) { setLimit(input: $input) { id scope keyId tagKey tagValue requestsPerMinute tokensPerMinute costPerDayUsd costPerMonthUsd } }`;
const setLimit = async (input: Record<string, unknown>, key = t.project.apiKey) =>
  (await gqlData<{ setLimit: { id: string } }>(t, SET_LIMIT, { input }, { key })).setLimit;
const deleteLimit = (id: string) => gqlData(t, `mutation ($id: ID!) { deleteLimit(id: $id) }`, { id });

/** A key of a new project, with its provider key: each test counts on its own. */
async function freshProject(name: string) {
  const p = await t.createProject(name);
  await storeProviderKey(t, "openai", UPSTREAM_KEY, p.projectId);
  return p;
}

const chat = (key: string, body: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  fetch(`${server.url}/api/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers },
    body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }], max_tokens: 1000, ...body }),
  });

const rateHeaders = (res: Response) =>
  Object.fromEntries([...res.headers].filter(([k]) => k.startsWith("x-ratelimit-") || k === "retry-after" || k.startsWith("x-hone-budget")));

describe("setting limits", () => {
  test("a limit of zero, negative, absurd or malformed is a 400 naming it; nothing is stored", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ scope: "project", requestsPerMinute: 0 }, "requestsPerMinute"],
      [{ scope: "project", tokensPerMinute: -5 }, "tokensPerMinute"],
      [{ scope: "project", costPerDayUsd: 1e12 }, "costPerDayUsd"],
      [{ scope: "project", costPerMonthUsd: -0.01 }, "costPerMonthUsd"],
      [{ scope: "project" }, "requestsPerMinute"],
      [{ scope: "key", requestsPerMinute: 5 }, "keyId"],
      [{ scope: "tag", requestsPerMinute: 5 }, "tagKey"],
      [{ scope: "project", tagKey: "user", requestsPerMinute: 5 }, "tagKey"],
      [{ scope: "team", requestsPerMinute: 5 }, "scope"],
    ];
    for (const [input, field] of cases) {
      const r = await gql(t, SET_LIMIT, { input });
      expect(r.errors?.[0]?.extensions?.code, JSON.stringify(input)).toBe("VALIDATION");
      expect(JSON.stringify(r.errors?.[0]), JSON.stringify(input)).toContain(field);
    }
    // tRPC names the field the same way; a string where a number goes is refused there too.
    for (const bad of ["10", 1.5, Number.NaN]) {
      const err = await trpcFailure(trpcClient(t).limits.set.mutate({ scope: "project", requestsPerMinute: bad as never }));
      expect(err.data?.httpStatus).toBe(400);
      expect(JSON.stringify(err.data)).toContain("requestsPerMinute");
    }
    expect((await gqlData(t, `{ limits { id } }`)).limits).toEqual([]);
  });

  test("unknown keys and other projects' keys and limits are 404; setting a subject again replaces its limits", async () => {
    const other = await t.createProject("limits-other");
    const otherKeyId = (await gqlData(t, `{ apiKeys { id } }`, {}, { key: other.apiKey })).apiKeys[0].id;
    const r = await gql(t, SET_LIMIT, { input: { scope: "key", keyId: otherKeyId, requestsPerMinute: 5 } });
    expect(r.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
    const theirs = await setLimit({ scope: "project", requestsPerMinute: 7 }, other.apiKey);
    expect((await gql(t, `mutation ($id: ID!) { deleteLimit(id: $id) }`, { id: theirs.id })).errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
    const a = await setLimit({ scope: "tag", tagKey: "user", requestsPerMinute: 5 });
    const b = await setLimit({ scope: "tag", tagKey: "user", costPerDayUsd: 2 });
    expect(b.id).toBe(a.id);
    const listed = (await gqlData(t, `{ limits { id requestsPerMinute costPerDayUsd } }`)).limits;
    expect(listed).toEqual([{ id: a.id, requestsPerMinute: null, costPerDayUsd: 2 }]);
    await deleteLimit(a.id);
    expect((await gqlData(t, `{ limits { id } }`)).limits).toEqual([]);
  });
});

describe("rate limits", () => {
  test("requests per minute: the answers carry OpenAI's headers; past the limit a 429 the SDK reads; the next minute admits again", async () => {
    const p = await freshProject("rpm");
    await setLimit({ scope: "project", requestsPerMinute: 3 }, p.apiKey);
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await chat(p.apiKey);
      expect(res.status).toBe(200);
      const h = rateHeaders(res);
      expect(h["x-ratelimit-limit-requests"]).toBe("3");
      expect(h["x-ratelimit-reset-requests"]).toMatch(/^(\d+m)?\d+s$|^\d+ms$/);
      remaining.push(h["x-ratelimit-remaining-requests"]!);
    }
    expect(remaining).toEqual(["2", "1", "0"]);
    const refused = await chat(p.apiKey);
    expect(refused.status).toBe(429);
    const h = rateHeaders(refused);
    expect(h["x-ratelimit-limit-requests"]).toBe("3");
    expect(h["x-ratelimit-remaining-requests"]).toBe("0");
    expect(Number(h["retry-after"])).toBeGreaterThanOrEqual(1);
    expect(Number(h["retry-after"])).toBeLessThanOrEqual(60);
    const body = (await refused.json()) as ChatErrorBody;
    expect(body.code).toBe("RATE_LIMITED");
    expect(body.error.code).toBe("rate_limit_exceeded");
    expect(body.error.message).toContain("requests per minute of the project");

    // The official SDK sees a RateLimitError with the same headers.
    const client = openAiClient(server.url, p.apiKey);
    const err = await client.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "x" }] }).catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect(err.status).toBe(429);
    expect(err.code).toBe("rate_limit_exceeded");
    expect(err.headers.get("x-ratelimit-remaining-requests")).toBe("0");

    // Refused calls never reached the upstream: they are logged as refusals, with no provider and no cost.
    const logged = await logsOf(t, p.projectId);
    expect(logged.filter((l) => !l.refusal).length).toBe(3);
    expect(logged.filter((l) => l.refusal === "rate_limit" && l.provider === null && l.costUsd === null).length).toBe(2);

    // The next minute admits again.
    now += 60_000;
    const next = await chat(p.apiKey);
    expect(next.status).toBe(200);
    expect(next.headers.get("x-ratelimit-remaining-requests")).toBe("2");
  });

  test("within one process, 50 concurrent calls against 10 requests a minute: exactly 10 admitted", async () => {
    const p = await freshProject("rpm-concurrent");
    await setLimit({ scope: "project", requestsPerMinute: 10 }, p.apiKey);
    const statuses = await Promise.all(Array.from({ length: 50 }, () => chat(p.apiKey).then((r) => r.status)));
    expect(statuses.filter((s) => s === 200).length).toBe(10);
    expect(statuses.filter((s) => s === 429).length).toBe(40);
  });

  test("tokens per minute reserve the counted input plus max_tokens; the answer's usage settles them", async () => {
    const p = await freshProject("tpm");
    await setLimit({ scope: "project", tokensPerMinute: 5000 }, p.apiKey);
    // Asking for more output than the whole limit: refused before the upstream, and the message says why.
    const tooBig = await chat(p.apiKey, { max_tokens: 6000 });
    expect(tooBig.status).toBe(429);
    expect(((await tooBig.json()) as ChatErrorBody).error.message).toContain("more than the whole limit on tokens per minute");
    // Each call reserves ~1,010 and uses 2,000: two calls settle 4,000, a third (1,010 more) passes 5,000.
    const first = await chat(p.apiKey);
    expect(first.status).toBe(200);
    expect(Number(first.headers.get("x-ratelimit-remaining-tokens"))).toBeGreaterThan(3900);
    expect((await chat(p.apiKey)).status).toBe(200);
    const third = await chat(p.apiKey);
    expect(third.status).toBe(429);
    expect(((await third.json()) as ChatErrorBody).error.type).toBe("tokens");
    expect(third.headers.get("x-ratelimit-limit-tokens")).toBe("5000");
  });

  test("a key's own limit and each value of a tag: the tightest limit's headers; one user's spending leaves the others theirs", async () => {
    const p = await freshProject("per-user");
    const keyId = (await gqlData(t, `{ apiKeys { id } }`, {}, { key: p.apiKey })).apiKeys[0].id;
    await setLimit({ scope: "project", requestsPerMinute: 100 }, p.apiKey);
    await setLimit({ scope: "key", keyId, requestsPerMinute: 50 }, p.apiKey);
    await setLimit({ scope: "tag", tagKey: "user", requestsPerMinute: 2 }, p.apiKey);
    const asUser = (user: string) => chat(p.apiKey, { metadata: { user } });
    const a1 = await asUser("ann");
    expect(a1.headers.get("x-ratelimit-limit-requests")).toBe("2");
    expect(a1.headers.get("x-ratelimit-remaining-requests")).toBe("1");
    expect((await asUser("ann")).status).toBe(200);
    const a3 = await asUser("ann");
    expect(a3.status).toBe(429);
    expect(((await a3.json()) as ChatErrorBody).error.message).toContain("tag user=ann");
    // Another user, and the tag given as a header (op-tags), still has both calls.
    const b = await chat(p.apiKey, {}, { "op-tags": JSON.stringify({ user: "bob" }) });
    expect(b.status).toBe(200);
    expect(b.headers.get("x-ratelimit-remaining-requests")).toBe("1");
    // Without the tag, the key's limit is the tightest: 50, of which 4 were taken (the refused call took none).
    const plain = await chat(p.apiKey);
    expect(plain.headers.get("x-ratelimit-limit-requests")).toBe("50");
    expect(plain.headers.get("x-ratelimit-remaining-requests")).toBe("46");
  });
});

describe("every gateway endpoint", () => {
  test("Messages, Responses and embeddings reserve too, and refuse in their protocol's own error shape", async () => {
    const p = await freshProject("protocols");
    await storeProviderKey(t, "anthropic", ANTHROPIC_KEY, p.projectId);
    await setLimit({ scope: "project", requestsPerMinute: 1 }, p.apiKey);
    const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${server.url}/api/v1${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${p.apiKey}`, "content-type": "application/json", ...headers },
        body: JSON.stringify(body),
      });
    const message = { model: "claude-haiku-4-5", max_tokens: 50, messages: [{ role: "user", content: "hi" }] };
    const first = await post("/messages", message);
    expect(first.status).toBe(200);
    expect(first.headers.get("x-ratelimit-remaining-requests")).toBe("0");
    const refused = await post("/messages", message);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBeTruthy();
    expect(await refused.json()).toEqual({ type: "error", error: { type: "rate_limit_error", message: expect.stringContaining("Rate limit reached") } });
    // The Anthropic SDK (x-api-key, as Claude Code sends it) reads it as a RateLimitError.
    const anthropic = new Anthropic({ apiKey: p.apiKey, baseURL: `${server.url}/api`, maxRetries: 0 });
    const err = await anthropic.messages.create(message as never).catch((e) => e);
    expect(err).toBeInstanceOf(Anthropic.RateLimitError);
    for (const [path, body] of [
      ["/responses", { model: "gpt-4o-mini", input: "hi" }],
      ["/embeddings", { model: "text-embedding-3-small", input: "hi" }],
    ] as const) {
      const r = await post(path, body);
      expect(r.status, path).toBe(429);
      expect(((await r.json()) as ChatErrorBody).error.code, path).toBe("rate_limit_exceeded");
    }
    // The next minute: each endpoint is admitted once more, one call a minute.
    now += 60_000;
    expect((await post("/embeddings", { model: "text-embedding-3-small", input: "hi" })).status).toBe(200);
  });
});

describe("budgets", () => {
  test("cost per day: reserved at the price table's rates, settled at the real cost; a spent budget is a 429 budget_exceeded", async () => {
    const p = await freshProject("budget");
    const limit = await setLimit({ scope: "project", costPerDayUsd: 0.002 }, p.apiKey);
    const first = await chat(p.apiKey);
    expect(first.status).toBe(200);
    expect(Number(first.headers.get("x-hone-budget-limit-usd"))).toBe(0.002);
    // Streamed: settled at its end from the usage of its last chunk.
    const stream = await chat(p.apiKey, { stream: true, stream_options: { include_usage: true } });
    expect(stream.status).toBe(200);
    expect(await stream.text()).toContain("[DONE]");
    const refused = await chat(p.apiKey);
    expect(refused.status).toBe(429);
    const body = (await refused.json()) as ChatErrorBody;
    expect(body.error.code).toBe("budget_exceeded");
    expect(body.error.type).toBe("insufficient_quota");
    expect(body.error.message).toContain("Budget exceeded: the cost per day of the project ($0.0020) is spent");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    await flushLeases(t.deps);
    const spend = (await gqlData(t, `{ limitSpend { limitId metric spent cap reserved } }`, {}, { key: p.apiKey })).limitSpend;
    expect(spend).toHaveLength(1);
    expect(spend[0].limitId).toBe(limit.id);
    expect(spend[0].metric).toBe("usd_day");
    expect(spend[0].spent).toBeCloseTo(2 * CALL_USD, 9);
    // The logs' cost is what was settled.
    const logs = await logsOf(t, p.projectId);
    expect(logs.reduce((s, l) => s + (l.costUsd ?? 0), 0)).toBeCloseTo(spend[0].spent, 9);
  });

  test("a failed call gives back what it reserved; a cache hit costs nothing", async () => {
    const p = await freshProject("budget-release");
    // The failing model has no price: this limit admits such calls (and counts what they cost, nothing).
    await setLimit({ scope: "project", costPerDayUsd: 0.002, tokensPerMinute: 4000, unpricedCalls: "allow" }, p.apiKey);
    for (let i = 0; i < 5; i++) expect((await chat(p.apiKey, { model: "openai:error-500" })).status).toBe(500);
    const ok = await chat(p.apiKey, {}, { "op-cache": "readWrite" });
    expect(ok.status).toBe(200);
    // The upstream failures took nothing: the one answered call (2,000 tokens) is all that was used.
    expect(Number(ok.headers.get("x-ratelimit-remaining-tokens"))).toBeGreaterThan(2900);
    const hit = await chat(p.apiKey, {}, { "op-cache": "readWrite" });
    expect(hit.headers.get("x-hone-cache")).toBe("HIT");
    await flushLeases(t.deps);
    const spend = (await gqlData<{ limitSpend: { metric: string; spent: number }[] }>(t, `{ limitSpend { metric spent } }`, {}, { key: p.apiKey })).limitSpend;
    expect(spend.find((s) => s.metric === "usd_day")!.spent).toBeCloseTo(CALL_USD, 9);
    expect(spend.find((s) => s.metric === "tokens")!.spent).toBe(2000);
  });
});

describe("counters across processes", () => {
  /** Another Hone "process" on the same database: its own memory, the same counters. */
  const processOn = (): { app: App; deps: ReturnType<typeof createDeps> } => {
    const deps = createDeps({
      config: testConfig({ OPENAI_BASE_URL: `${fake.url}/v1` }),
      database: t.db.database,
      logger: createLogger("silent"),
      secretKey: t.deps.secretKey,
      clock: t.deps.clock,
    });
    return { app: createApp(deps), deps };
  };
  const call = (app: App, key: string) =>
    app.handle(
      new Request("http://localhost/api/v1/chat/completions", {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }),
      }),
    );

  test("two processes share one limit: 200 concurrent calls over both against 40 a minute admit at most 40, and all 40 once both spent their slices", async () => {
    const p = await freshProject("two-procs");
    await setLimit({ scope: "project", requestsPerMinute: 40 }, p.apiKey);
    const a = processOn();
    const b = processOn();
    const statuses = await Promise.all(Array.from({ length: 200 }, (_, i) => call(i % 2 ? a.app : b.app, p.apiKey).then((r) => r.status)));
    expect(statuses.filter((s) => s === 200).length).toBe(40);
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
  });

  test("a restart keeps the counters: a clean stop gives its unused slice back; a killed process's slice stays taken until the window ends", async () => {
    const p = await freshProject("restart");
    await setLimit({ scope: "project", requestsPerMinute: 20 }, p.apiKey);
    const first = processOn();
    for (let i = 0; i < 5; i++) expect((await call(first.app, p.apiKey)).status).toBe(200);
    // A clean stop: the slice it leased and did not use goes back.
    await returnLeases(first.deps);
    const second = processOn();
    let admitted = 0;
    for (let i = 0; i < 20; i++) if ((await call(second.app, p.apiKey)).status === 200) admitted++;
    expect(admitted).toBe(15);

    const q = await freshProject("killed");
    await setLimit({ scope: "project", requestsPerMinute: 80 }, q.apiKey);
    const killed = processOn();
    for (let i = 0; i < 5; i++) expect((await call(killed.app, q.apiKey)).status).toBe(200);
    // Never stopped: its slice (an eighth of 80, 10 requests) stays leased; the rest is there.
    const after = processOn();
    let more = 0;
    for (let i = 0; i < 80; i++) if ((await call(after.app, q.apiKey)).status === 200) more++;
    expect(more).toBe(70);
  });
});

describe("scoped keys", () => {
  const CREATE = `mutation ($input: CreateApiKeyInput) { createApiKey(input: $input) { apiKey key { id scopes allowedModels expiresAt metadata } } }`;
  const create = async (input: Record<string, unknown>) => (await gqlData(t, CREATE, { input })).createApiKey;

  test("a gateway-only key with allowed models calls those models only, and nothing of the management APIs", async () => {
    const k = await create({ name: "app", scopes: ["gateway"], allowedModels: ["openai:gpt-4o-mini*"], metadata: { owner: "ann", app: "support" } });
    expect(k.key.scopes).toEqual(["gateway"]);
    expect(k.key.metadata).toEqual({ owner: "ann", app: "support" });
    expect((await chat(k.apiKey)).status).toBe(200);
    const other = await chat(k.apiKey, { model: "gpt-4o" });
    expect(other.status).toBe(403);
    expect(((await other.json()) as ChatErrorBody).error.message).toContain("may not call the model gpt-4o");
    // Reports are what the SDKs send beside calls: allowed.
    const report = await t.request("POST", "/api/v1/report", {
      key: k.apiKey,
      body: { requestedAt: now, statusCode: 200, reqPayload: { model: "gpt-4o-mini", messages: [] }, respPayload: null },
    });
    expect(report.status).toBe(200);
    const list = await t.request("GET", "/api/v1/datasets", { key: k.apiKey });
    expect(list.status).toBe(403);
    expect(((await list.json()) as ErrorBody).message).toContain("lacks the `read` scope");
    const q = await gql(t, `{ apiKeys { id } }`, {}, { key: k.apiKey });
    expect(q.errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
    expect(q.errors?.[0]?.message).toContain("`read`");
    const m = await trpcFailure(trpcClient(t, k.apiKey).limits.list.query());
    expect(m.data?.code).toBe("FORBIDDEN");
    const signIn = await t.request("POST", "/trpc/session.signIn", { key: null, body: { token: k.apiKey }, headers: { "x-hone-console": "1" } });
    expect(signIn.status).toBe(403);
  });

  test("allowed-model globs: * and ? match, nothing else does; a pathological glob answers at once", async () => {
    expect(globMatch("openai:gpt-4o-mini*", "openai:gpt-4o-mini-2024-07-18")).toBe(true);
    expect(globMatch("openai:gpt-4o-mini*", "openai:gpt-4o")).toBe(false);
    expect(globMatch("anthropic:claude-?-*", "anthropic:claude-3-haiku")).toBe(true);
    expect(globMatch("gpt.4o", "gpt-4o")).toBe(false);
    expect(globMatch("*", "")).toBe(true);
    // As a regular expression this glob backtracks for ages on a long model string of a's.
    const k = await create({ scopes: ["gateway"], allowedModels: [`${"*a".repeat(40)}b`] });
    const started = performance.now();
    const res = await chat(k.apiKey, { model: `openai:${"a".repeat(240)}` });
    expect(res.status).toBe(403);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  test("a read-only key reads but changes nothing and calls no model; only a full key manages keys and limits", async () => {
    const k = await create({ scopes: ["read"] });
    expect((await gqlData(t, `{ apiKeys { id } }`, {}, { key: k.apiKey })).apiKeys.length).toBeGreaterThan(0);
    const write = await gql(t, `mutation { createDataset(input: {name: "x"}) { id } }`, {}, { key: k.apiKey });
    expect(write.errors?.[0]?.message).toContain("lacks the `write` scope");
    const call = await chat(k.apiKey);
    expect(call.status).toBe(403);
    expect(((await call.json()) as ChatErrorBody).error.message).toContain("lacks the `gateway` scope");
    const rw = await create({ scopes: ["read", "write"] });
    const limit = await gql(t, SET_LIMIT, { input: { scope: "project", requestsPerMinute: 5 } }, { key: rw.apiKey });
    expect(limit.errors?.[0]?.message).toContain("`gateway` scope needed to set limit");
    const key = await gql(t, CREATE, { input: { name: "x" } }, { key: rw.apiKey });
    expect(key.errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
  });

  test("expiry: a key is refused after it; updates change a key's grant at once; bad grants are 400s", async () => {
    const k = await create({ expiresAt: new Date(now + 60_000).toISOString() });
    expect((await chat(k.apiKey)).status).toBe(200);
    now += 61_000;
    const expired = await chat(k.apiKey);
    expect(expired.status).toBe(401);
    expect(((await expired.json()) as ChatErrorBody).error.message).toContain("expired");
    const k2 = await create({ name: "to-update" });
    const upd = await gqlData(t, `mutation ($input: UpdateApiKeyInput!) { updateApiKey(input: $input) { scopes allowedModels } }`, {
      input: { id: k2.key.id, scopes: ["gateway"], allowedModels: ["anthropic:*"] },
    });
    expect(upd.updateApiKey).toEqual({ scopes: ["gateway"], allowedModels: ["anthropic:*"] });
    expect((await chat(k2.apiKey)).status).toBe(403);
    for (const input of [
      { expiresAt: "2001-01-01T00:00:00Z" },
      { expiresAt: "not a date" },
      { scopes: [] },
      { scopes: ["admin"] },
      { allowedModels: ["has space"] },
      { metadata: { "bad name!": "x" } },
    ]) {
      const r = await gql(t, CREATE, { input });
      expect(r.errors?.[0]?.extensions?.code, JSON.stringify(input)).toBe("VALIDATION");
    }
    const unknown = await gql(t, `mutation ($input: UpdateApiKeyInput!) { updateApiKey(input: $input) { id } }`, { input: { id: "key_nope", name: "x" } });
    expect(unknown.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
  });
});

describe("limits through tRPC", () => {
  test("set, list, spend and delete", async () => {
    const p = await freshProject("trpc-limits");
    const api = trpcClient(t, p.apiKey);
    const l = await api.limits.set.mutate({ scope: "tag", tagKey: "prompt_id", tagValue: "welcome", requestsPerMinute: 9 });
    expect((await api.limits.list.query()).map((x) => x.id)).toEqual([l.id]);
    expect((await chat(p.apiKey, { metadata: { prompt_id: "welcome" } })).headers.get("x-ratelimit-limit-requests")).toBe("9");
    await flushLeases(t.deps);
    const spend = await api.limits.spend.query({ limitId: l.id });
    expect(spend[0]).toMatchObject({ metric: "requests", spent: 1, cap: 9, value: null });
    await api.limits.delete.mutate({ id: l.id });
    expect(await api.limits.list.query()).toEqual([]);
    const gone = await trpcFailure(api.limits.delete.mutate({ id: l.id }));
    expect(gone.data?.code).toBe("NOT_FOUND");
  });
});
