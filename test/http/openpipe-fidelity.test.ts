import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type OpenAI from "openai";
import OpenPipeOpenAI from "openpipe/openai";
import { ChatCompletionWire } from "../../src/http/rest/wire-schemas";
import { createTestApp, openAiClient, serve, storeProviderKey, type TestApp } from "../helpers/app";
import { createDeployedModel } from "../helpers/factories";
import { startFakeAnthropic, startFakeOpenAI, type FakeUpstream } from "../helpers/fake-upstreams";
import { latestLog, logsOf } from "../helpers/logs";
import { rest, type Rest } from "../helpers/rest";

// OpenPipe drop-in fidelity, with the clients people use (the openai SDK, the unchanged openpipe
// SDK): what a log holds, which calls are logged, how bad tags are answered, what a stream is made of.
let t: TestApp;
let always: TestApp;
let openai: FakeUpstream;
let anthropic: FakeUpstream;
let server: { url: string; stop(): Promise<void> };
let client: OpenAI;
let api: Rest;

beforeAll(async () => {
  openai = startFakeOpenAI();
  anthropic = startFakeAnthropic();
  const env = { OPENAI_BASE_URL: `${openai.url}/v1`, ANTHROPIC_BASE_URL: anthropic.url, HONE_TESTING_ROUTES: "true" };
  t = await createTestApp({ env });
  always = await createTestApp({ env: { ...env, HONE_LOG_FINETUNE_CALLS: "always" } });
  for (const app of [t, always]) {
    await storeProviderKey(app, "openai", "sk-fidelity-0001");
    await storeProviderKey(app, "anthropic", "sk-ant-fidelity-0001");
    await createDeployedModel(app, "support-v1");
  }
  server = serve(t.app);
  client = openAiClient(server.url, t.project.apiKey);
  api = rest(t);
});
afterAll(async () => {
  await server.stop();
  await openai.stop();
  await anthropic.stop();
  await t.close();
  await always.close();
});

/** Merges the chunks exactly as the client received them, the way a client library would. */
type MergedChoice = { index: number; message: { role: "assistant"; content: string }; finish_reason: string | null };
function mergeReceived(chunks: OpenAI.ChatCompletionChunk[]) {
  const first = chunks[0]!;
  const choices: MergedChoice[] = [];
  let usage: OpenAI.CompletionUsage | undefined;
  for (const c of chunks) {
    if (c.usage) usage = c.usage;
    for (const ch of c.choices ?? []) {
      const slot = (choices[ch.index] ??= { index: ch.index, message: { role: "assistant", content: "" }, finish_reason: null });
      if (ch.delta?.content) slot.message.content += ch.delta.content;
      if (ch.finish_reason) slot.finish_reason = ch.finish_reason;
    }
  }
  return { id: first.id, object: "chat.completion", created: first.created, model: first.model, choices, ...(usage ? { usage } : {}) };
}

describe("a log holds what the client received", () => {
  test("a stream without include_usage: the logged response has no usage, the columns do", async () => {
    const stream = await client.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "stream me" }], stream: true });
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const c of stream) chunks.push(c);
    expect(chunks.some((c) => c.usage)).toBe(false);
    const received = mergeReceived(chunks);
    const log = await latestLog(t);
    const logged = ChatCompletionWire.parse(log.body.respPayload);
    expect(logged).not.toHaveProperty("usage");
    expect(logged).toMatchObject(received);
    expect({ ...received, choices: received.choices.map((c) => ({ ...c, message: { ...c.message } })) }).toMatchObject({
      id: logged.id,
      object: logged.object,
      created: logged.created,
      model: logged.model,
      choices: logged.choices.map((c) => ({
        index: c.index,
        message: { role: c.message.role, content: c.message.content },
        finish_reason: c.finish_reason,
      })),
    });
    // Hone asked the upstream for usage anyway: tokens and cost are in the log's own columns.
    expect(openai.requests.at(-1)!.body.stream_options).toEqual({ include_usage: true });
    expect(log).toMatchObject({ inputTokens: 11, outputTokens: 7, statusCode: 200 });
    expect(log.costUsd).toBeGreaterThan(0);
  });

  test("a stream with include_usage: the logged response carries the usage the client got", async () => {
    const stream = await client.chat.completions.create({
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: "stream with usage" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const c of stream) chunks.push(c);
    const received = mergeReceived(chunks);
    expect(received.usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 7 });
    const log = await latestLog(t);
    expect(log.body.respPayload).toMatchObject(received);
    const loggedUsage: unknown = ChatCompletionWire.parse(log.body.respPayload).usage;
    expect(loggedUsage).toEqual(received.usage);
    expect(log).toMatchObject({ inputTokens: 11, outputTokens: 7 });
  });

  test("a streamed cache hit is logged as replayed: no usage unless asked", async () => {
    const body = { model: "gpt-4o-mini", messages: [{ role: "user" as const, content: `cached stream ${Date.now()}` }] };
    await client.chat.completions.create(body, { headers: { "op-cache": "readWrite" } });
    const stream = await client.chat.completions.create({ ...body, stream: true }, { headers: { "op-cache": "readWrite" } });
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const c of stream) chunks.push(c);
    const log = await latestLog(t);
    expect(log.cacheHit).toBe(true);
    expect(log.body.respPayload).not.toHaveProperty("usage");
    expect(log.body.respPayload).toMatchObject(mergeReceived(chunks));
    expect(log.inputTokens).toBe(11);
  });
});

