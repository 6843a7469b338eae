import { expect, test } from "bun:test";
import { calcPrice } from "@pydantic/genai-prices";
import { costOf } from "../../src/domain/completions/cost";

// The remembered fast path must give the library's own answer, for every kind of usage.
const cases: [string, string, string, Parameters<typeof costOf>[2]][] = [
  ["openai", "openai", "gpt-4o-mini", { prompt_tokens: 1234, completion_tokens: 567, total_tokens: 1801 }],
  ["openai", "openai", "gpt-4o", { prompt_tokens: 2000, completion_tokens: 10, total_tokens: 2010, prompt_tokens_details: { cached_tokens: 1500 } }],
  ["openai", "openai", "gpt-4.1-mini", { prompt_tokens: 10, completion_tokens: 10_000, total_tokens: 10_010 }],
  [
    "anthropic",
    "anthropic",
    "claude-sonnet-4-5",
    { prompt_tokens: 5000, completion_tokens: 300, total_tokens: 5300, prompt_tokens_details: { cached_tokens: 1000 }, cache_creation_input_tokens: 2000 },
  ],
  ["anthropic", "anthropic", "claude-3-5-haiku-20241022", { prompt_tokens: 100, completion_tokens: 100, total_tokens: 200 }],
  ["gemini", "google", "gemini-2.0-flash", { prompt_tokens: 800, completion_tokens: 200, total_tokens: 1000 }],
  ["gemini", "google", "gemini-2.5-pro", { prompt_tokens: 300_000, completion_tokens: 1000, total_tokens: 301_000 }],
  // A long-context surcharge (tiers from 200k input tokens): its base below, the tier above, either side of the line.
  ["anthropic", "anthropic", "claude-sonnet-4-5", { prompt_tokens: 200_000, completion_tokens: 50, total_tokens: 200_050 }],
  ["anthropic", "anthropic", "claude-sonnet-4-5", { prompt_tokens: 200_001, completion_tokens: 50, total_tokens: 200_051 }],
  [
    "anthropic",
    "anthropic",
    "claude-sonnet-4-5",
    { prompt_tokens: 180_000, completion_tokens: 9, total_tokens: 180_009, prompt_tokens_details: { cached_tokens: 170_000 } },
  ],
  ["gemini", "google", "gemini-2.5-pro", { prompt_tokens: 1000, completion_tokens: 1000, total_tokens: 2000 }],
];

test("remembered prices equal the price table's answer, first call and later calls", () => {
  for (const [provider, providerId, model, usage] of cases) {
    const u = usage!;
    const read = u.prompt_tokens_details?.cached_tokens ?? 0;
    const write = u.cache_creation_input_tokens ?? 0;
    const expected = calcPrice(
      {
        input_tokens: u.prompt_tokens,
        output_tokens: u.completion_tokens,
        ...(read ? { cache_read_tokens: read } : {}),
        ...(write ? { cache_write_tokens: write } : {}),
      },
      model,
      { providerId },
    );
    expect(expected).toBeTruthy();
    for (let i = 0; i < 3; i++) expect(costOf(provider, model, usage)!).toBeCloseTo(Number(expected!.total_price), 12);
  }
});

test("unknown models and providers cost null", () => {
  expect(costOf("openai", "not-a-model-xyz", { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 })).toBeNull();
  expect(costOf("openai", "not-a-model-xyz", { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 })).toBeNull();
  expect(costOf("custom", "llama", { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 })).toBeNull();
  expect(costOf("openai", "gpt-4o-mini", null)).toBeNull();
});
