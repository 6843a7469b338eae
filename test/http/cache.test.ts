import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type OpenAI from "openai";
import { systemCtx } from "../../src/domain/context";
import { setProviderKey } from "../../src/domain/projects";
import { startCacheSweep } from "../../src/background/cache-sweep";
import { createTestApp, serve, type TestApp, storeProviderKey, openAiClient } from "../helpers/app";
import { startFakeOpenAI, type FakeUpstream } from "../helpers/fake-upstreams";
import { latestLog, logsOf } from "../helpers/logs";
import { waitFor } from "../helpers/wait-for";

let now = Date.now();
let t: TestApp;
let fake: FakeUpstream;
let server: { url: string; stop(): Promise<void> };
let client: OpenAI;

beforeAll(async () => {
  fake = startFakeOpenAI();
  t = await createTestApp({ env: { OPENAI_BASE_URL: `${fake.url}/v1` }, deps: { clock: () => new Date(now) } });
  await storeProviderKey(t, "openai", "sk-cache-test-0001");
  server = serve(t.app);
  client = openAiClient(server.url, t.project.apiKey);
});
afterAll(async () => {
  await server.stop();
  await fake.stop();
  await t.close();
});

let seq = 0;
/** A logged chat request, as far as these tests read it. */
type SentChat = { model?: string; messages?: unknown; stream?: boolean };
const fresh = () => [{ role: "user" as const, content: `question ${++seq} at ${Date.now()}` }];

/** One call; returns the x-hone-cache header and whether the upstream was reached. */
async function call(body: Record<string, unknown>, headers: Record<string, string> = {}, c = client) {
  const before = fake.requests.length;
  const { data, response } = await c.chat.completions.create({ model: "gpt-4o-mini", ...body } as never, { headers }).withResponse();
  return { data: data as OpenAI.ChatCompletion, cache: response.headers.get("x-hone-cache"), upstream: fake.requests.length > before };
}