describe("OpenPipe's logging defaults", () => {
  const ask = async (app: TestApp, body: { model: string; store?: boolean; hone?: { logRequest: boolean } }, headers: Record<string, string> = {}) => {
    const before = (await logsOf(app)).length;
    await rest(app).ok("POST /chat/completions", { body: { messages: [{ role: "user" as const, content: "hi" }], ...body }, headers });
    return (await logsOf(app)).length - before;
  };

  test("base models are logged unless op-log-request: false", async () => {
    expect(await ask(t, { model: "gpt-4o-mini" })).toBe(1);
    expect(await ask(t, { model: "gpt-4o-mini" }, { "op-log-request": "false" })).toBe(0);
    expect(await ask(t, { model: "gpt-4o-mini", hone: { logRequest: false } })).toBe(0);
  });

  test("the project's fine-tunes are logged only when asked", async () => {
    for (const model of ["hone:support-v1", "openpipe:support-v1"]) {
      expect(await ask(t, { model })).toBe(0);
      expect(await ask(t, { model }, { "op-log-request": "true" })).toBe(1);
      expect(await ask(t, { model }, { "op-log-request": "false" })).toBe(0);
      expect(await ask(t, { model, store: true })).toBe(1);
      expect(await ask(t, { model, hone: { logRequest: true } })).toBe(1);
    }
    // The plain openai SDK, asking nothing: answered, not logged.
    const before = (await logsOf(t)).length;
    const r = await client.chat.completions.create({ model: "hone:support-v1", messages: [{ role: "user", content: "quiet" }] });
    expect(r.model).toBe("hone:support-v1");
    expect((await logsOf(t)).length).toBe(before);
  });

  test("HONE_LOG_FINETUNE_CALLS=always logs every call to a fine-tune; false still wins", async () => {
    expect(await ask(always, { model: "hone:support-v1" })).toBe(1);
    expect(await ask(always, { model: "hone:support-v1" }, { "op-log-request": "false" })).toBe(0);
  });

  test("the openpipe SDK sends op-log-request itself: its fine-tune calls are logged as before", async () => {
    const sdk = new OpenPipeOpenAI({
      apiKey: "sk-direct",
      baseURL: `${openai.url}/v1`,
      maxRetries: 0,
      openpipe: { apiKey: t.project.apiKey, baseUrl: `${server.url}/api/v1` },
    });
    const before = (await logsOf(t)).length;
    await sdk.chat.completions.create({
      model: "openpipe:support-v1",
      messages: [{ role: "user", content: "sdk ft" }],
      openpipe: { tags: { via: "sdk" } },
    } as never);
    const logs = await logsOf(t);
    expect(logs.length).toBe(before + 1);
    expect(logs.at(-1)!.tags).toMatchObject({ via: "sdk" });
  });
});

