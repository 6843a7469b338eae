import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { count, eq, sql } from "drizzle-orm";
import { cacheEntries } from "../../src/db/schema";
import { createTestApp, serve, storeProviderKey, type TestApp } from "../helpers/app";
import { type FakeUpstream, startFakeAnthropic, startFakeOpenAI } from "../helpers/fake-upstreams";

// A Message or a Response passed through with op-cache: readWrite is in the cache before its answer
// ends (a stream's last event waits for the write), as on /chat/completions, so the same request
// sent right after the answer is a hit. Each cache insert is slowed down here by a trigger, so an
// answer that did not wait for it would be read before the entry exists.

let t: TestApp;
let openaiFake: FakeUpstream;
let anthropicFake: FakeUpstream;
let server: { url: string; stop(): Promise<void> };
let openai: OpenAI;
let anthropic: Anthropic;
const SLOW_MS = 400;

beforeAll(async () => {
  openaiFake = startFakeOpenAI({ apiKey: "sk-openai-native-cache" });
  anthropicFake = startFakeAnthropic({ apiKey: "sk-ant-native-cache" });
  t = await createTestApp({ env: { OPENAI_BASE_URL: `${openaiFake.url}/v1`, ANTHROPIC_BASE_URL: anthropicFake.url } });
  await storeProviderKey(t, "openai", "sk-openai-native-cache");
  await storeProviderKey(t, "anthropic", "sk-ant-native-cache");
  server = serve(t.app);
  openai = new OpenAI({ baseURL: `${server.url}/api/v1`, apiKey: t.project.apiKey, maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: `${server.url}/api`, apiKey: t.project.apiKey, maxRetries: 0 });
  await t.deps.database.db.execute(
    sql.raw(`create function slow_cache_insert() returns trigger language plpgsql as $$ begin perform pg_sleep(${SLOW_MS / 1000}); return new; end $$`),
  );
  await t.deps.database.db.execute(
    sql.raw("create trigger slow_cache_insert before insert on cache_entries for each row execute function slow_cache_insert()"),
  );
});
afterAll(async () => {
  await server.stop();
  await openaiFake.stop();
  await anthropicFake.stop();
  await t.close();
});

/** Cache entries of the test's project now (read at once, beside whatever the server is doing). */
async function entries(): Promise<number> {
  const [row] = await t.deps.database.db.select({ n: count() }).from(cacheEntries).where(eq(cacheEntries.projectId, t.project.projectId));
  return row!.n;
}

describe("a passed-through answer is cached before it ends", () => {
  test("a Message, whole and streamed", async () => {
    const before = await entries();
    const body = { model: "claude-sonnet-4-5", max_tokens: 64, messages: [{ role: "user" as const, content: "Cache me whole" }] };
    const started = performance.now();
    await anthropic.messages.create(body, { headers: { "op-cache": "readWrite" } });
    // The answer waited for the (slowed) write.
    expect(performance.now() - started).toBeGreaterThanOrEqual(SLOW_MS - 50);
    expect(await entries()).toBe(before + 1);

    const streamed = { ...body, messages: [{ role: "user" as const, content: "Cache me streamed" }] };
    await anthropic.messages.stream(streamed, { headers: { "op-cache": "readWrite" } }).finalMessage();
    expect(await entries()).toBe(before + 2);
    const again = await anthropic.messages.create(streamed, { headers: { "op-cache": "readOnly" } }).withResponse();
    expect(again.response.headers.get("x-hone-cache")).toBe("HIT");
  });

  test("a Response, whole and streamed", async () => {
    const before = await entries();
    await openai.responses.create({ model: "openai:gpt-5.5", input: "Cache this whole" }, { headers: { "op-cache": "readWrite" } });
    expect(await entries()).toBe(before + 1);
    const body = { model: "openai:gpt-5.5", input: "Cache this streamed" };
    await openai.responses.stream(body, { headers: { "op-cache": "readWrite" } }).finalResponse();
    expect(await entries()).toBe(before + 2);
    const again = await openai.responses.create(body, { headers: { "op-cache": "readOnly" } }).withResponse();
    expect(again.response.headers.get("x-hone-cache")).toBe("HIT");
  });

  test("without op-cache nothing is written", async () => {
    const before = await entries();
    const r = await anthropic.messages
      .create({ model: "claude-sonnet-4-5", max_tokens: 64, messages: [{ role: "user", content: "Not cached" }] })
      .withResponse();
    expect(r.response.headers.get("x-hone-cache")).toBeNull();
    expect(await entries()).toBe(before);
  });
});
