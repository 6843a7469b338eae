import { describe, expect, test } from "bun:test";
import { calcPrice } from "@pydantic/genai-prices";
import { responseToChat } from "../../src/domain/protocols/responses-format";
import { logCost, ratesFor } from "../../src/domain/pricing/log-cost";
import { PRICE_TABLE } from "../../src/domain/pricing/price-usage";
import { tokenClasses } from "../../src/domain/logs/checked-usage";
import { fromAnthropicMessage, type Usage } from "../../src/providers";

// The golden corpus: usage in each provider's documented shape, read the way Hone reads it, and
// what each token class must cost, worked out by hand from the provider's price per million tokens.
// Each case names the bug of another gateway it guards against.

const anthropic = (usage: Record<string, unknown>): Usage =>
  fromAnthropicMessage({ id: "msg_1", type: "message", role: "assistant", model: "m", content: [], stop_reason: "end_turn", usage }, 0).usage!;
const responses = (usage: Record<string, unknown>): Usage =>
  responseToChat({ id: "resp_1", object: "response", created_at: 0, model: "m", status: "completed", output: [], usage }).usage!;

type Case = {
  name: string;
  provider: string;
  model: string;
  at?: string;
  usage: Usage;
  /** tokens and $ by class */
  expected: Record<string, [number, number]>;
  outputTokens?: number;
};

const M = 1e6;
const cases: Case[] = [
  {
    name: "Anthropic cache reads at the cache-read rate, not as input (LiteLLM #11364)",
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    usage: anthropic({ input_tokens: 100, cache_read_input_tokens: 10_000, cache_creation_input_tokens: 0, output_tokens: 500 }),
    // $3 input, $0.30 cache read, $15 output per million
    expected: { input: [100, (100 * 3) / M], cache_read: [10_000, (10_000 * 0.3) / M], output: [500, (500 * 15) / M] },
  },
  {
    name: "Anthropic 5-minute and 1-hour cache writes at their own rates, each counted once (LiteLLM PR #26919)",
    provider: "anthropic",
    model: "claude-haiku-4-5",
    usage: anthropic({
      input_tokens: 50,
      cache_creation_input_tokens: 3000,
      cache_creation: { ephemeral_5m_input_tokens: 1000, ephemeral_1h_input_tokens: 2000 },
      cache_read_input_tokens: 0,
      output_tokens: 200,
    }),
    // $1 input, $1.25 5-minute writes, $2 1-hour writes, $5 output
    expected: { input: [50, 50 / M], cache_write_5m: [1000, 1250 / M], cache_write_1h: [2000, 4000 / M], output: [200, 1000 / M] },
  },
  {
    name: "OpenAI chat: cached input once and reasoning billed as output (LiteLLM #18599, Langfuse #10592)",
    provider: "openai",
    model: "o3",
    at: "2025-07-01T00:00:00Z",
    usage: {
      prompt_tokens: 2000,
      completion_tokens: 1500,
      total_tokens: 3500,
      prompt_tokens_details: { cached_tokens: 1200 },
      completion_tokens_details: { reasoning_tokens: 1000 },
    },
    // o3 from 2025-06-10: $2 input, $0.50 cached, $8 output
    expected: { input: [800, 1600 / M], cache_read: [1200, 600 / M], output: [500, 4000 / M], reasoning: [1000, 8000 / M] },
  },
  {
    name: "OpenAI Responses: input_tokens_details and output_tokens_details",
    provider: "openai",
    model: "gpt-5-mini",
    usage: responses({
      input_tokens: 5000,
      input_tokens_details: { cached_tokens: 4000 },
      output_tokens: 900,
      output_tokens_details: { reasoning_tokens: 600 },
      total_tokens: 5900,
    }),
    // $0.25 input, $0.025 cached, $2 output
    expected: { input: [1000, 250 / M], cache_read: [4000, 100 / M], output: [300, 600 / M], reasoning: [600, 1200 / M] },
  },
  {
    name: "Gemini implicit caching counted once, thinking outside completion_tokens added back (LiteLLM #14849)",
    provider: "gemini",
    model: "gemini-2.5-flash",
    usage: {
      prompt_tokens: 10_000,
      completion_tokens: 200,
      total_tokens: 10_700,
      prompt_tokens_details: { cached_tokens: 8000 },
      completion_tokens_details: { reasoning_tokens: 500 },
    },
    // $0.30 input, $0.03 cached, $2.50 output (thinking included)
    expected: { input: [2000, 600 / M], cache_read: [8000, 240 / M], output: [200, 500 / M], reasoning: [500, 1250 / M] },
    outputTokens: 700,
  },
  {
    name: "Gemini thinking already inside completion_tokens is not counted twice",
    provider: "gemini",
    model: "gemini-2.5-flash",
    usage: { prompt_tokens: 1000, completion_tokens: 700, total_tokens: 1700, completion_tokens_details: { reasoning_tokens: 500 } },
    expected: { input: [1000, 300 / M], output: [200, 500 / M], reasoning: [500, 1250 / M] },
    outputTokens: 700,
  },
  {
    name: "An embedding: input only",
    provider: "openai",
    model: "text-embedding-3-small",
    usage: { prompt_tokens: 3000, completion_tokens: 0, total_tokens: 3000 },
    expected: { input: [3000, (3000 * 0.02) / M] },
  },
  {
    name: "A long prompt: the whole call at the long-context tier",
    provider: "gemini",
    model: "gemini-2.5-pro",
    usage: { prompt_tokens: 250_000, completion_tokens: 1000, total_tokens: 251_000 },
    // over 200k input tokens: $2.50 input, $15 output
    expected: { input: [250_000, 0.625], output: [1000, 0.015] },
  },
  {
    name: "Audio tokens at the audio rates",
    provider: "openai",
    model: "gpt-realtime",
    usage: {
      prompt_tokens: 1000,
      completion_tokens: 500,
      total_tokens: 1500,
      prompt_tokens_details: { cached_tokens: 100, audio_tokens: 400 },
      completion_tokens_details: { audio_tokens: 300 },
    },
    // $4 text in, $0.40 cached, $32 audio in, $16 text out, $64 audio out
    expected: { input: [500, 2000 / M], cache_read: [100, 40 / M], audio_input: [400, 12_800 / M], output: [200, 3200 / M], audio_output: [300, 19_200 / M] },
  },
];