describe("response caching", () => {
  test("readWrite: a miss goes upstream and is stored; the identical request hits, logged as a hit costing 0", async () => {
    const messages = fresh();
    const first = await call({ messages }, { "op-cache": "readWrite" });
    expect(first).toMatchObject({ cache: "MISS", upstream: true });
    const second = await call({ messages }, { "op-cache": "readWrite" });
    expect(second).toMatchObject({ cache: "HIT", upstream: false });
    expect(second.data).toEqual(first.data);
    const log = await latestLog(t);
    expect(log).toMatchObject({ cacheHit: true, costUsd: 0, statusCode: 200, inputTokens: 11, outputTokens: 7, completionId: first.data.id });
  });

  test("readOnly never writes; writeOnly never reads; then readOnly hits what writeOnly stored", async () => {
    const messages = fresh();
    expect(await call({ messages }, { "op-cache": "readOnly" })).toMatchObject({ cache: "MISS", upstream: true });
    expect(await call({ messages }, { "op-cache": "readOnly" })).toMatchObject({ cache: "MISS", upstream: true });
    expect(await call({ messages }, { "op-cache": "writeOnly" })).toMatchObject({ cache: "MISS", upstream: true });
    expect(await call({ messages }, { "op-cache": "writeOnly" })).toMatchObject({ cache: "MISS", upstream: true });
    expect(await call({ messages }, { "op-cache": "readOnly" })).toMatchObject({ cache: "HIT", upstream: false });
    expect((await latestLog(t)).cacheHit).toBe(true);
  });

  test("legacy true and false, the hone body member, and no setting at all", async () => {
    const messages = fresh();
    expect(await call({ messages }, { "op-cache": "true" })).toMatchObject({ cache: "MISS", upstream: true });
    expect(await call({ messages }, { "op-cache": "true" })).toMatchObject({ cache: "HIT", upstream: false });
    expect(await call({ messages }, { "op-cache": "false" })).toMatchObject({ cache: null, upstream: true });
    expect(await call({ messages })).toMatchObject({ cache: null, upstream: true });
    expect((await latestLog(t)).cacheHit).toBe(false);
    expect(await call({ messages, hone: { cache: "readOnly" } })).toMatchObject({ cache: "HIT", upstream: false });
    expect(await call({ messages, hone: { cache: true } })).toMatchObject({ cache: "HIT", upstream: false });
    const other = fresh();
    expect(await call({ messages: other, hone: { cache: false } })).toMatchObject({ cache: null });
    expect(await call({ messages: other }, { "op-cache": "readOnly" })).toMatchObject({ cache: "MISS" });
  });

  test("output-affecting members miss; left-out members and key order hit", async () => {
    const messages = fresh();
    await call({ messages, temperature: 0.5 }, { "op-cache": "readWrite" });
    expect(await call({ messages, temperature: 0.6 }, { "op-cache": "readWrite" })).toMatchObject({ cache: "MISS" });
    expect(await call({ messages, temperature: 0.5, seed: 3 }, { "op-cache": "readWrite" })).toMatchObject({ cache: "MISS" });
    expect(await call({ model: "gpt-4o", messages, temperature: 0.5 }, { "op-cache": "readWrite" })).toMatchObject({ cache: "MISS" });
    expect(
      await call(
        { temperature: 0.5, messages, user: "someone", metadata: { a: "b" }, model: "openai:gpt-4o-mini" },
        { "op-cache": "readWrite", "op-tags": '{"x":"y"}' },
      ),
    ).toMatchObject({ cache: "HIT" });
  });

  test("entries are per project", async () => {
    const messages = fresh();
    await call({ messages }, { "op-cache": "readWrite" });
    const other = await t.createProject("other");
    await setProviderKey({ ...systemCtx(t.deps, "test"), projectId: other.projectId }, { provider: "openai", apiKey: "sk-other-000001" });
    const otherClient = openAiClient(server.url, other.apiKey);
    expect(await call({ messages }, { "op-cache": "readWrite" }, otherClient)).toMatchObject({ cache: "MISS", upstream: true });
  });

  test("entries expire after 7 days: never served after, and swept away", async () => {
    const messages = fresh();
    const saved = now;
    try {
      await call({ messages }, { "op-cache": "readWrite" });
      now = saved + 7 * 24 * 3600_000 - 1000;
      expect(await call({ messages }, { "op-cache": "readOnly" })).toMatchObject({ cache: "HIT" });
      now = saved + 7 * 24 * 3600_000 + 1000;
      expect(await call({ messages }, { "op-cache": "readOnly" })).toMatchObject({ cache: "MISS", upstream: true });
      const before = await t.deps.database.db.query.cacheEntries.findMany({ where: { projectId: t.project.projectId } });
      const sweep = startCacheSweep(t.deps, { firstRunMs: 3_600_000 });
      const deleted = await sweep.runOnce();
      sweep.stop();
      expect(deleted).toBeGreaterThan(0);
      const after = await t.deps.database.db.query.cacheEntries.findMany({ where: { projectId: t.project.projectId } });
      expect(before.some((e) => e.expiresAt.getTime() <= now)).toBe(true);
      expect(after.length).toBeLessThan(before.length);
      expect(after.every((e) => e.expiresAt.getTime() > now)).toBe(true);
    } finally {
      now = saved;
    }
  });

  test("streams: a miss streams and stores the merged completion; a hit is replayed as SSE the SDK parses", async () => {
    const messages = fresh();
    const readStream = async (headers: Record<string, string>, extra: Record<string, unknown> = {}) => {
      const before = fake.requests.length;
      const { data, response } = await client.chat.completions
        .create({ model: "gpt-4o-mini", messages, stream: true, ...extra } as never, { headers })
        .withResponse();
      let text = "";
      let finish: string | null = null;
      let usage: unknown = null;
      for await (const chunk of data as unknown as AsyncIterable<OpenAI.ChatCompletionChunk>) {
        text += chunk.choices[0]?.delta.content ?? "";
        finish = chunk.choices[0]?.finish_reason ?? finish;
        if (chunk.usage) usage = chunk.usage;
      }
      return { text, finish, usage, cache: response.headers.get("x-hone-cache"), upstream: fake.requests.length > before };
    };
    const miss = await readStream({ "op-cache": "readWrite" });
    expect(miss).toMatchObject({ cache: "MISS", upstream: true, finish: "stop" });
    const hit = await readStream({ "op-cache": "readWrite" });
    expect(hit).toEqual({ ...miss, cache: "HIT", upstream: false });
    const hitWithUsage = await readStream({ "op-cache": "readOnly" }, { stream_options: { include_usage: true } });
    expect(hitWithUsage.usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 7 });
    // Streamed and unstreamed share the entry: `stream` cannot change the answer.
    const plain = await call({ messages }, { "op-cache": "readOnly" });
    expect(plain).toMatchObject({ cache: "HIT", upstream: false });
    expect(plain.data.choices[0]!.message.content).toBe(miss.text);
    // The plain call's log (logs of one batch share their storage time; ids hold each call's time).
    const plainLog = (await logsOf(t))
      .filter(
        (l) =>
          JSON.stringify((l.body?.reqPayload as SentChat | undefined)?.messages) === JSON.stringify(messages) &&
          !(l.body?.reqPayload as SentChat | undefined)?.stream,
      )
      .at(-1)!;
    expect(plainLog.cacheHit).toBe(true);

    const tools = [{ type: "function" as const, function: { name: "lookup", parameters: { type: "object" } } }];
    const toolMessages = fresh();
    await call({ messages: toolMessages, tools }, { "op-cache": "readWrite" });
    const s = await client.chat.completions.create(
      { model: "gpt-4o-mini", messages: toolMessages, tools, stream: true },
      { headers: { "op-cache": "readOnly" } },
    );
    let args = "";
    for await (const chunk of s) args += chunk.choices[0]?.delta.tool_calls?.[0]?.function?.arguments ?? "";
    expect(JSON.parse(args)).toEqual({ q: toolMessages[0]!.content });
  });

  test("failed, broken and abandoned responses are never stored", async () => {
    for (const model of ["error-500", "broken"]) {
      const stream = model === "broken";
      for (let i = 0; i < 2; i++) {
        const before = fake.requests.length;
        await (async () => {
          const r = await client.chat.completions.create({ model, messages: [{ role: "user", content: "fail" }], stream } as never, {
            headers: { "op-cache": "readWrite" },
          });
          if (stream) for await (const _ of r as unknown as AsyncIterable<unknown>);
        })().catch(() => {});
        expect(fake.requests.length).toBe(before + 1);
      }
    }
    const abandoned = [{ role: "user" as const, content: "w1 w2 w3 w4 w5 w6" }];
    const controller = new AbortController();
    const res = await fetch(`${server.url}/api/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${t.project.apiKey}`, "content-type": "application/json", "op-cache": "readWrite" },
      body: JSON.stringify({ model: "slow-100", messages: abandoned, stream: true }),
      signal: controller.signal,
    });
    await res.body!.getReader().read();
    controller.abort();
    // Once its call is logged, the server is done with the abandoned request: it can store nothing later.
    await waitFor(() => latestLog(t), {
      until: (l) => l.statusCode === 499 && (l.body.reqPayload as SentChat | null)?.model === "slow-100",
      message: "the abandoned call's log",
    });
    expect(await call({ model: "slow-100", messages: abandoned }, { "op-cache": "readOnly" })).toMatchObject({ cache: "MISS", upstream: true });
  });

  test("identical requests arriving together may both miss; the entry is whole afterwards", async () => {
    const messages = fresh();
    // The upstream takes 200 ms, so both requests are looking the entry up before either stores it.
    fake.latencyMs = 200;
    const both = await Promise.all([call({ messages }, { "op-cache": "readWrite" }), call({ messages }, { "op-cache": "readWrite" })]).finally(() => {
      fake.latencyMs = 0;
    });
    expect(both.map((b) => b.cache)).toEqual(["MISS", "MISS"]);
    const third = await call({ messages }, { "op-cache": "readWrite" });
    expect(third).toMatchObject({ cache: "HIT", upstream: false });
    expect(third.data.choices[0]!.message.content).toBe(both[0]!.data.choices[0]!.message.content);
  });
});