describe("invalid tags are an error, before anything goes upstream", () => {
  const bad: { where: string; send: { body?: Record<string, unknown>; headers?: Record<string, string> }; key: string }[] = [
    { where: "op-tags header, array value", send: { headers: { "op-tags": JSON.stringify({ prompt_id: ["a", "b"] }) } }, key: "prompt_id" },
    { where: "op-tags header, object value", send: { headers: { "op-tags": JSON.stringify({ nested: { a: 1 } }) } }, key: "nested" },
    { where: "hone.tags", send: { body: { hone: { tags: { list: [1] } } } }, key: "list" },
    { where: "body metadata", send: { body: { metadata: { obj: { x: "y" } } } }, key: "obj" },
  ];
  for (const c of bad) {
    test(c.where, async () => {
      const before = openai.requests.length;
      const { status, body } = await api.fail("POST /chat/completions", {
        body: { model: "gpt-4o-mini", messages: [{ role: "user", content: "tagged" }], ...c.send.body },
        headers: c.send.headers,
      });
      expect(status).toBe(400);
      expect(body.message?.startsWith("Failed to parse tags:")).toBe(true);
      expect(body.message).toContain(`"${c.key}"`);
      expect(body.code).toBe("VALIDATION");
      expect(openai.requests.length).toBe(before);
    });
  }

  test("report tags and report-anthropic metadata", async () => {
    const before = (await logsOf(t)).length;
    for (const [route, field] of [
      ["POST /report", "tags"],
      ["POST /report-anthropic", "metadata"],
    ] as const) {
      const { status, body } = await api.fail(route, { body: { requestedAt: Date.now(), receivedAt: Date.now(), [field]: { arr: [1, 2] } } });
      expect(status).toBe(400);
      expect(body.message).toStartWith("Failed to parse tags:");
      expect(body.message).toContain('"arr"');
    }
    expect((await logsOf(t)).length).toBe(before);
  });

  test("numbers and booleans are stringified and null drops a key, as before", async () => {
    await api.ok("POST /chat/completions", {
      body: { model: "gpt-4o-mini", messages: [{ role: "user", content: "scalars" }] },
      headers: { "op-tags": JSON.stringify({ n: 3, b: true, gone: null, s: "x" }) },
    });
    expect((await latestLog(t)).tags).toEqual({ n: "3", b: "true", s: "x" });
  });

  test("the openpipe SDK gets the 400 for tags that are not flat", async () => {
    const sdk = new OpenPipeOpenAI({
      apiKey: "sk-direct",
      baseURL: `${openai.url}/v1`,
      maxRetries: 0,
      openpipe: { apiKey: t.project.apiKey, baseUrl: `${server.url}/api/v1` },
    });
    const err = await sdk.chat.completions
      .create({ model: "openpipe:support-v1", messages: [{ role: "user", content: "x" }], openpipe: { tags: { bad: ["x"] } } } as never)
      .catch((e: unknown) => e);
    if (!(err instanceof OpenPipeOpenAI.APIError)) throw new Error(`expected an API error, got ${String(err)}`);
    expect(err.status).toBe(400);
    expect(String(err.message)).toContain("Failed to parse tags:");
  });
});

describe("streams are one JSON object per data: line, ending with [DONE]", () => {
  async function frames(body: Record<string, unknown>, headers: Record<string, string> = {}) {
    const res = await fetch(`${server.url}/api/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${t.project.apiKey}`, "content-type": "application/json", ...headers },
      body: JSON.stringify({ messages: [{ role: "user", content: "frame by frame" }], stream: true, ...body }),
    });
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const text = await res.text();
    return text
      .split("\n")
      .filter((l) => l.startsWith("data:"))
      .map((l) => l.slice(5).trim());
  }
  const everyFrameIsJson = (data: string[]) => {
    for (const d of data.slice(0, -1)) {
      const parsed = JSON.parse(d);
      expect(typeof parsed).toBe("object");
      expect(Array.isArray(parsed)).toBe(false);
    }
  };

  test("OpenAI upstream, with and without usage", async () => {
    for (const extra of [{}, { stream_options: { include_usage: true } }]) {
      const data = await frames({ model: "gpt-4o-mini", ...extra });
      expect(data.at(-1)).toBe("[DONE]");
      expect(data.filter((d) => d === "[DONE]")).toHaveLength(1);
      everyFrameIsJson(data);
      const chunks = data.slice(0, -1).map((d): OpenAI.ChatCompletionChunk => JSON.parse(d));
      if ("stream_options" in extra) {
        expect(chunks.at(-1)!.usage).toMatchObject({ prompt_tokens: 11 });
      } else {
        // Hone asked the upstream for usage; the client did not, so no chunk carries the member
        // (not even the `usage: null` the upstream puts on every chunk once usage is asked for).
        expect(chunks.some((c) => "usage" in c)).toBe(false);
      }
    }
  });

  test("Anthropic upstream, translated", async () => {
    const data = await frames({ model: "anthropic:claude-sonnet-4-5" });
    expect(data.at(-1)).toBe("[DONE]");
    everyFrameIsJson(data);
    expect(data.slice(0, -1).map((d) => JSON.parse(d).object)).toEqual(data.slice(0, -1).map(() => "chat.completion.chunk"));
  });

  test("a streamed cache hit", async () => {
    const body = { model: "gpt-4o-mini", messages: [{ role: "user", content: `frames cached ${Date.now()}` }] };
    await frames(body, { "op-cache": "readWrite" });
    const data = await frames(body, { "op-cache": "readWrite" });
    expect(data.at(-1)).toBe("[DONE]");
    everyFrameIsJson(data);
  });

  test("a stream that breaks mid-way ends with an error frame that is JSON too", async () => {
    const data = await frames({ model: "broken" });
    expect(data.length).toBeGreaterThan(0);
    for (const d of data) if (d !== "[DONE]") expect(() => JSON.parse(d)).not.toThrow();
    expect(data.some((d) => d !== "[DONE]" && JSON.parse(d).error)).toBe(true);
  });
});
