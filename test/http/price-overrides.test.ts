import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import type OpenAI from "openai";
import { startJobs } from "../../src/background";
import type { Worker } from "../../src/background/worker";
import { systemCtx } from "../../src/domain/context";
import { closeUsageHours } from "../../src/domain/logs";
import { setProviderKey } from "../../src/domain/projects";
import { createTestApp, openAiClient, serve, type TestApp } from "../helpers/app";
import { startFakeAnthropic, type FakeUpstream } from "../helpers/fake-upstreams";
import { gqlData } from "../helpers/gql";
import { logsOf, seedLogs } from "../helpers/logs";
import { rest, type Rest } from "../helpers/rest";
import { trpcClient } from "../helpers/trpc";
import { waitFor } from "../helpers/wait-for";

// A project's own prices: overrides by model and date on every transport, the gateway and reports
// priced with them, recalculation of stored logs (and the rollups following), and the invoice lines.

const KEY = "sk-ant-price-overrides-01";
const M = 1e6;
const USAGE = { input_tokens: 100, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, output_tokens: 50 };
// claude-haiku-4-5 at list price: $1 input, $5 output per million tokens.
const LIST = (100 * 1 + 50 * 5) / M;

let t: TestApp;
let fake: FakeUpstream;
let server: { url: string; stop(): Promise<void> };
let client: OpenAI;
let api: Rest;
let worker: Worker;

beforeAll(async () => {
  fake = startFakeAnthropic({ apiKey: KEY, usage: USAGE });
  t = await createTestApp({ env: { ANTHROPIC_BASE_URL: fake.url, HONE_JOB_POLL_MS: "20" } });
  await setProviderKey({ ...systemCtx(t.deps, "test"), projectId: t.project.projectId }, { provider: "anthropic", apiKey: KEY });
  server = serve(t.app);
  client = openAiClient(server.url, t.project.apiKey);
  api = rest(t);
  worker = startJobs(t.deps);
});
afterAll(async () => {
  await worker.stop();
  await server.stop();
  await fake.stop();
  await t.close();
});

const report = (model: string, id: string, requestedAt = Date.now(), usage: unknown = { prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500 }) =>
  api.ok("POST /report", {
    body: {
      requestedAt,
      statusCode: 200,
      reqPayload: { model, messages: [{ role: "user", content: "x" }] },
      respPayload: { id, object: "chat.completion", created: 1, model, choices: [], usage },
    },
  });
const logBy = async (completionId: string) => (await logsOf(t)).find((l) => l.completionId === completionId)!;

async function recalculated(filter: Record<string, unknown>) {
  const started = await api.ok("POST /costs/recalculate", { body: { filter } });
  expect(started).toMatchObject({ object: "cost_recalculation", status: "QUEUED" });
  return waitFor(() => api.ok("GET /costs/recalculations/:recalculationId", { params: { recalculationId: started.id } }), {
    until: (r) => r.status === "DONE" || r.status === "ERROR",
    timeoutMs: 20_000,
    message: "the recalculation did not finish",
  });
}

