import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../helpers/app";
import { type ChaosUpstream, startChaosUpstream } from "../helpers/chaos-upstream";
import { gql, gqlData } from "../helpers/gql";
import { latestLog } from "../helpers/logs";
import { rest, type Rest } from "../helpers/rest";

// Key pools: several keys of one provider, spread by weight, each with its own circuit; a key the
// provider rate-limits sheds its calls to the others, without the client seeing the 429.
let t: TestApp;
let api: Rest;
let openai: ChaosUpstream;

const KEY_A = "sk-pool-key-aaaa";
const KEY_B = "sk-pool-key-bbbb";
const setKey = (apiKey: string, name: string | null, weight?: number) =>
  gqlData(t, `mutation($input: SetProviderKeyInput!) { setProviderKey(input: $input) { provider name weight last4 } }`, {
    input: { provider: "openai", apiKey, name, weight },
  });

beforeAll(async () => {
  openai = await startChaosUpstream("openai");
  t = await createTestApp({ env: { OPENAI_BASE_URL: openai.url, HONE_RETRY_BACKOFF_MS: "1", HONE_CIRCUIT_FAILURES: "3" } });
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

  test("calls are spread over the keys by weight", async () => {
    let next = 0;
    const worker = async () => {
      while (next < 2_000) {
        next++;
        await api.ok("POST /chat/completions", { body: { ...ask("spread"), hone: { logRequest: false } } });
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    const a = openai.byKey[KEY_A] ?? 0;
    const b = openai.byKey[KEY_B] ?? 0;
    expect(a + b).toBe(2_000);
    expect(Math.abs(a / 2_000 - 0.75)).toBeLessThan(0.03);
  });

  test("a rate-limited key sheds its load: the other key answers at once, the client sees a 200", async () => {
    openai.decide = ({ apiKey }) => (apiKey === KEY_A ? "429" : "ok");
    for (let i = 0; i < 10; i++) {
      const started = performance.now();
      const r = await api.ok("POST /chat/completions", { body: ask(`q${i}`) });
      expect(r.choices[0]).toMatchObject({ message: { content: `openai: q${i}` } });
      // Retry-After: 30 on the limited key is not waited for: another key is there.
      expect(performance.now() - started).toBeLessThan(1_000);
    }
    const log = await latestLog(t);
    expect(log.statusCode).toBe(200);
    // Its circuit opened after 3 failures: later calls go to key b first.
    expect(log.attempts).toEqual([expect.objectContaining({ target: "gpt-4o-mini", key: "b", statusCode: 200, next: "answered" })]);
    expect(openai.byKey[KEY_A]).toBe(3);
    expect(openai.byKey[KEY_B]).toBe(10);
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
