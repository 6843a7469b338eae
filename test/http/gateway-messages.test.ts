import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import { createTestApp, serve, storeProviderKey, type TestApp } from "../helpers/app";
import { type FakeUpstream, startFakeAnthropic, startFakeOpenAI } from "../helpers/fake-upstreams";
import { gqlData } from "../helpers/gql";
import { latestLog, logsOf } from "../helpers/logs";

// POST /api/v1/messages, driven by the official Anthropic SDK: passed as it is to Anthropic,
// translated to and from chat completions for any other provider, logged either way.

const ANTHROPIC_KEY = "sk-ant-messages-test";
let t: TestApp;
let anthropicFake: FakeUpstream;
let openaiFake: FakeUpstream;
let server: { url: string; stop(): Promise<void> };
let sdk: Anthropic;

beforeAll(async () => {
  anthropicFake = startFakeAnthropic({ apiKey: ANTHROPIC_KEY });
  openaiFake = startFakeOpenAI({ apiKey: "sk-openai-messages" });
  t = await createTestApp({ env: { ANTHROPIC_BASE_URL: anthropicFake.url, OPENAI_BASE_URL: `${openaiFake.url}/v1` } });
  await storeProviderKey(t, "anthropic", ANTHROPIC_KEY);
  await storeProviderKey(t, "openai", "sk-openai-messages");
  server = serve(t.app);
  // As Claude Code does: the base URL is Hone's /api, the key goes as x-api-key.
  sdk = new Anthropic({ baseURL: `${server.url}/api`, apiKey: t.project.apiKey, maxRetries: 0 });
});
afterAll(async () => {
  await server.stop();
  await anthropicFake.stop();
  await openaiFake.stop();
  await t.close();
});

const weather = { name: "get_weather", description: "Weather for a city", input_schema: { type: "object" as const, properties: { q: { type: "string" } } } };