describe("golden corpus", () => {
  for (const c of cases) {
    test(c.name, () => {
      const at = new Date(c.at ?? "2026-11-01T00:00:00Z");
      const cost = logCost(c.usage, ratesFor(c.provider, c.model, at), { answered: true });
      const byClass: Record<string, [number, number]> = {};
      for (const [k, v] of Object.entries(cost.classes ?? {})) {
        const [cls, kind] = [k.replace(/_(tokens|usd)$/, ""), k.endsWith("_tokens") ? 0 : 1];
        byClass[cls] ??= [0, 0];
        byClass[cls]![kind] = v;
      }
      expect(Object.keys(byClass).sort()).toEqual(Object.keys(c.expected).sort());
      for (const [cls, [tokens, usd]] of Object.entries(c.expected)) {
        expect(byClass[cls]![0]).toBe(tokens);
        expect(byClass[cls]![1]).toBeCloseTo(usd, 12);
      }
      const sum = Object.values(c.expected).reduce((s, [, usd]) => s + usd, 0);
      expect(cost.costUsd!).toBeCloseTo(sum, 12);
      expect(cost.costFlag).toBeNull();
      expect(cost.priceVersion).toStartWith(`${PRICE_TABLE}: `);
      // The classes add up to the log's input and output tokens: nothing counted twice, nothing left out.
      const t = tokenClasses(c.usage);
      const classTokens = Object.values(c.expected).reduce((s, [n]) => s + n, 0);
      expect(classTokens).toBe((t.inputTokens ?? 0) + (t.outputTokens ?? 0));
      if (c.outputTokens !== undefined) expect(t.outputTokens).toBe(c.outputTokens);
    });
  }

  test("a price change between two calls: each priced at the price of its day, the version says which", () => {
    const usage = { prompt_tokens: 1000, completion_tokens: 100, total_tokens: 1100 };
    const before = logCost(usage, ratesFor("openai", "o3", new Date("2025-06-09T12:00:00Z")), { answered: true });
    const after = logCost(usage, ratesFor("openai", "o3", new Date("2025-06-11T12:00:00Z")), { answered: true });
    // $10 / $40 until 2025-06-10, then $2 / $8
    expect(before.costUsd!).toBeCloseTo((1000 * 10 + 100 * 40) / M, 12);
    expect(after.costUsd!).toBeCloseTo((1000 * 2 + 100 * 8) / M, 12);
    expect(before.priceVersion).toBe(`${PRICE_TABLE}: openai/o3`);
    expect(after.priceVersion).toBe(`${PRICE_TABLE}: openai/o3 from 2025-06-10`);
  });

  test("a fine-tune at its catalogue price", () => {
    const cost = logCost(
      { prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500 },
      ratesFor("hone", "hone:ft", new Date(), { chatIn: 0.2, chatOut: 0.6, name: "hone:ft" }),
      {
        answered: true,
      },
    );
    expect(cost.classes).toEqual({ input_tokens: 1000, input_usd: 200 / M, output_tokens: 500, output_usd: 300 / M });
    expect(cost.priceVersion).toBe("hone catalogue: hone:ft");
  });

  test("a self-hosted model priced per hour of call time, with or without token rates", () => {
    const usage = { prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500 };
    // $3.60 an hour is $0.001 a second: a 2.5 s call costs $0.0025, plus its tokens at $0.10 / $0.40 per million.
    const both = logCost(
      usage,
      { rates: { input_mtok: 0.1, output_mtok: 0.4 }, version: "override pov_1", usdPerHour: 3.6 },
      { answered: true, durationMs: 2500 },
    );
    expect(both.classes).toEqual({
      input_tokens: 1000,
      input_usd: 100 / M,
      output_tokens: 500,
      output_usd: 200 / M,
      compute_seconds: 2.5,
      compute_usd: expect.closeTo(0.0025, 15) as unknown as number,
    });
    expect(both.costUsd!).toBeCloseTo(0.0025 + 300 / M, 15);
    expect(both.costFlag).toBeNull();
    const timeOnly = logCost(null, { rates: {}, version: "override pov_2", usdPerHour: 7.2 }, { answered: true, durationMs: 500 });
    expect(timeOnly).toMatchObject({ costUsd: expect.closeTo(0.001, 15), classes: { compute_seconds: 0.5 }, costFlag: null });
    // Without a duration (a report without its times) time cannot be priced: flagged, not $0.
    expect(logCost(null, { rates: {}, version: "override pov_2", usdPerHour: 7.2 }, { answered: true, durationMs: null })).toMatchObject({
      costUsd: null,
      costFlag: "no_usage",
    });
  });

  test("no silent zero: no price and no usage are flagged, their cost unknown; a failed call or a cache hit is not flagged", () => {
    const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
    expect(logCost(usage, ratesFor("custom", "llama-3", new Date()), { answered: true })).toMatchObject({ costUsd: null, costFlag: "no_price" });
    expect(logCost(usage, ratesFor("openai", "not-a-model-xyz", new Date()), { answered: true })).toMatchObject({ costUsd: null, costFlag: "no_price" });
    expect(logCost(null, ratesFor("openai", "gpt-4o-mini", new Date()), { answered: true })).toMatchObject({ costUsd: null, costFlag: "no_usage" });
    expect(
      logCost({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 }, ratesFor("openai", "gpt-4o-mini", new Date()), { answered: true }),
    ).toMatchObject({
      costFlag: "no_usage",
    });
    expect(logCost(null, ratesFor("openai", "gpt-4o-mini", new Date()), { answered: false })).toMatchObject({ costUsd: null, costFlag: null });
    expect(logCost(usage, ratesFor("openai", "gpt-4o-mini", new Date()), { answered: true, cacheHit: true })).toEqual({
      costUsd: 0,
      classes: null,
      priceVersion: null,
      costFlag: null,
    });
  });

  test("PRICE_TABLE names the installed price table", async () => {
    const pkg = await Bun.file(`${import.meta.dir}/../../node_modules/@pydantic/genai-prices/package.json`).json();
    expect(PRICE_TABLE).toBe(`genai-prices ${pkg.version}`);
  });
});

