import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import type OpenAI from "openai";
import { systemCtx } from "../../src/domain/context";
import { closeUsageHours } from "../../src/domain/logs";
import { usageFromRollups } from "../../src/domain/logs/usage-from-rollups";
import { setProviderKey } from "../../src/domain/projects";
import { createTestApp, openAiClient, serve, storeProviderKey, type TestApp } from "../helpers/app";
import { startFakeAnthropic, startFakeOpenAI, type FakeUpstream } from "../helpers/fake-upstreams";
import { gqlData } from "../helpers/gql";
import { logsOf } from "../helpers/logs";
import { rest, type Rest } from "../helpers/rest";
import { trpcClient } from "../helpers/trpc";

// Cost by token class over the wire: gateway calls (streamed and not, chat and native Messages) and
// reports, each log's classes and price version, the flags of calls without a plain cost, and the
// usage by class equal to the logs' sums, from the rollups and after a delete.

const KEY = "sk-ant-cost-classes-01";
const M = 1e6;
// Anthropic's documented usage with both cache lifetimes (claude-haiku-4-5: $1 input, $1.25
// 5-minute writes, $2 1-hour writes, $0.10 cache reads, $5 output per million tokens).
const USAGE = {
  input_tokens: 50,
  cache_creation_input_tokens: 3000,
  cache_creation: { ephemeral_5m_input_tokens: 1000, ephemeral_1h_input_tokens: 2000 },
  cache_read_input_tokens: 400,
  output_tokens: 200,
};
const HAIKU = {
  input_tokens: 50,
  input_usd: 50 / M,
  cache_read_tokens: 400,
  cache_read_usd: 40 / M,
  cache_write_5m_tokens: 1000,
  cache_write_5m_usd: 1250 / M,
  cache_write_1h_tokens: 2000,
  cache_write_1h_usd: 4000 / M,
  output_tokens: 200,
  output_usd: 1000 / M,
};
const HAIKU_COST = (50 + 40 + 1250 + 4000 + 1000) / M;

let t: TestApp;
let fake: FakeUpstream;
let server: { url: string; stop(): Promise<void> };
let client: OpenAI;
let api: Rest;

beforeAll(async () => {
  fake = startFakeAnthropic({ apiKey: KEY, usage: USAGE });
  t = await createTestApp({ env: { ANTHROPIC_BASE_URL: fake.url, HONE_METRICS_TOKEN: "metrics-token-cost-classes-0001" } });
  await setProviderKey({ ...systemCtx(t.deps, "test"), projectId: t.project.projectId }, { provider: "anthropic", apiKey: KEY });
  server = serve(t.app);
  client = openAiClient(server.url, t.project.apiKey);
  api = rest(t);
});
afterAll(async () => {
  await server.stop();
  await fake.stop();
  await t.close();
});

const expectClasses = (actual: Record<string, number> | null, expected: Record<string, number>) => {
  expect(Object.keys(actual ?? {}).sort()).toEqual(Object.keys(expected).sort());
  for (const [k, v] of Object.entries(expected)) expect(actual![k]).toBeCloseTo(v, 12);
};