describe("to Anthropic: passed through as it is", () => {
  test("messages.create: the body reaches Anthropic unchanged (cache_control, thinking, betas); the answer comes back whole; logged", async () => {
    const request = {
      model: "claude-sonnet-4-5",
      max_tokens: 2048,
      system: [{ type: "text" as const, text: "You are terse.", cache_control: { type: "ephemeral" as const } }],
      thinking: { type: "enabled" as const, budget_tokens: 1024 },
      metadata: { user_id: "user-9" },
      messages: [{ role: "user" as const, content: [{ type: "text" as const, text: "Hello there", cache_control: { type: "ephemeral" as const } }] }],
    };
    const msg = await sdk.messages.create(request, { headers: { "anthropic-beta": "prompt-caching-2024-07-31,interleaved-thinking-2025-05-14" } });
    const sent = anthropicFake.requests.at(-1)!;
    expect(sent.path).toBe("/v1/messages");
    expect(sent.headers["x-api-key"]).toBe(ANTHROPIC_KEY);
    expect(sent.headers["anthropic-beta"]).toBe("prompt-caching-2024-07-31,interleaved-thinking-2025-05-14");
    expect(sent.body).toEqual({ ...request, stream: false });
    expect(msg.content[0]).toEqual({ type: "thinking", thinking: "Let me think.", signature: "sig-abc123" });
    expect(msg.content[1] as unknown).toEqual({ type: "text", text: "echo: Hello there" });
    expect(msg.usage.cache_read_input_tokens).toBe(3);

    const log = await latestLog(t);
    expect(log.api).toBe("messages");
    expect(log.provider).toBe("anthropic");
    expect(log.model).toBe("anthropic:claude-sonnet-4-5");
    expect(log.statusCode).toBe(200);
    expect(log.inputTokens).toBe(15);
    expect(log.outputTokens).toBe(6);
    // Of the 15 input tokens, 3 were read from Anthropic's prompt cache.
    expect(log.cachedInputTokens).toBe(3);
    expect(log.body.reqPayloadOriginal).toEqual(request);
    expect((log.body.respPayloadOriginal as { id: string }).id).toBe(msg.id);
    // The chat form, for datasets: the system prompt and the user's text, and the answer.
    const chatReq = log.body.reqPayload as { messages: { role: string; content: unknown }[] };
    expect(chatReq.messages[0]).toEqual({ role: "system", content: "You are terse." });
    expect((log.body.respPayload as { choices: { message: { content: string } }[] }).choices[0]!.message.content).toBe("echo: Hello there");
    expect(log.inputPreview).toBe("Hello there");
  });

  test("messages.stream: Anthropic's events reach the SDK; the log holds the message they make", async () => {
    const stream = sdk.messages.stream({
      model: "anthropic:claude-sonnet-4-5",
      max_tokens: 512,
      thinking: { type: "enabled", budget_tokens: 1024 },
      tools: [weather],
      messages: [{ role: "user", content: "Weather in Paris?" }],
    });
    const final = await stream.finalMessage();
    expect(final.content.map((b) => b.type)).toEqual(["thinking", "text", "tool_use"]);
    expect(final.content[0]).toMatchObject({ signature: "sig-abc123" });
    expect(final.content[2]).toMatchObject({ name: "get_weather", input: { q: "Weather in Paris?" } });
    expect(final.stop_reason).toBe("tool_use");
    expect(anthropicFake.requests.at(-1)!.body.model).toBe("claude-sonnet-4-5");

    const log = await latestLog(t);
    expect(log.api).toBe("messages");
    const original = log.body.respPayloadOriginal as { content: { type: string; signature?: string; input?: unknown }[]; stop_reason: string };
    expect(original.content.map((b) => b.type)).toEqual(["thinking", "text", "tool_use"]);
    expect(original.content[0]!.signature).toBe("sig-abc123");
    expect(original.content[2]!.input).toEqual({ q: "Weather in Paris?" });
    expect(original.stop_reason).toBe("tool_use");
    const chat = log.body.respPayload as { choices: { message: { tool_calls: { function: { name: string } }[] } }[] };
    expect(chat.choices[0]!.message.tool_calls[0]!.function.name).toBe("get_weather");
  });

  test("op-cache on Anthropic: a Message is answered from the cache, whole and streamed as Anthropic's events; the beta flags are in the key", async () => {
    const body = {
      model: "claude-sonnet-4-5",
      max_tokens: 512,
      thinking: { type: "enabled" as const, budget_tokens: 1024 },
      tools: [weather],
      messages: [{ role: "user" as const, content: "Cached weather in Rome?" }],
    };
    const first = await sdk.messages.create(body, { headers: { "op-cache": "readWrite" } });
    const before = anthropicFake.requests.length;
    await t.deps.logWriter.flush();

    const again = await sdk.messages.create(body, { headers: { "op-cache": "readOnly" } }).withResponse();
    expect(again.response.headers.get("x-hone-cache")).toBe("HIT");
    expect(again.data).toEqual(first);
    // Streamed, the cached Message comes back as the events Anthropic sends: the SDK rebuilds it whole.
    const stream = sdk.messages.stream({ ...body, stream: true } as never, { headers: { "op-cache": "readOnly" } });
    const types: string[] = [];
    stream.on("streamEvent", (e) => types.push(e.type));
    const final = await stream.finalMessage();
    expect(final.content as unknown).toEqual(first.content);
    expect(final.content[0]).toMatchObject({ type: "thinking", signature: "sig-abc123" });
    expect(final.stop_reason).toBe(first.stop_reason);
    expect(types[0]).toBe("message_start");
    expect(types.at(-1)).toBe("message_stop");
    expect(anthropicFake.requests.length).toBe(before);
    const log = await latestLog(t);
    expect(log).toMatchObject({ api: "messages", cacheHit: true, costUsd: 0, statusCode: 200 });

    // Other beta flags can change the answer: not the same entry.
    const other = await sdk.messages.create(body, { headers: { "op-cache": "readWrite", "anthropic-beta": "interleaved-thinking-2025-05-14" } }).withResponse();
    expect(other.response.headers.get("x-hone-cache")).toBe("MISS");
    expect(anthropicFake.requests.length).toBe(before + 1);
  });

  test("op-cache on Anthropic: a streamed Message larger than Hone holds is answered but not cached", async () => {
    const small = await createTestApp({ env: { ANTHROPIC_BASE_URL: anthropicFake.url, HONE_MAX_LOGGED_PAYLOAD_BYTES: String(64 * 1024) } });
    const smallServer = serve(small.app);
    try {
      await storeProviderKey(small, "anthropic", ANTHROPIC_KEY);
      const client = new Anthropic({ baseURL: `${smallServer.url}/api`, apiKey: small.project.apiKey, maxRetries: 0 });
      const body = { model: "claude-sonnet-4-5", max_tokens: 64, messages: [{ role: "user" as const, content: "x".repeat(70_000) }] };
      const streamed = await client.messages.stream(body, { headers: { "op-cache": "readWrite" } }).finalMessage();
      expect((streamed.content[0] as { text: string }).text.length).toBeGreaterThan(70_000);
      const before = anthropicFake.requests.length;
      const again = await fetch(`${smallServer.url}/api/v1/messages`, {
        method: "POST",
        headers: { "x-api-key": small.project.apiKey, "content-type": "application/json", "op-cache": "readOnly" },
        body: JSON.stringify({ ...body, stream: true }),
      });
      expect(again.headers.get("x-hone-cache")).toBe("MISS");
      expect(await again.text()).toContain("message_stop");
      expect(anthropicFake.requests.length).toBe(before + 1);
    } finally {
      await smallServer.stop();
      await small.close();
    }
  });

  test("countTokens is Anthropic's own count", async () => {
    const count = await sdk.messages.countTokens({ model: "claude-sonnet-4-5", messages: [{ role: "user", content: "Hi" }] });
    expect(anthropicFake.requests.at(-1)!.path).toBe("/v1/messages/count_tokens");
    expect(count.input_tokens).toBe(JSON.stringify([{ role: "user", content: "Hi" }]).length);
  });

  test("an upstream error mid-stream reaches the SDK as Anthropic's error event; the log says so", async () => {
    const bad = sdk.messages.stream({ model: "error-mid", max_tokens: 64, messages: [{ role: "user", content: "hi" }] });
    const err = await bad.finalMessage().then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(Error);
    expect(String((err as Error).message)).toContain("Overloaded");
    const log = await latestLog(t);
    expect(log.statusCode).toBe(502);
    expect(log.errorMessage).toContain("Overloaded");
  });

  test("an Anthropic error status comes back with Anthropic's error type", async () => {
    const err = await sdk.messages.create({ model: "error-529", max_tokens: 16, messages: [{ role: "user", content: "hi" }] }).then(
      () => null,
      (e: unknown) => e as InstanceType<typeof Anthropic.APIError>,
    );
    expect(err?.status).toBe(529);
    expect((err!.error as { error: { type: string } }).error.type).toBe("overloaded_error");
  });
});

