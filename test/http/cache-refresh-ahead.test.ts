import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { resultRows } from "../../src/domain/logs/internal";
import { createTestApp, storeProviderKey, type TestApp } from "../helpers/app";
import { type FakeUpstream, startFakeOpenAI } from "../helpers/fake-upstreams";
import { gqlData } from "../helpers/gql";

// The gateway's in-process caches (API keys, routes, limits, price overrides, provider keys,
// online evaluations) are read again in the background once three quarters of their TTL have
// passed, so that under steady traffic no call waits on the database for them. The clock is the
// app's own (deps.clock): a change made by another process (written here straight to the
// database, so this process is not told) shows before the cached entry would have expired.
let fake: FakeUpstream;
let t: TestApp;
let now = Date.now();

beforeAll(async () => {
  fake = startFakeOpenAI();
  t = await createTestApp({
    env: { OPENAI_BASE_URL: `${fake.url}/v1`, HONE_API_KEY_CACHE_MS: "1000", HONE_ROUTE_CACHE_MS: "1000" },
    deps: { clock: () => new Date(now) },
  });
  await storeProviderKey(t, "openai", "sk-refresh-ahead-01");
});
afterAll(async () => {
  await fake.stop();
  await t.close();
});

const ask = (model: string) => ({ model, messages: [{ role: "user", content: "refresh ahead" }] });
const chat = (model: string, key?: string) => t.request("POST", "/api/v1/chat/completions", { body: ask(model), key });

/** Calls until `done` says so, the app's clock standing still; the number of calls it took, or null after 3 s. */
async function callsUntil(call: () => Promise<Response>, done: (r: Response) => boolean): Promise<number | null> {
  const deadline = performance.now() + 3_000;
  for (let n = 1; performance.now() < deadline; n++) {
    if (done(await call())) return n;
    await Bun.sleep(10);
  }
  return null;
}

describe("refresh-ahead of the gateway's caches", () => {
  test("a key revoked elsewhere stops working before its cached entry expires, once a call is past 3/4 of the TTL", async () => {
    const p = await t.createProject("revoked elsewhere");
    await storeProviderKey(t, "openai", "sk-refresh-ahead-02", p.projectId);
    const start = now;
    expect((await chat("gpt-4o-mini", p.apiKey)).status).toBe(200);
    await t.db.database.db.execute(sql`update api_keys set revoked_at = now() where project_id = ${p.projectId}`);
    // Half the TTL: the entry serves, and is not read again.
    now = start + 500;
    expect((await chat("gpt-4o-mini", p.apiKey)).status).toBe(200);
    await Bun.sleep(100);
    expect((await chat("gpt-4o-mini", p.apiKey)).status).toBe(200);
    // Past three quarters: the call is answered from the entry, and starts reading it again.
    now = start + 800;
    const first = await chat("gpt-4o-mini", p.apiKey);
    expect(first.status).toBe(200);
    // The revocation applies while the clock stands before the entry's expiry (start + 1000).
    const calls = await callsUntil(
      () => chat("gpt-4o-mini", p.apiKey),
      (r) => r.status === 401,
    );
    expect(calls).not.toBeNull();
    expect(now).toBeLessThan(start + 1_000);
  });

  test("a route changed elsewhere is followed before its cached entry expires", async () => {
    await gqlData(t, `mutation { createRoute(input: {slug: "ahead", groups: [{targets: [{model: "openai:gpt-4o-mini", weight: 100}]}]}) { id } }`);
    const start = now;
    const sent = () => fake.requests.at(-1)!.body.model as string;
    expect((await chat("hone:ahead")).status).toBe(200);
    expect(sent()).toBe("gpt-4o-mini");
    const changed = await t.db.database.db.execute(
      sql`update routes set config = jsonb_set(config, '{groups,0,targets,0,model}', '"openai:gpt-4o"') where project_id = ${t.project.projectId} and slug = 'ahead' returning id`,
    );
    expect(resultRows(changed)).toHaveLength(1);
    now = start + 800;
    expect((await chat("hone:ahead")).status).toBe(200);
    expect(sent()).toBe("gpt-4o-mini");
    const calls = await callsUntil(
      () => chat("hone:ahead"),
      () => sent() === "gpt-4o",
    );
    expect(calls).not.toBeNull();
  });

  test("a background refresh that fails is logged, and the call it rode on is answered from the entry", async () => {
    const p = await t.createProject("refresh fails");
    await storeProviderKey(t, "openai", "sk-refresh-ahead-03", p.projectId);
    const start = now;
    // Reads the project's price overrides into the cache (30 s TTL), when the call is priced.
    expect((await chat("gpt-4o-mini", p.apiKey)).status).toBe(200);
    await Bun.sleep(200);
    const failed = () => t.logLines.filter((l) => l.includes("background refresh failed")).length;
    const before = failed();
    // A table gone (not a lost connection): the refresh's read throws.
    await t.db.database.db.execute(sql`alter table price_overrides rename to price_overrides_away`);
    try {
      now = start + 23_000; // past three quarters of 30 s
      expect((await chat("gpt-4o-mini", p.apiKey)).status).toBe(200);
      const deadline = performance.now() + 3_000;
      while (failed() === before && performance.now() < deadline) await Bun.sleep(20);
      expect(failed()).toBeGreaterThan(before);
    } finally {
      await t.db.database.db.execute(sql`alter table price_overrides_away rename to price_overrides`);
    }
  });
});