/** A small seeded generator, so a failure can be replayed. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1_664_525 + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}

describe("property: random usage", () => {
  const models: [string, string, string][] = [
    ["openai", "openai", "gpt-4o-mini"],
    ["openai", "openai", "o3"],
    ["openai", "openai", "gpt-4.1"],
    ["anthropic", "anthropic", "claude-sonnet-4-5"],
    ["anthropic", "anthropic", "claude-haiku-4-5"],
    ["gemini", "google", "gemini-2.5-pro"],
    ["gemini", "google", "gemini-2.5-flash"],
  ];
  test("the classes add up to the cost and to the tokens, and the cost is the price table's own total", () => {
    const next = rng(20261127);
    const int = (max: number) => Math.floor(next() * max);
    for (let i = 0; i < 2000; i++) {
      const [provider, providerId, model] = models[int(models.length)]!;
      const input = int(next() < 0.1 ? 400_000 : 20_000);
      const read = int(input + 1);
      const write = provider === "anthropic" ? int(input - read + 1) : 0;
      const write1h = int(write + 1);
      const output = int(5000);
      const reasoning = int(output + 1);
      const usage: Usage = {
        prompt_tokens: input,
        completion_tokens: output,
        total_tokens: input + output,
        prompt_tokens_details: { cached_tokens: read },
        completion_tokens_details: { reasoning_tokens: reasoning },
        ...(write ? { cache_creation_input_tokens: write, cache_creation: { ephemeral_1h_input_tokens: write1h } } : {}),
      };
      const at = new Date(Date.UTC(2025, int(22), 1 + int(28)));
      const cost = logCost(usage, ratesFor(provider, model, at), { answered: true });
      const classes = cost.classes ?? {};
      const usd = Object.entries(classes).filter(([k]) => k.endsWith("_usd"));
      const tokens = Object.entries(classes).filter(([k]) => k.endsWith("_tokens"));
      if (input + output > 0)
        expect(cost.costUsd!).toBeCloseTo(
          usd.reduce((s, [, v]) => s + v, 0),
          12,
        );
      expect(tokens.reduce((s, [, v]) => s + v, 0)).toBe(input + output);
      const library = calcPrice(
        {
          input_tokens: input,
          output_tokens: output,
          cache_read_tokens: read,
          output_reasoning_tokens: reasoning,
          ...(write ? { cache_write_tokens: write, cache_write_1h_tokens: write1h } : {}),
        },
        model,
        { providerId, timestamp: at },
      );
      if (input + output > 0) expect(cost.costUsd!).toBeCloseTo(Number(library!.total_price), 10);
    }
  });
});