describe("price overrides", () => {
  test("a multiplier from a date: gateway calls after it are priced at the discount, the version says so", async () => {
    await client.chat.completions.create({ model: "anthropic:claude-haiku-4-5", messages: [{ role: "user", content: "before" }] });
    const o = await api.ok("POST /price-overrides", {
      body: { model: "anthropic:claude-haiku-4-5", multiplier: 0.5, effectiveFrom: new Date(Date.now() - 1000).toISOString(), note: "negotiated" },
    });
    expect(o).toMatchObject({ object: "price_override", model: "anthropic:claude-haiku-4-5", multiplier: 0.5, rates: null, note: "negotiated" });
    await client.chat.completions.create({ model: "anthropic:claude-haiku-4-5", messages: [{ role: "user", content: "after" }] });
    const logs = (await logsOf(t)).filter((l) => l.model === "anthropic:claude-haiku-4-5");
    expect(logs.at(-2)!.costUsd!).toBeCloseTo(LIST, 12);
    expect(logs.at(-1)!.costUsd!).toBeCloseTo(LIST / 2, 12);
    expect(logs.at(-1)!.classes).toEqual({ input_tokens: 100, input_usd: 50 / M, output_tokens: 50, output_usd: 125 / M });
    expect(logs.at(-1)!.priceVersion).toMatch(new RegExp(`anthropic/claude-haiku-4-5 × 0\\.5 \\(override ${o.id} from \\d{4}-\\d{2}-\\d{2}\\)$`));
    // Listed on every transport.
    const listed = await api.ok("GET /price-overrides");
    expect(listed.data.map((x: { id: string }) => x.id)).toContain(o.id);
    expect((await trpcClient(t, t.project.apiKey).pricing.overrides.query()).map((x) => x.id)).toContain(o.id);
    const g = await gqlData<{ priceOverrides: { id: string; multiplier: number }[] }>(t, "{ priceOverrides { id multiplier } }");
    expect(g.priceOverrides).toContainEqual({ id: o.id, multiplier: 0.5 });
  });

  test("rates for a model with no list price (a custom or self-hosted one, a fine-tune): no longer flagged", async () => {
    await report("my-vllm:llama-3", "chatcmpl-llama-before");
    expect(await logBy("chatcmpl-llama-before")).toMatchObject({ costUsd: null, costFlag: "no_price" });
    await api.ok("POST /price-overrides", { body: { model: "my-vllm:llama-3", rates: { input_mtok: 0.1, output_mtok: 0.4 } } });
    await trpcClient(t, t.project.apiKey).pricing.createOverride.mutate({ model: "hone:support-v1", rates: { input_mtok: 0.3, output_mtok: 1.2 } });
    await report("my-vllm:llama-3", "chatcmpl-llama-after");
    await report("hone:support-v1", "chatcmpl-ft");
    const llama = await logBy("chatcmpl-llama-after");
    expect(llama.costUsd!).toBeCloseTo((1000 * 0.1 + 500 * 0.4) / M, 12);
    expect(llama.costFlag).toBeNull();
    expect(llama.priceVersion).toMatch(/^override pov_[0-9a-f]+$/);
    expect((await logBy("chatcmpl-ft")).costUsd!).toBeCloseTo((1000 * 0.3 + 500 * 1.2) / M, 12);
    // A deployment billed by the hour of call time: a report 1.8 s long at $36/h costs $0.018.
    const hourly = await api.ok("POST /price-overrides", { body: { model: "gpu-box:mistral", usdPerHour: 36 } });
    expect(hourly).toMatchObject({ usd_per_hour: 36, rates: null, multiplier: null });
    const start = Date.now() - 5000;
    await api.ok("POST /report", {
      body: {
        requestedAt: start,
        receivedAt: start + 1800,
        statusCode: 200,
        reqPayload: { model: "gpu-box:mistral", messages: [{ role: "user", content: "x" }] },
        respPayload: {
          id: "chatcmpl-hourly",
          object: "chat.completion",
          created: 1,
          model: "gpu-box:mistral",
          choices: [],
          usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
        },
      },
    });
    const billed = await logBy("chatcmpl-hourly");
    expect(billed.costUsd!).toBeCloseTo(0.018, 12);
    expect(billed.classes).toMatchObject({ compute_seconds: 1.8, input_tokens: 10, output_tokens: 10 });
    const g = await gqlData<{ log: { classes: { tokenClass: string; tokens: number }[] } }>(
      t,
      `query($id: ID!) { log(id: $id) { classes { tokenClass tokens } } }`,
      { id: billed.id },
    );
    expect(g.log.classes.at(-1)).toEqual({ tokenClass: "compute", tokens: 1.8 });
  });

  test("bad overrides are 400s naming the field; another project's override is not found", async () => {
    for (const body of [
      { model: "x", rates: { input_mtok: 1 }, multiplier: 0.5 },
      { model: "x", usdPerHour: 2, multiplier: 0.5 },
      { model: "x", usdPerHour: -1 },
      { model: "x" },
      { model: "x", rates: { input_mtok: -1 } },
      { model: "x", rates: { input_token_price: 1 } },
      { model: "x", multiplier: 0 },
      { model: "", multiplier: 1 },
      { model: "x", multiplier: 1, effectiveFrom: "not a date" },
    ]) {
      const res = await t.request("POST", "/api/v1/price-overrides", { key: t.project.apiKey, body });
      expect(res.status).toBe(400);
      const err = (await res.json()) as { message: string; code: string; issues: unknown[] };
      expect(err.code).toBe("VALIDATION");
      expect(err.issues.length).toBeGreaterThan(0);
    }
    const mine = await api.ok("POST /price-overrides", { body: { model: "mine", multiplier: 2 } });
    const other = await t.createProject("other");
    const res = await t.request("DELETE", `/api/v1/price-overrides/${mine.id}`, { key: other.apiKey });
    expect(res.status).toBe(404);
    expect(await api.ok("DELETE /price-overrides/:overrideId", { params: { overrideId: mine.id } })).toEqual({
      id: mine.id,
      object: "price_override",
      deleted: true,
    });
    expect((await t.request("DELETE", `/api/v1/price-overrides/${mine.id}`, { key: t.project.apiKey })).status).toBe(404);
  });
});

