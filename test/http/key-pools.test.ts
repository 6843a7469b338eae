import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../helpers/app";
import { type ChaosUpstream, startChaosUpstream } from "../helpers/chaos-upstream";
import { type FakeUpstream, startFakeAnthropic } from "../helpers/fake-upstreams";
import { gql, gqlData } from "../helpers/gql";
import { latestLog, logsOf } from "../helpers/logs";
import { rest, type Rest } from "../helpers/rest";

// Key pools: several keys of one provider, spread by weight, each with its own circuit; a key the
// provider rate-limits sheds its calls to the others, without the client seeing the 429.
let t: TestApp;
let api: Rest;
let openai: ChaosUpstream;
let anthropic: FakeUpstream;
const ANTHROPIC_GOOD = "sk-ant-pool-good-0001";

const KEY_A = "sk-pool-key-aaaa";
const KEY_B = "sk-pool-key-bbbb";
const setKey = (apiKey: string, name: string | null, weight?: number) =>
  gqlData(t, `mutation($input: SetProviderKeyInput!) { setProviderKey(input: $input) { provider name weight last4 } }`, {
    input: { provider: "openai", apiKey, name, weight },
  });

beforeAll(async () => {
  openai = await startChaosUpstream("openai");
  // Anthropic's fake accepts one key only: the pool's other key is refused (401).
  anthropic = startFakeAnthropic({ apiKey: ANTHROPIC_GOOD });
  t = await createTestApp({ env: { OPENAI_BASE_URL: openai.url, ANTHROPIC_BASE_URL: anthropic.url, HONE_RETRY_BACKOFF_MS: "1", HONE_CIRCUIT_FAILURES: "3" } });
  api = rest(t);
  await setKey(KEY_A, null, 3);
  await setKey(KEY_B, "b", 1);
});
beforeEach(() => {
  openai.decide = () => "ok";
  openai.byKey = {};
  openai.retryAfter = "30";
  t.deps.caches.circuits.clear();
});
afterAll(async () => {
  await anthropic.stop();
  await openai.stop();
  await t.close();
});

const ask = (q: string) => ({ model: "gpt-4o-mini", messages: [{ role: "user" as const, content: q }] });

