import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, storeProviderKey, type TestApp } from "../helpers/app";
import { createDeployedModel } from "../helpers/factories";
import { type FakeUpstream, startFakeOpenAI } from "../helpers/fake-upstreams";
import { gqlData } from "../helpers/gql";
import { rest, type Rest } from "../helpers/rest";

// The database goes away (a closed instance or pool): the gateway keeps answering from what this
// process last read (the API key, the provider key, the route, the fine-tune), however long ago
// that was; management answers 503 as before.
let fake: FakeUpstream;
let t: TestApp;
let api: Rest;
let now = Date.now();

beforeAll(async () => {
  fake = startFakeOpenAI();
  t = await createTestApp({ env: { OPENAI_BASE_URL: `${fake.url}/v1`, HONE_API_KEY_CACHE_MS: "1000" }, deps: { clock: () => new Date(now) } });
  api = rest(t);
  await storeProviderKey(t, "openai", "sk-outage-serving-01");
  await createDeployedModel(t, "support-ft");
  await gqlData(t, `mutation { createRoute(input: {slug: "support", groups: [{targets: [{model: "openai:gpt-4o-mini", weight: 100}]}]}) { id } }`);
});
afterAll(async () => {
  await fake.stop();
  await t.db.drop().catch(() => {});
});

const ask = (model: string) => ({ model, messages: [{ role: "user" as const, content: `through the outage to ${model}` }] });

describe("serving through a database outage", () => {
  test("a base model, a fine-tune and a route keep answering; an unknown key and management get 503", async () => {
    // Read once while the database is up.
    for (const model of ["gpt-4o-mini", "hone:support-ft", "hone:support"]) await api.ok("POST /chat/completions", { body: ask(model) });
    await t.db.database.close();
    // Price overrides this process never read: priced at the list price, the call still served.
    t.deps.caches.priceOverrides.clear();
    // Every cache is long expired: what keeps serving is the last read, not a fresh entry.
    now += 3_600_000;
    for (const model of ["gpt-4o-mini", "hone:support-ft", "hone:support"]) {
      const r = await api.ok("POST /chat/completions", { body: ask(model) });
      expect(JSON.stringify(r.choices[0])).toContain(`through the outage to ${model}`);
    }
    // The completion cache cannot be read: a miss, and the provider answers.
    const cached = await api.raw("POST /chat/completions", { body: ask("gpt-4o-mini"), headers: { "op-cache": "readWrite" } });
    expect(cached.status).toBe(200);
    expect(cached.headers.get("x-hone-cache")).toBe("MISS");
    // What was never read cannot be checked.
    const unknown = await api.fail("POST /chat/completions", { body: ask("gpt-4o-mini"), key: "hone_sk_0000000000000000000000000000000000000000" });
    expect(unknown.status).toBe(503);
    const management = await api.fail("GET /datasets");
    expect(management.status).toBe(503);
    expect(management.headers.get("retry-after")).toBe("5");
  });
});