describe("recalculation", () => {
  test("re-prices stored logs at each one's date, counts what changed, and the rollups follow", async () => {
    const hour = 3_600_000;
    const now = Date.now();
    // Three reports of a custom model three hours ago (no price yet), mid-hour in an hour the
    // rollups close (never straddling the hour's end).
    const start = Math.floor((now - 3 * hour) / hour) * hour + hour / 2;
    for (let i = 0; i < 3; i++) await report("acme:gizmo", `chatcmpl-gizmo-${i}`, start + i * 1000);
    const ctx = { ...systemCtx(t.deps, "test"), projectId: t.project.projectId };
    while ((await closeUsageHours(ctx, new Date(now))) > 0);
    const range = {
      from: new Date(Math.floor((now - 4 * hour) / hour) * hour).toISOString(),
      to: new Date(Math.floor((now - 2 * hour) / hour) * hour).toISOString(),
    };
    const trpc = trpcClient(t, t.project.apiKey);
    const usage = () => trpc.logs.usage.query({ ...range, bucket: "hour", filter: { model: "acme:gizmo" }, classes: true });
    expect((await usage()).totals).toMatchObject({ requests: 3, costUsd: 0, unpriced: 3 });

    // From before those calls: $2 in, $6 out per million.
    await api.ok("POST /price-overrides", {
      body: { model: "acme:gizmo", rates: { input_mtok: 2, output_mtok: 6 }, effectiveFrom: new Date(now - 5 * hour).toISOString() },
    });
    const done = await recalculated({ model: "acme:gizmo" });
    expect(done).toMatchObject({ status: "DONE", total: 3, done: 3, changed: 3, error_message: null });
    const each = (1000 * 2 + 500 * 6) / M;
    for (let i = 0; i < 3; i++) expect((await logBy(`chatcmpl-gizmo-${i}`)).costUsd!).toBeCloseTo(each, 12);
    // The closed hour is summed again by the next rollup run.
    await closeUsageHours(ctx, new Date(now));
    const after = (await usage()).totals;
    expect(after.costUsd).toBeCloseTo(3 * each, 12);
    expect(after.unpriced).toBe(0);
    expect(after.classes.input_usd).toBeCloseTo((3 * 2000) / M, 12);

    // Again: nothing changes.
    expect(await recalculated({ model: "acme:gizmo" })).toMatchObject({ status: "DONE", total: 3, changed: 0 });

    // One at a time: with the worker stopped, a second is refused while the first waits.
    await worker.stop();
    let first: { id: string } | null = null;
    try {
      first = await api.ok("POST /costs/recalculate", { body: { filter: { model: "acme:gizmo" } } });
      const second = await t.request("POST", "/api/v1/costs/recalculate", { key: t.project.apiKey, body: {} });
      expect(second.status).toBe(409);
      expect(((await second.json()) as { message: string }).message).toContain(first!.id);
    } finally {
      worker = startJobs(t.deps);
    }
    // Once the worker is back, the waiting one runs and the next may start.
    await waitFor(() => api.ok("GET /costs/recalculations/:recalculationId", { params: { recalculationId: first!.id } }), {
      until: (r) => r.status === "DONE",
      timeoutMs: 20_000,
      message: "the waiting recalculation did not run",
    });
  });

  test("logs older than the classes are split by class from their token columns; GraphQL and tRPC follow it", async () => {
    const at = new Date(Date.now() - 60_000);
    await seedLogs(t, [
      {
        at,
        model: "openai:gpt-4o-mini",
        provider: "openai",
        statusCode: 200,
        inputTokens: 2000,
        cachedInputTokens: 1000,
        outputTokens: 100,
        costUsd: 99,
        completionId: "old-1",
      },
    ]);
    const g = await gqlData<{ recalculateCosts: { id: string } }>(t, `mutation { recalculateCosts(filter: { completionId: "old-1" }) { id status total } }`);
    const r = await waitFor(() => trpcClient(t, t.project.apiKey).pricing.recalculation.query({ id: g.recalculateCosts.id }), {
      until: (x) => x.status === "DONE",
      timeoutMs: 20_000,
      message: "not done",
    });
    expect(r).toMatchObject({ total: 1, changed: 1 });
    // gpt-4o-mini: $0.15 input, $0.075 cached, $0.60 output per million.
    const log = await logBy("old-1");
    expect(log.classes).toEqual({
      input_tokens: 1000,
      input_usd: 150 / M,
      cache_read_tokens: 1000,
      cache_read_usd: 75 / M,
      output_tokens: 100,
      output_usd: 60 / M,
    });
    expect(log.costUsd!).toBeCloseTo(285 / M, 12);
    expect(log.priceVersion).toMatch(/openai\/gpt-4o-mini$/);
    expect((await t.request("GET", "/api/v1/costs/recalculations/rcalc_nope", { key: t.project.apiKey })).status).toBe(404);
  });
});