describe("key pools", () => {
  test("listed with their names and weights", async () => {
    const data = await gqlData<{ providerKeys: { provider: string; name: string; weight: number; last4: string }[] }>(
      t,
      "{ providerKeys { provider name weight last4 } }",
    );
    expect(data.providerKeys).toEqual([
      { provider: "openai", name: "b", weight: 1, last4: "bbbb" },
      { provider: "openai", name: "default", weight: 3, last4: "aaaa" },
    ]);
  });

  test("calls are spread over the keys by weight: within 3 points over 10,000 calls", async () => {
    let next = 0;
    const worker = async () => {
      while (next < 10_000) {
        next++;
        await api.ok("POST /chat/completions", { body: { ...ask("spread"), hone: { logRequest: false } } });
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    const a = openai.byKey[KEY_A] ?? 0;
    const b = openai.byKey[KEY_B] ?? 0;
    expect(a + b).toBe(10_000);
    expect(Math.abs(a / 10_000 - 0.75)).toBeLessThan(0.03);
  });

  test("a rate-limited key sheds its load: the other key answers at once, the client sees a 200", async () => {
    openai.decide = ({ apiKey }) => (apiKey === KEY_A ? "429" : "ok");
    for (let i = 0; i < 20; i++) {
      const started = performance.now();
      const r = await api.ok("POST /chat/completions", { body: { ...ask(`q${i}`), hone: { tags: { run: "shed" } } } });
      expect(r.choices[0]).toMatchObject({ message: { content: `openai: q${i}` } });
      // Retry-After: 30 on the limited key is not waited for: another key is there.
      expect(performance.now() - started).toBeLessThan(1_000);
    }
    // Its circuit opened after 3 failures: the calls after that went to key b first.
    const logs = (await logsOf(t)).filter((l) => l.tags.run === "shed");
    expect(logs).toHaveLength(20);
    expect(logs.every((l) => l.statusCode === 200 && l.attempts!.at(-1)!.key === "b")).toBe(true);
    expect(logs.filter((l) => l.attempts!.length === 2 && l.attempts![0]!.statusCode === 429)).toHaveLength(3);
    expect(logs.filter((l) => l.attempts!.length === 1)).toHaveLength(17);
    expect(openai.byKey[KEY_A]).toBe(3);
    expect(openai.byKey[KEY_B]).toBe(20);
  });

  test("the first answer from the limited key is logged with both attempts", async () => {
    openai.decide = ({ apiKey }) => (apiKey === KEY_A ? "429" : "ok");
    let seen = null as null | { key?: string | null; statusCode: number | null; next: string }[];
    for (let i = 0; i < 20 && !seen; i++) {
      await api.ok("POST /chat/completions", { body: ask(`first${i}`) });
      const attempts = (await latestLog(t)).attempts!;
      if (attempts.length === 2) seen = attempts;
    }
    expect(seen!.map((a) => [a.key, a.statusCode, a.next])).toEqual([
      ["default", 429, "retried"],
      ["b", 200, "answered"],
    ]);
  });

  test("every key failing: the failure reaches the client after each key was tried", async () => {
    openai.decide = () => "500";
    const r = await api.fail("POST /chat/completions", { body: ask("down") });
    expect(r.status).toBe(500);
    expect(new Set((await latestLog(t)).attempts!.map((a) => a.key))).toEqual(new Set(["default", "b"]));
  });

  test("native /messages to Anthropic spreads over its pool too: a refused key (401) passes the call to the next", async () => {
    await gqlData(t, `mutation($input: SetProviderKeyInput!) { setProviderKey(input: $input) { name } }`, {
      input: { provider: "anthropic", apiKey: "sk-ant-pool-revoked-0002", weight: 1000 },
    });
    await gqlData(t, `mutation($input: SetProviderKeyInput!) { setProviderKey(input: $input) { name } }`, {
      input: { provider: "anthropic", apiKey: ANTHROPIC_GOOD, name: "good", weight: 1 },
    });
    const m = await api.ok("POST /messages", {
      body: { model: "claude-haiku-4-5", max_tokens: 20, messages: [{ role: "user", content: "pooled" }] },
      headers: { "anthropic-version": "2023-06-01" },
    });
    expect(JSON.stringify(m)).toContain("echo: pooled");
    const log = await latestLog(t);
    expect(log.api).toBe("messages");
    expect(log.attempts!.at(-1)).toMatchObject({ key: "good", statusCode: 200, next: "answered" });
    expect(log.attempts!.every((a) => a.key === "good" || a.statusCode === 401)).toBe(true);
  });

  test("a pool is capped, and a key removed by name leaves one key: calls are no longer routed", async () => {
    const gone = await gql(t, `mutation { deleteProviderKey(provider: "openai", name: "nope") }`);
    expect(gone.errors?.[0]?.message).toContain("No openai key named nope");
    for (let i = 0; i < 18; i++) await setKey(`sk-pool-extra-${String(i).padStart(4, "0")}`, `extra-${i}`);
    const over = await gql(t, `mutation($input: SetProviderKeyInput!) { setProviderKey(input: $input) { name } }`, {
      input: { provider: "openai", apiKey: "sk-pool-one-too-many", name: "extra-99" },
    });
    expect(over.errors?.[0]?.message).toContain("has 20 keys already");
    for (let i = 0; i < 18; i++) await gqlData(t, `mutation($n: String) { deleteProviderKey(provider: "openai", name: $n) }`, { n: `extra-${i}` });
    await gqlData(t, `mutation { deleteProviderKey(provider: "openai", name: "b") }`);
    await api.ok("POST /chat/completions", { body: ask("single") });
    expect((await latestLog(t)).attempts).toBeNull();
    expect(openai.byKey[KEY_B] ?? 0).toBe(0);
  });
});
