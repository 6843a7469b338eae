import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, serve, storeProviderKey, type TestApp } from "../helpers/app";
import { type FakeUpstream, startFakeOpenAI } from "../helpers/fake-upstreams";
import { gqlData } from "../helpers/gql";

// Limits while the database is away: the process admits what was left of each cap when it last
// saw the counter, and no more; the limits it last read keep applying.
let fake: FakeUpstream;
let t: TestApp;
let server: { url: string; stop(): Promise<void> };
// A minute that has just begun, so that the test's calls share one window.
let now = Math.floor(Date.now() / 60_000) * 60_000 + 1_000;

beforeAll(async () => {
  fake = startFakeOpenAI();
  t = await createTestApp({ env: { OPENAI_BASE_URL: `${fake.url}/v1`, HONE_API_KEY_CACHE_MS: "1000" }, deps: { clock: () => new Date(now) } });
  await storeProviderKey(t, "openai", "sk-limits-outage-01");
  server = serve(t.app);
});
afterAll(async () => {
  await server.stop();
  await fake.stop();
  await t.db.drop().catch(() => {});
});

const call = () =>
  fetch(`${server.url}/api/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${t.project.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }),
  });

describe("limits through a database outage", () => {
  test("what was left of the cap is admitted, then 429; the limits last read still apply", async () => {
    await gqlData(t, `mutation { setLimit(input: {scope: "project", requestsPerMinute: 6}) { id } }`);
    expect((await call()).status).toBe(200);
    expect((await call()).status).toBe(200);
    await t.db.database.close();
    // The limits and the key are past their caches' lives: what was last read keeps serving.
    now += 10_000;
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await call()).status);
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
  });
});