describe("property: after recalculation the rollups equal the logs", () => {
  test("random usage over three closed hours, an override on one model, every log re-priced", async () => {
    const p = await t.createProject("property");
    const api2 = rest(t, { key: p.apiKey });
    let seed = 7;
    const next = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const hour = 3_600_000;
    const now = Date.now();
    const models = ["gpt-4o-mini", "o3", "my-vllm:llama-3"];
    for (let i = 0; i < 30; i++) {
      const prompt = Math.floor(next() * 5000);
      const cached = Math.floor(next() * prompt);
      const completion = Math.floor(next() * 2000);
      const model = models[Math.floor(next() * models.length)]!;
      await api2.ok("POST /report", {
        body: {
          requestedAt: now - 4 * hour + Math.floor(next() * 3 * hour),
          statusCode: 200,
          reqPayload: { model, messages: [{ role: "user", content: "x" }] },
          respPayload: {
            id: `chatcmpl-prop-${i}`,
            object: "chat.completion",
            created: 1,
            model,
            choices: [],
            usage: {
              prompt_tokens: prompt,
              completion_tokens: completion,
              total_tokens: prompt + completion,
              prompt_tokens_details: { cached_tokens: cached },
              completion_tokens_details: { reasoning_tokens: Math.floor(next() * completion) },
            },
          },
        },
      });
    }
    const ctx = { ...systemCtx(t.deps, "test"), projectId: p.projectId };
    while ((await closeUsageHours(ctx, new Date(now))) > 0);
    await api2.ok("POST /price-overrides", { body: { model: "openai:o3", multiplier: 0.7 } });
    await api2.ok("POST /price-overrides", { body: { model: "my-vllm:llama-3", rates: { input_mtok: 0.2, cache_read_mtok: 0.05, output_mtok: 0.9 } } });
    const started = await api2.ok("POST /costs/recalculate", { body: {} });
    await waitFor(() => api2.ok("GET /costs/recalculations/:recalculationId", { params: { recalculationId: started.id } }), {
      until: (r) => r.status === "DONE",
      timeoutMs: 20_000,
      message: "not done",
    });
    await closeUsageHours(ctx, new Date(now));
    const floor = (ms: number) => Math.floor(ms / hour) * hour;
    const u = await trpcClient(t, p.apiKey).logs.usage.query({
      from: new Date(floor(now - 5 * hour)).toISOString(),
      to: new Date(floor(now - hour)).toISOString(),
      bucket: "hour",
      groupBy: "model",
      classes: true,
    });
    const logs = (await logsOf(t, p.projectId)).filter((l) => l.completionId?.startsWith("chatcmpl-prop-"));
    expect(logs).toHaveLength(30);
    expect(logs.every((l) => l.costFlag === null && l.costUsd !== null)).toBe(true);
    // Every figure of every model's group: the rollups (closed hours) against the logs.
    for (const g of u.groups) {
      const mine = logs.filter((l) => {
        const h = floor(Number.parseInt(l.id.slice(4, 16), 16));
        return l.model === g.group && h >= floor(now - 5 * hour) && h < floor(now - hour);
      });
      expect(g.requests).toBe(mine.length);
      expect(g.costUsd).toBeCloseTo(
        mine.reduce((s, l) => s + (l.costUsd ?? 0), 0),
        12,
      );
      const sums: Record<string, number> = {};
      for (const l of mine) for (const [k, v] of Object.entries(l.classes ?? {})) sums[k] = (sums[k] ?? 0) + v;
      expect(Object.keys(g.classes).sort()).toEqual(Object.keys(sums).sort());
      for (const [k, v] of Object.entries(sums)) expect(g.classes[k]!).toBeCloseTo(v, 12);
      // And the classes add up to the cost.
      const classUsd = Object.entries(g.classes)
        .filter(([k]) => k.endsWith("_usd"))
        .reduce((s, [, v]) => s + v, 0);
      expect(classUsd).toBeCloseTo(g.costUsd, 12);
    }
    expect(u.groups.map((g) => g.group).sort()).toEqual(["my-vllm:llama-3", "openai:gpt-4o-mini", "openai:o3"]);
  });
});