describe("to other providers: translated", () => {
  test("a tool-use loop against an OpenAI model: tool_use out, tool_result in, text back", async () => {
    const first = await sdk.messages.create({
      model: "openai:gpt-4o-mini",
      max_tokens: 256,
      system: "Use tools.",
      tools: [weather],
      messages: [{ role: "user", content: "Weather in Oslo?" }],
    });
    const sent = openaiFake.requests.at(-1)!.body;
    expect(sent.model).toBe("gpt-4o-mini");
    expect(sent.messages![0]).toEqual({ role: "system", content: "Use tools." });
    expect(sent.tools![0]!.function!.name).toBe("get_weather");
    expect(first.stop_reason).toBe("tool_use");
    const use = first.content.find((b) => b.type === "tool_use")!;
    expect(use).toMatchObject({ type: "tool_use", name: "get_weather", input: { q: "Weather in Oslo?" } });

    const second = await sdk.messages.create({
      model: "openai:gpt-4o-mini",
      max_tokens: 256,
      messages: [
        { role: "user", content: "Weather in Oslo?" },
        { role: "assistant", content: first.content },
        { role: "user", content: [{ type: "tool_result", tool_use_id: (use as { id: string }).id, content: "Snowing" }] },
      ],
    });
    const sent2 = openaiFake.requests.at(-1)!.body;
    expect(sent2.messages!.at(-1)).toEqual({ role: "tool", tool_call_id: (use as { id: string }).id, content: "Snowing" });
    expect(second.stop_reason).toBe("end_turn");
    expect(second.content as unknown).toEqual([{ type: "text", text: "echo: Weather in Oslo?" }]);
    expect(second.usage).toMatchObject({ input_tokens: 11, output_tokens: 7 });

    const log = await latestLog(t);
    expect(log.api).toBe("messages");
    expect(log.provider).toBe("openai");
    expect(log.model).toBe("openai:gpt-4o-mini");
    expect((log.body.respPayloadOriginal as { content: unknown[] }).content).toEqual(second.content);
  });

  test("streamed: chat chunks become Anthropic's events, tool input arriving in pieces", async () => {
    const events: string[] = [];
    const stream = sdk.messages.stream({ model: "openai:gpt-4o-mini", max_tokens: 64, tools: [weather], messages: [{ role: "user", content: "Rome?" }] });
    stream.on("streamEvent", (e) => events.push(e.type));
    const final = await stream.finalMessage();
    expect(events[0]).toBe("message_start");
    expect(events.at(-1)).toBe("message_stop");
    expect(events).toContain("content_block_delta");
    expect(final.content as unknown).toEqual([{ type: "tool_use", id: "call_abc", name: "get_weather", input: { q: "Rome?" } }]);
    expect(final.stop_reason).toBe("tool_use");
    expect(final.usage.output_tokens).toBe(7);
    const log = await latestLog(t);
    expect((log.body.respPayloadOriginal as { content: unknown[] }).content).toEqual(final.content);
  });

  test("op-cache works on translated calls: the second identical call is a HIT without an upstream call", async () => {
    const body = { model: "openai:gpt-4o-mini", max_tokens: 32, messages: [{ role: "user" as const, content: "cache me" }] };
    await sdk.messages.create(body, { headers: { "op-cache": "readWrite" } });
    const before = openaiFake.requests.length;
    const res = await fetch(`${server.url}/api/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": t.project.apiKey, "content-type": "application/json", "op-cache": "readWrite", "anthropic-version": "2023-06-01" },
      body: JSON.stringify(body),
    });
    expect(res.headers.get("x-hone-cache")).toBe("HIT");
    expect(((await res.json()) as { content: unknown[] }).content).toEqual([{ type: "text", text: "echo: cache me" }]);
    expect(openaiFake.requests.length).toBe(before);
  });

  test("a document block cannot go to an OpenAI model: 400 naming the block", async () => {
    const err = await sdk.messages
      .create({
        model: "openai:gpt-4o-mini",
        max_tokens: 32,
        messages: [{ role: "user", content: [{ type: "document", source: { type: "text", media_type: "text/plain", data: "x" } }] }],
      })
      .then(
        () => null,
        (e: unknown) => e as InstanceType<typeof Anthropic.APIError>,
      );
    expect(err?.status).toBe(400);
    expect((err!.error as { error: { type: string; message: string } }).error).toMatchObject({ type: "invalid_request_error" });
    expect((err!.error as { error: { message: string } }).error.message).toContain("document block can only be sent to an anthropic model");
  });

  test("countTokens for a model other than Anthropic's is an estimate", async () => {
    const res = await fetch(`${server.url}/api/v1/messages/count_tokens`, {
      method: "POST",
      headers: { authorization: `Bearer ${t.project.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "openai:gpt-4o", messages: [{ role: "user", content: "one two three" }] }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { input_tokens: number; estimated: boolean };
    expect(body.estimated).toBe(true);
    expect(body.input_tokens).toBeGreaterThan(3);
  });
});

describe("errors in Anthropic's shape", () => {
  const post = (body: unknown, headers: Record<string, string> = { "x-api-key": t.project.apiKey }) =>
    fetch(`${server.url}/api/v1/messages?beta=true`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    });

  test("a missing max_tokens and a bad role are named", async () => {
    const res = await post({ model: "claude-x", messages: [{ role: "robot", content: "hi" }] });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { type: string; error: { type: string; message: string } };
    expect(body.type).toBe("error");
    expect(body.error.type).toBe("invalid_request_error");
    expect(body.error.message).toContain("max_tokens");
    expect(body.error.message).toContain("messages.0.role");
  });

  test("a wrong key is Anthropic's authentication_error; nothing is logged", async () => {
    const before = (await logsOf(t)).length;
    const res = await post({ model: "claude-x", max_tokens: 5, messages: [{ role: "user", content: "hi" }] }, { "x-api-key": "hone_sk_wrong" });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { type: string } }).error.type).toBe("authentication_error");
    expect((await logsOf(t)).length).toBe(before);
  });

  test("a body that is not JSON is a 400, not a 500", async () => {
    const res = await fetch(`${server.url}/api/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": t.project.apiKey, "content-type": "application/json" },
      body: "{not json",
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { type: string }).type).toBe("error");
  });
});

describe("datasets from /messages and /responses logs", () => {
  test("a tool-use conversation on each becomes a chat training entry (tools and calls kept); an embeddings log is listed with its reason", async () => {
    const first = await sdk.messages.create({
      model: "claude-sonnet-4-5",
      max_tokens: 64,
      tools: [weather],
      messages: [{ role: "user", content: "Weather in Nice?" }],
    });
    const use = first.content.find((b) => b.type === "tool_use") as { id: string };
    await sdk.messages.create({
      model: "claude-sonnet-4-5",
      max_tokens: 64,
      tools: [weather],
      messages: [
        { role: "user", content: "Weather in Nice?" },
        { role: "assistant", content: first.content },
        { role: "user", content: [{ type: "tool_result", tool_use_id: use.id, content: "Sunny" }] },
      ],
    });
    const messagesLog = (await latestLog(t)).id;
    const res = await fetch(`${server.url}/api/v1/responses`, {
      method: "POST",
      headers: { authorization: `Bearer ${t.project.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "anthropic:claude-sonnet-4-5", instructions: "Be brief.", input: "Hello" }),
    });
    expect(res.status).toBe(200);
    const responsesLog = (await latestLog(t)).id;
    const emb = await fetch(`${server.url}/api/v1/embeddings`, {
      method: "POST",
      headers: { authorization: `Bearer ${t.project.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "openai:text-embedding-3-small", input: "vectors" }),
    });
    expect(emb.status).toBe(200);
    const embeddingsLog = (await latestLog(t)).id;

    const r = await gqlData(
      t,
      `mutation($ids: [ID!]) { importLogsToDataset(input: {newDatasetName: "from protocols", filter: {ids: $ids}}) { datasetId entriesCreated invalidLogs errors { logId message } } }`,
      { ids: [messagesLog, responsesLog, embeddingsLog] },
    );
    const out = r.importLogsToDataset as { datasetId: string; entriesCreated: number; invalidLogs: number; errors: { logId: string; message: string }[] };
    expect(out.entriesCreated).toBe(2);
    expect(out.invalidLogs).toBe(1);
    expect(out.errors.map((e) => e.logId)).toEqual([embeddingsLog]);
    expect(out.errors[0]!.message.length).toBeGreaterThan(10);
    const entries = await t.deps.database.db.query.datasetEntries.findMany({ where: { datasetId: out.datasetId } });
    const fromMessages = entries.find((e) => e.sourceLogId === messagesLog)!;
    const roles = (fromMessages.messages as { role: string }[]).map((m) => m.role);
    expect(roles).toEqual(["user", "assistant", "tool", "assistant"]);
    expect((fromMessages.messages as { tool_calls?: unknown[] }[])[1]!.tool_calls).toHaveLength(1);
    expect(fromMessages.tools).toHaveLength(1);
    const fromResponses = entries.find((e) => e.sourceLogId === responsesLog)!;
    expect((fromResponses.messages as { role: string; content: string }[]).map((m) => m.role)).toEqual(["system", "user", "assistant"]);
  });
});