describe("gateway calls", () => {
  test("chat, streamed and not, and native Messages, streamed and not: every class at its rate", async () => {
    const before = (await logsOf(t)).length;
    await client.chat.completions.create({ model: "anthropic:claude-haiku-4-5", messages: [{ role: "user", content: "hi" }] });
    const stream = await client.chat.completions.create({
      model: "anthropic:claude-haiku-4-5",
      messages: [{ role: "user", content: "hi" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    for await (const _ of stream);
    const sdk = new Anthropic({ baseURL: `${server.url}/api`, apiKey: t.project.apiKey, maxRetries: 0 });
    await sdk.messages.create({ model: "anthropic:claude-haiku-4-5", max_tokens: 50, messages: [{ role: "user", content: "hi" }] });
    await sdk.messages.stream({ model: "anthropic:claude-haiku-4-5", max_tokens: 50, messages: [{ role: "user", content: "hi" }] }).finalMessage();
    const logs = (await logsOf(t)).slice(before);
    expect(logs).toHaveLength(4);
    for (const log of logs) {
      expect(log.statusCode).toBe(200);
      expect(log.inputTokens).toBe(3450);
      expect(log.cacheWriteTokens).toBe(3000);
      expectClasses(log.classes, HAIKU);
      expect(log.costUsd!).toBeCloseTo(HAIKU_COST, 12);
      expect(log.priceVersion).toMatch(/^genai-prices [\d.]+: anthropic\/claude-haiku-4-5$/);
      expect(log.costFlag).toBeNull();
    }
  });
});

describe("OpenAI chat, streamed and not", () => {
  test("cached input and reasoning in OpenAI's documented usage become classes (o3: $2 in, $0.50 cached, $8 out)", async () => {
    const openai = startFakeOpenAI({
      chatUsage: {
        prompt_tokens: 2000,
        completion_tokens: 1500,
        total_tokens: 3500,
        prompt_tokens_details: { cached_tokens: 1200, audio_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 1000, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
      },
    });
    const app = await createTestApp({ env: { OPENAI_BASE_URL: `${openai.url}/v1` } });
    try {
      await storeProviderKey(app, "openai", "sk-openai-chat-classes");
      const s = serve(app.app);
      try {
        const sdk = openAiClient(s.url, app.project.apiKey);
        await sdk.chat.completions.create({ model: "o3", messages: [{ role: "user", content: "hi" }] });
        const stream = await sdk.chat.completions.create({
          model: "o3",
          messages: [{ role: "user", content: "hi" }],
          stream: true,
          stream_options: { include_usage: true },
        });
        for await (const _ of stream);
        const logs = await logsOf(app);
        expect(logs).toHaveLength(2);
        for (const log of logs) {
          expectClasses(log.classes, {
            input_tokens: 800,
            input_usd: 1600 / M,
            cache_read_tokens: 1200,
            cache_read_usd: 600 / M,
            output_tokens: 500,
            output_usd: 4000 / M,
            reasoning_tokens: 1000,
            reasoning_usd: 8000 / M,
          });
          expect(log.costUsd!).toBeCloseTo(14_200 / M, 12);
          expect(log.priceVersion).toMatch(/openai\/o3 from 2025-06-10$/);
        }
      } finally {
        await s.stop();
      }
    } finally {
      await app.close();
      await openai.stop();
    }
  });
});

describe("a streamed Response passed through to OpenAI", () => {
  test("input_tokens_details and output_tokens_details become classes (o3: $2 in, $0.50 cached, $8 out)", async () => {
    const openai = startFakeOpenAI();
    const app = await createTestApp({ env: { OPENAI_BASE_URL: `${openai.url}/v1` } });
    try {
      await storeProviderKey(app, "openai", "sk-openai-cost-classes");
      const s = serve(app.app);
      try {
        const sdk = openAiClient(s.url, app.project.apiKey);
        await sdk.responses.stream({ model: "o3", input: "Think, then answer", reasoning: { effort: "low" } }).finalResponse();
        const [log] = await logsOf(app);
        // The fake's usage: 13 input of which 4 cached, 9 output of which 5 reasoning.
        expectClasses(log!.classes, {
          input_tokens: 9,
          input_usd: 18 / M,
          cache_read_tokens: 4,
          cache_read_usd: 2 / M,
          output_tokens: 4,
          output_usd: 32 / M,
          reasoning_tokens: 5,
          reasoning_usd: 40 / M,
        });
        expect(log!.costUsd!).toBeCloseTo(92 / M, 12);
        expect(log!.api).toBe("responses");
      } finally {
        await s.stop();
      }
    } finally {
      await app.close();
      await openai.stop();
    }
  });
});

describe("reports", () => {
  test("priced at the price of the day the call was made; the version says which", async () => {
    const usage = { prompt_tokens: 1000, completion_tokens: 300, total_tokens: 1300, completion_tokens_details: { reasoning_tokens: 100 } };
    const report = (requestedAt: number, id: string) =>
      api.ok("POST /report", {
        body: {
          requestedAt,
          receivedAt: requestedAt + 1000,
          statusCode: 200,
          reqPayload: { model: "o3", messages: [{ role: "user", content: "x" }] },
          respPayload: { id, object: "chat.completion", created: 1, model: "o3", choices: [], usage },
          tags: { run: "price-change" },
        },
      });
    await report(Date.parse("2025-06-09T12:00:00Z"), "chatcmpl-before");
    await report(Date.parse("2025-06-11T12:00:00Z"), "chatcmpl-after");
    const logs = (await logsOf(t)).filter((l) => l.tags.run === "price-change");
    const [before, after] = [logs.find((l) => l.completionId === "chatcmpl-before")!, logs.find((l) => l.completionId === "chatcmpl-after")!];
    // o3: $10 in / $40 out until 2025-06-10, then $2 / $8; reasoning is billed as output.
    expectClasses(before.classes, {
      input_tokens: 1000,
      input_usd: 10_000 / M,
      output_tokens: 200,
      output_usd: 8000 / M,
      reasoning_tokens: 100,
      reasoning_usd: 4000 / M,
    });
    expect(before.costUsd!).toBeCloseTo(22_000 / M, 12);
    expectClasses(after.classes, {
      input_tokens: 1000,
      input_usd: 2000 / M,
      output_tokens: 200,
      output_usd: 1600 / M,
      reasoning_tokens: 100,
      reasoning_usd: 800 / M,
    });
    expect(after.costUsd!).toBeCloseTo(4400 / M, 12);
    expect(before.priceVersion).toMatch(/openai\/o3$/);
    expect(after.priceVersion).toMatch(/openai\/o3 from 2025-06-10$/);
  });

  test("/report-anthropic keeps both cache lifetimes", async () => {
    await api.ok("POST /report-anthropic", {
      body: {
        statusCode: 200,
        reqPayload: { model: "claude-haiku-4-5", max_tokens: 10, messages: [{ role: "user", content: "x" }] },
        respPayload: { id: "msg_cost", type: "message", role: "assistant", model: "claude-haiku-4-5", content: [], stop_reason: "end_turn", usage: USAGE },
      },
    });
    const log = (await logsOf(t)).find((l) => l.completionId === "msg_cost")!;
    expectClasses(log.classes, HAIKU);
    expect(log.costUsd!).toBeCloseTo(HAIKU_COST, 12);
  });

  test("no silent zero: an unknown model and a call without usage are flagged, in the log, GraphQL and /metrics", async () => {
    const body = (model: string, usage: unknown, id: string) => ({
      statusCode: 200,
      reqPayload: { model, messages: [{ role: "user", content: "x" }] },
      respPayload: { id, object: "chat.completion", created: 1, model, choices: [], ...(usage ? { usage } : {}) },
    });
    await api.ok("POST /report", { body: body("my-own-llama", { prompt_tokens: 5, completion_tokens: 5, total_tokens: 10 }, "chatcmpl-noprice") });
    await api.ok("POST /report", { body: body("gpt-4o-mini", null, "chatcmpl-nousage") });
    // A failed call with no usage is billed nothing and says so by its status: not flagged.
    await api.ok("POST /report", { body: { ...body("gpt-4o-mini", null, "chatcmpl-failed"), statusCode: 500 } });
    const logs = await logsOf(t);
    const by = (id: string) => logs.find((l) => l.completionId === id)!;
    expect(by("chatcmpl-noprice")).toMatchObject({ costUsd: null, costFlag: "no_price", priceVersion: null });
    expect(by("chatcmpl-nousage")).toMatchObject({ costUsd: null, costFlag: "no_usage" });
    expect(by("chatcmpl-failed")).toMatchObject({ costUsd: null, costFlag: null });
    const data = await gqlData<{ log: { costFlag: string; classes: { tokenClass: string; tokens: number; costUsd: number | null }[] } }>(
      t,
      `query($id: ID!) { log(id: $id) { costFlag classes { tokenClass tokens costUsd } } }`,
      { id: by("chatcmpl-noprice").id },
    );
    expect(data.log).toEqual({
      costFlag: "no_price",
      classes: [
        { tokenClass: "input", tokens: 5, costUsd: null },
        { tokenClass: "output", tokens: 5, costUsd: null },
      ],
    });
    const metrics = await (await fetch(`${server.url}/metrics`, { headers: { authorization: "Bearer metrics-token-cost-classes-0001" } })).text();
    expect(metrics).toMatch(/^hone_logs_unpriced_total\{reason="no_price"\} 1$/m);
    expect(metrics).toMatch(/^hone_logs_unpriced_total\{reason="no_usage"\} 1$/m);
  });
});

describe("usage by class", () => {
  test("equals the logs' sums, from the rollups of closed hours, and after a delete", async () => {
    const now = Date.now();
    const hour = 3_600_000;
    // Mid-hour three hours ago, so the rollups close it and the six calls never straddle an hour's
    // end (a run a few seconds before the hour put half of them in the next one).
    const start = Math.floor((now - 3 * hour) / hour) * hour + hour / 2;
    for (let i = 0; i < 6; i++) {
      await api.ok("POST /report-anthropic", {
        body: {
          requestedAt: start + i * 1000,
          statusCode: 200,
          tags: { batch: i % 2 ? "odd" : "even" },
          reqPayload: { model: "claude-haiku-4-5", max_tokens: 10, messages: [{ role: "user", content: "x" }] },
          respPayload: { id: `msg_u${i}`, type: "message", role: "assistant", model: "claude-haiku-4-5", content: [], stop_reason: "end_turn", usage: USAGE },
        },
      });
    }
    const ctx = { ...systemCtx(t.deps, "test"), projectId: t.project.projectId };
    while ((await closeUsageHours(ctx, new Date(now))) > 0);
    const trpc = trpcClient(t, t.project.apiKey);
    // Whole hours, so the rollups answer for all of it.
    const floor = (ms: number) => Math.floor(ms / hour) * hour;
    const range = { from: new Date(floor(now - 4 * hour)).toISOString(), to: new Date(floor(now - 2 * hour)).toISOString(), bucket: "hour" as const };
    expect(
      await usageFromRollups(ctx, { ...range, from: new Date(range.from), to: new Date(range.to), groupBy: "none", tagKey: null, classes: true }),
    ).not.toBeNull();
    const sumOf = (ls: { classes: Record<string, number> | null }[]) => {
      const out: Record<string, number> = {};
      for (const l of ls) for (const [k, v] of Object.entries(l.classes ?? {})) out[k] = (out[k] ?? 0) + v;
      return out;
    };
    const inRange = async () => {
      const all = await logsOf(t);
      return all.filter((l) => {
        const ms = Number.parseInt(l.id.slice(4, 16), 16);
        return ms >= Date.parse(range.from) && ms < Date.parse(range.to);
      });
    };
    const u = await trpc.logs.usage.query({ ...range, classes: true });
    expect(u.totals.requests).toBe(6);
    expectClasses(u.totals.classes, sumOf(await inRange()));
    expect(u.totals.classes.cache_write_1h_tokens).toBe(12_000);
    expect(u.totals.costUsd).toBeCloseTo(6 * HAIKU_COST, 12);
    // The same from the logs themselves (a filter the rollups cannot answer), split by model and tag.
    for (const split of [{ groupBy: "model" as const }, { groupBy: "tag" as const, tagKey: "batch" }]) {
      const fromLogs = await trpc.logs.usage.query({ ...range, ...split, filter: { cacheHit: false }, classes: true });
      // Not asked for: no classes, the rest the same.
      const without = await trpc.logs.usage.query({ ...range, ...split, filter: { cacheHit: false } });
      expect(without.totals.classes).toEqual({});
      expect(without.totals.costUsd).toBeCloseTo(fromLogs.totals.costUsd, 12);
      expectClasses(fromLogs.totals.classes, sumOf(await inRange()));
      const groupSums: Record<string, number> = {};
      for (const g of fromLogs.groups) for (const [k, v] of Object.entries(g.classes)) groupSums[k] = (groupSums[k] ?? 0) + v;
      expectClasses(groupSums, sumOf(await inRange()));
      const seriesSums: Record<string, number> = {};
      for (const s of fromLogs.series) for (const [k, v] of Object.entries(s.classes)) seriesSums[k] = (seriesSums[k] ?? 0) + v;
      expectClasses(seriesSums, sumOf(await inRange()));
    }

    // Deleting logs of a closed hour takes their classes out of the rollups.
    expect(await trpc.logs.deleteByFilter.mutate({ filter: { tags: [{ key: "batch", equals: "odd" }] } })).toMatchObject({ deleted: 3 });
    const after = await trpc.logs.usage.query({ ...range, classes: true });
    expect(after.totals.requests).toBe(3);
    expectClasses(after.totals.classes, sumOf(await inRange()));
    expect(after.totals.classes.cache_write_1h_tokens).toBe(6000);
  });
});