describe("invoice lines", () => {
  test("a line per day, provider, model and class; their sum is the usage's cost; JSON and CSV", async () => {
    const p = await t.createProject("invoice");
    const day = Date.UTC(2026, 10, 20);
    await seedLogs(
      t,
      [
        {
          at: new Date(day + 3_600_000),
          model: "openai:gpt-4o-mini",
          provider: "openai",
          statusCode: 200,
          costUsd: 0.3,
          classes: { input_tokens: 10, input_usd: 0.1, output_tokens: 5, output_usd: 0.2 },
        },
        {
          at: new Date(day + 7_200_000),
          model: "openai:gpt-4o-mini",
          provider: "openai",
          statusCode: 200,
          costUsd: 0.03,
          classes: { input_tokens: 1, input_usd: 0.01, output_tokens: 1, output_usd: 0.02 },
        },
        // Written before the classes: its cost is a line of its own.
        { at: new Date(day + 86_400_000 + 60_000), model: "anthropic:claude-haiku-4-5", provider: "anthropic", statusCode: 200, costUsd: 0.5 },
      ],
      p.projectId,
    );
    // Whole closed days are read from the daily rollups: these logs were written into hours long
    // closed, so their hours are marked to be summed again (as a backfilled report's are), then summed.
    await t.deps.database.db.execute(sql`insert into usage_stale_hours (project_id, hour)
      values (${p.projectId}, ${new Date(day + 3_600_000).toISOString()}::timestamptz), (${p.projectId}, ${new Date(day + 7_200_000).toISOString()}::timestamptz),
        (${p.projectId}, ${new Date(day + 86_400_000).toISOString()}::timestamptz) on conflict do nothing`);
    await closeUsageHours(systemCtx(t.deps, "test"), new Date());
    const rest2 = rest(t, { key: p.apiKey });
    const json = await rest2.ok("GET /usage/invoice-lines", { query: { from: "2026-11-20", to: "2026-11-22" } });
    expect(json.data).toEqual([
      {
        object: "invoice_line",
        day: "2026-11-20",
        provider: "openai",
        model: "openai:gpt-4o-mini",
        token_class: "input",
        tokens: 11,
        cost_usd: expect.closeTo(0.11, 12),
        cursor: expect.any(String),
      },
      {
        object: "invoice_line",
        day: "2026-11-20",
        provider: "openai",
        model: "openai:gpt-4o-mini",
        token_class: "output",
        tokens: 6,
        cost_usd: expect.closeTo(0.22, 12),
        cursor: expect.any(String),
      },
      {
        object: "invoice_line",
        day: "2026-11-21",
        provider: "anthropic",
        model: "anthropic:claude-haiku-4-5",
        token_class: "unsplit",
        tokens: 0,
        cost_usd: expect.closeTo(0.5, 12),
        cursor: expect.any(String),
      },
    ]);
    expect(json.has_more).toBe(false);
    // A page at a time on every transport: two lines, then the rest after the second's cursor.
    const first2 = await rest2.ok("GET /usage/invoice-lines", { query: { from: "2026-11-20", to: "2026-11-22", limit: "2" } });
    expect(first2.data.map((l: { token_class: string }) => l.token_class)).toEqual(["input", "output"]);
    expect(first2.has_more).toBe(true);
    const [c0, c1] = first2.data.map((l: { cursor: string }) => l.cursor) as [string, string];
    const rest1 = await rest2.ok("GET /usage/invoice-lines", { query: { from: "2026-11-20", to: "2026-11-22", limit: "2", after: c1 } });
    expect(rest1.data.map((l: { token_class: string }) => l.token_class)).toEqual(["unsplit"]);
    expect(rest1.has_more).toBe(false);
    const viaTrpc = await trpcClient(t, p.apiKey).pricing.invoiceLines.query({ from: "2026-11-20", to: "2026-11-22", first: 1, after: c0 });
    expect(viaTrpc.map((l) => l.tokenClass)).toEqual(["output"]);
    const paged = await gqlData<{ invoiceLines: { tokenClass: string }[] }>(
      t,
      `query($after: String) { invoiceLines(from: "2026-11-20", to: "2026-11-22", first: 5, after: $after) { tokenClass } }`,
      { after: c0 },
      { key: p.apiKey },
    );
    expect(paged.invoiceLines.map((l) => l.tokenClass)).toEqual(["output", "unsplit"]);
    // A cursor of another range, a page past the ceiling, paging the CSV: 400s that say which.
    const stale = await t.request("GET", `/api/v1/usage/invoice-lines?from=2026-11-21&to=2026-11-22&after=${c0}`, { key: p.apiKey });
    expect(stale.status).toBe(400);
    expect(((await stale.json()) as { message: string }).message).toContain("after: not the cursor of a line in this range");
    const tooMany = await t.request("GET", "/api/v1/usage/invoice-lines?from=2026-11-20&to=2026-11-22&limit=100000", { key: p.apiKey });
    expect(tooMany.status).toBe(400);
    const csvPaged = await t.request("GET", "/api/v1/usage/invoice-lines?from=2026-11-20&to=2026-11-22&format=csv&limit=2", { key: p.apiKey });
    expect(csvPaged.status).toBe(400);
    expect(((await csvPaged.json()) as { message: string }).message).toContain("the CSV holds the whole range");
    const res = await t.request("GET", "/api/v1/usage/invoice-lines?from=2026-11-20&to=2026-11-22&format=csv", { key: p.apiKey });
    expect(res.headers.get("content-type")).toStartWith("text/csv");
    const csv = (await res.text()).trim().split("\r\n");
    expect(csv[0]).toBe("day,provider,model,token_class,tokens,cost_usd");
    expect(csv).toHaveLength(4);
    expect(csv[3]).toBe("2026-11-21,anthropic,anthropic:claude-haiku-4-5,unsplit,0,0.5");
    const g = await gqlData<{ invoiceLines: { tokenClass: string }[] }>(
      t,
      `{ invoiceLines(from: "2026-11-20", to: "2026-11-22") { tokenClass } }`,
      {},
      { key: p.apiKey },
    );
    expect(g.invoiceLines.map((l) => l.tokenClass)).toEqual(["input", "output", "unsplit"]);
    for (const query of [
      { from: "2026-11-20T05:00:00Z", to: "2026-11-22" },
      { from: "2026-11-22", to: "2026-11-20" },
      { from: "x", to: "2026-11-22" },
    ]) {
      const bad = await t.request("GET", `/api/v1/usage/invoice-lines?${new URLSearchParams(query)}`, { key: p.apiKey });
      expect(bad.status).toBe(400);
    }
  });
});
