import { describe, expect, test } from "bun:test";
import { cacheKey, KEY_EXCLUDED_MEMBERS } from "../../src/domain/cache";

function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const base = {
  model: "gpt-4o-mini",
  messages: [
    { role: "system", content: "Be brief." },
    { role: "user", content: [{ type: "text", text: "What is 2+2?" }] },
  ],
  tools: [{ type: "function", function: { name: "calc", parameters: { type: "object", properties: { x: { type: "number" } } } } }],
  tool_choice: "auto",
  temperature: 0.2,
  max_tokens: 100,
};
const key = (body: Record<string, unknown>, over: Partial<{ projectId: string; target: string; upstreamModel: string }> = {}) =>
  cacheKey({ projectId: "prj_1", target: "openai", upstreamModel: "gpt-4o-mini", body, ...over });

// Every member that can change the answer, each with values that differ from the base.
const OUTPUT_AFFECTING: Record<string, unknown[]> = {
  messages: [
    [{ role: "user", content: "What is 2+3?" }],
    [...base.messages, { role: "assistant", content: "4" }],
    [{ role: "developer", content: "Be brief." }, base.messages[1]],
  ],
  tools: [[], null, [{ type: "function", function: { name: "calc2", parameters: {} } }]],
  tool_choice: ["none", "required", { type: "function", function: { name: "calc" } }],
  functions: [[{ name: "f", parameters: {} }]],
  function_call: ["auto", { name: "f" }],
  response_format: [{ type: "json_object" }, { type: "json_schema", json_schema: { name: "x", schema: {} } }],
  max_tokens: [101, 1, null],
  max_completion_tokens: [100, 5],
  temperature: [0.3, 0, 2, null],
  top_p: [0.9, 1],
  n: [2, 5],
  seed: [1, 2],
  stop: ["\n", ["a", "b"]],
  logprobs: [true, false],
  top_logprobs: [3],
  presence_penalty: [0.5],
  frequency_penalty: [-1],
  logit_bias: [{ "50256": -100 }],
  reasoning_effort: ["low", "high"],
  parallel_tool_calls: [false],
  audio: [{ format: "wav", voice: "alloy" }],
  modalities: [["text", "audio"]],
  prediction: [{ type: "content", content: "x" }],
  top_k: [40],
  thinking: [{ type: "enabled", budget_tokens: 1024 }],
  some_future_provider_option: [true, "x"],
};

function randomJson(r: () => number, depth = 0): unknown {
  const kind = Math.floor(r() * (depth > 2 ? 4 : 6));
  switch (kind) {
    case 0:
      return Math.floor(r() * 1000) - 500;
    case 1:
      return r()
        .toString(36)
        .slice(2, 2 + Math.floor(r() * 8));
    case 2:
      return r() < 0.5;
    case 3:
      return null;
    case 4:
      return Array.from({ length: Math.floor(r() * 4) }, () => randomJson(r, depth + 1));
    default:
      return Object.fromEntries(Array.from({ length: 1 + Math.floor(r() * 4) }, (_, i) => [`k${i}${Math.floor(r() * 3)}`, randomJson(r, depth + 1)]));
  }
}

/** A copy of v with exactly one leaf changed (or one element added), at a random place. */
function mutateOne(v: unknown, r: () => number): unknown {
  if (Array.isArray(v)) {
    if (v.length === 0 || r() < 0.2) return [...v, "added"];
    const i = Math.floor(r() * v.length);
    return v.map((x, j) => (j === i ? mutateOne(x, r) : x));
  }
  if (v && typeof v === "object") {
    const keys = Object.keys(v);
    if (keys.length === 0 || r() < 0.2) return { ...v, added: 1 };
    const k = keys[Math.floor(r() * keys.length)]!;
    return { ...v, [k]: mutateOne((v as Record<string, unknown>)[k], r) };
  }
  if (typeof v === "number") return v + 1;
  if (typeof v === "string") return `${v}x`;
  if (typeof v === "boolean") return !v;
  return 0; // null -> 0
}

function shuffleKeys(v: unknown, r: () => number): unknown {
  if (Array.isArray(v)) return v.map((x) => shuffleKeys(x, r));
  if (v && typeof v === "object") {
    const entries = Object.entries(v).map(([k, x]) => [k, shuffleKeys(x, r)] as const);
    for (let i = entries.length - 1; i > 0; i--) {
      const j = Math.floor(r() * (i + 1));
      [entries[i], entries[j]] = [entries[j]!, entries[i]!];
    }
    return Object.fromEntries(entries);
  }
  return v;
}

describe("cache key", () => {
  test("each output-affecting member, changed alone, changes the key", () => {
    const k0 = key(base);
    let pairs = 0;
    for (const [member, values] of Object.entries(OUTPUT_AFFECTING)) {
      for (const value of values) {
        expect({ member, value, same: key({ ...base, [member]: value }) === k0 }).toEqual({ member, value, same: false });
        pairs++;
      }
    }
    expect(pairs).toBe(47);
  });

  test("project, resolved upstream and model are part of the key", () => {
    const k0 = key(base);
    expect(key(base, { projectId: "prj_2" })).not.toBe(k0);
    expect(key(base, { target: "anthropic" })).not.toBe(k0);
    expect(key(base, { target: "custom:cp_1" })).not.toBe(key(base, { target: "custom:cp_2" }));
    expect(key(base, { upstreamModel: "gpt-4o" })).not.toBe(k0);
  });

  test("20,000 random request pairs differing in one nested value never share a key", () => {
    const r = rng(2026);
    const seen = new Set<string>();
    for (let i = 0; i < 20_000; i++) {
      const member = ["messages", "tools", "response_format", "logit_bias", "x_vendor"][i % 5]!;
      const value = randomJson(r);
      const a = { ...base, [member]: value };
      const b = { ...base, [member]: mutateOne(value, r) };
      const ka = key(a);
      const kb = key(b);
      expect(ka === kb).toBe(JSON.stringify(a) === JSON.stringify(b));
      seen.add(ka);
    }
    expect(seen.size).toBeGreaterThan(5_000);
  });

  test("key order and left-out members do not change the key", () => {
    const r = rng(7);
    const k0 = key(base);
    for (let i = 0; i < 200; i++) expect(key(shuffleKeys(base, r) as Record<string, unknown>)).toBe(k0);
    const leftOut: Record<string, unknown> = {
      metadata: { prompt_id: "p" },
      store: true,
      user: "u-42",
      stream: true,
      stream_options: { include_usage: true },
      hone: { cache: "readWrite", tags: { a: "b" } },
    };
    expect(Object.keys(leftOut).sort()).toEqual([...KEY_EXCLUDED_MEMBERS].sort());
    for (const [member, value] of Object.entries(leftOut)) expect(key({ ...base, [member]: value })).toBe(k0);
    expect(key({ ...base, ...leftOut })).toBe(k0);
    // The model string itself is replaced by the resolved upstream model.
    expect(key({ ...base, model: "openai:gpt-4o-mini" })).toBe(k0);
  });
});
