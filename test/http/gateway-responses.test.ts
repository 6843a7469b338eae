import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { createProject } from "../../src/domain/projects";
import { systemCtx } from "../../src/domain/context";
import { storedResponses } from "../../src/db/schema";
import { createTestApp, serve, storeProviderKey, type TestApp } from "../helpers/app";
import { type FakeUpstream, type SentMessage, startFakeAnthropic, startFakeOpenAI } from "../helpers/fake-upstreams";
import { latestLog } from "../helpers/logs";

// POST /api/v1/responses, driven by the official openai SDK: translated to chat completions for
// every provider, its state (previous_response_id) kept by Hone, streamed as the Responses events.

let t: TestApp;
let openaiFake: FakeUpstream;
let anthropicFake: FakeUpstream;
let server: { url: string; stop(): Promise<void> };
let sdk: OpenAI;

beforeAll(async () => {
  openaiFake = startFakeOpenAI({ apiKey: "sk-openai-responses" });
  anthropicFake = startFakeAnthropic({ apiKey: "sk-ant-responses" });
  t = await createTestApp({
    env: { OPENAI_BASE_URL: `${openaiFake.url}/v1`, GEMINI_BASE_URL: `${openaiFake.url}/gemini`, ANTHROPIC_BASE_URL: anthropicFake.url },
  });
  await storeProviderKey(t, "openai", "sk-openai-responses");
  await storeProviderKey(t, "anthropic", "sk-ant-responses");
  await storeProviderKey(t, "gemini", "sk-openai-responses");
  server = serve(t.app);
  sdk = new OpenAI({ baseURL: `${server.url}/api/v1`, apiKey: t.project.apiKey, maxRetries: 0 });
});
afterAll(async () => {
  await server.stop();
  await openaiFake.stop();
  await anthropicFake.stop();
  await t.close();
});

// Gemini is reached through its chat-completions endpoint: the Responses API is translated for it.
const GEMINI = "gemini:gemini-2.5-flash";

const weather = {
  type: "function" as const,
  name: "get_weather",
  description: "Weather for a city",
  parameters: { type: "object", properties: { q: { type: "string" } } },
  strict: false,
};

describe("responses.create", () => {
  test("a string input: answered, logged with api=responses, stored, readable, its input items listed, deletable", async () => {
    const r = await sdk.responses.create({ model: GEMINI, instructions: "Be brief.", input: "Hello Hone", metadata: { team: "core" } });
    expect(r.object).toBe("response");
    expect(r.status).toBe("completed");
    expect(r.output_text).toBe("echo: Hello Hone");
    expect(r.usage).toMatchObject({ input_tokens: 11, output_tokens: 7, total_tokens: 18, input_tokens_details: { cached_tokens: 0 } });
    const sent = openaiFake.requests.at(-1)!.body;
    expect(sent.messages).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "Hello Hone" },
    ]);

    const log = await latestLog(t);
    expect(log.api).toBe("responses");
    expect(log.provider).toBe("gemini");
    expect(log.tags).toMatchObject({ team: "core" });
    expect(log.body.reqPayloadOriginal).toMatchObject({ model: GEMINI, input: "Hello Hone", instructions: "Be brief." });
    expect((log.body.respPayloadOriginal as { id: string }).id).toBe(r.id);
    expect(log.inputPreview).toBe("Hello Hone");

    const again = await sdk.responses.retrieve(r.id);
    expect(again.output_text).toBe("echo: Hello Hone");
    const items = await sdk.responses.inputItems.list(r.id);
    expect(items.data).toHaveLength(1);
    expect(items.data[0]).toMatchObject({ type: "message", role: "user", content: [{ type: "input_text", text: "Hello Hone" }] });

    await sdk.responses.delete(r.id);
    const gone = await sdk.responses.retrieve(r.id).then(
      () => null,
      (e: unknown) => e as InstanceType<typeof OpenAI.APIError>,
    );
    expect(gone?.status).toBe(404);
  });

  test("previous_response_id continues the conversation, across providers (Hone keeps the state)", async () => {
    const first = await sdk.responses.create({ model: GEMINI, input: "My name is Ada." });
    const second = await sdk.responses.create({ model: "anthropic:claude-sonnet-4-5", previous_response_id: first.id, input: "What is my name?" });
    const sent = anthropicFake.requests.at(-1)!.body;
    expect(sent.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "My name is Ada." }] },
      { role: "assistant", content: [{ type: "text", text: "echo: My name is Ada." }] },
      { role: "user", content: [{ type: "text", text: "What is my name?" }] },
    ]);
    expect(second.output_text).toBe("echo: What is my name?");
    expect(second.previous_response_id).toBe(first.id);
    // A third link reads the whole chain.
    await sdk.responses.create({ model: GEMINI, previous_response_id: second.id, input: "And again?" });
    expect(openaiFake.requests.at(-1)!.body.messages!.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant", "user"]);
  });

  test("store: false is not kept; an unknown or another project's previous_response_id is a 404", async () => {
    const r = await sdk.responses.create({ model: GEMINI, input: "ephemeral", store: false });
    const missing = await sdk.responses.create({ model: GEMINI, input: "x", previous_response_id: r.id }).then(
      () => null,
      (e: unknown) => e as InstanceType<typeof OpenAI.APIError>,
    );
    expect(missing?.status).toBe(404);
    expect(missing?.message).toContain(r.id);

    const kept = await sdk.responses.create({ model: GEMINI, input: "mine" });
    const other = await createProject(systemCtx(t.deps, "test"), { name: "other" });
    const otherSdk = new OpenAI({ baseURL: `${server.url}/api/v1`, apiKey: other.apiKey, maxRetries: 0 });
    const invisible = await otherSdk.responses.retrieve(kept.id).then(
      () => null,
      (e: unknown) => e as InstanceType<typeof OpenAI.APIError>,
    );
    expect(invisible?.status).toBe(404);
  });

  test("a response another process stored a moment after the read began is found; an unknown one is a 404 after a brief retry", async () => {
    // Hone stores a Response off the answer's path; a client continuing it at once on another
    // process may read before that write commits: the miss is retried briefly.
    const id = "resp_from_another_process";
    const response = { id, object: "response", created_at: 1, status: "completed", model: "gpt-5.5", output: [], usage: null };
    const read = sdk.responses.retrieve(id);
    await Bun.sleep(40);
    await t.deps.database.db.insert(storedResponses).values({ id, projectId: t.project.projectId, previousResponseId: null, input: [], response });
    expect((await read).id).toBe(id);

    const started = performance.now();
    const unknown = await sdk.responses.retrieve("resp_never_stored").then(
      () => null,
      (e: unknown) => e as InstanceType<typeof OpenAI.APIError>,
    );
    expect(unknown?.status).toBe(404);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  test("a function-calling loop: function_call out, function_call_output in, text back", async () => {
    const first = await sdk.responses.create({ model: GEMINI, tools: [weather], input: "Weather in Oslo?" });
    const call = first.output.find((i) => i.type === "function_call");
    expect(call).toMatchObject({ type: "function_call", name: "get_weather", arguments: JSON.stringify({ q: "Weather in Oslo?" }) });
    const sent = openaiFake.requests.at(-1)!.body;
    expect(sent.tools).toEqual([
      { type: "function", function: { name: "get_weather", description: "Weather for a city", parameters: weather.parameters, strict: false } },
    ]);
    const second = await sdk.responses.create({
      model: GEMINI,
      previous_response_id: first.id,
      input: [{ type: "function_call_output", call_id: (call as { call_id: string }).call_id, output: "Snowing" }],
    });
    const sent2 = openaiFake.requests.at(-1)!.body;
    expect(sent2.messages!.at(-2)).toMatchObject({ role: "assistant", tool_calls: [{ id: "call_abc", function: { name: "get_weather" } }] });
    expect(sent2.messages!.at(-1)).toEqual({ role: "tool", tool_call_id: "call_abc", content: "Snowing" });
    expect(second.output_text).toBe("echo: Weather in Oslo?");
  });

  test("text.format json_schema and max_output_tokens map to the chat request; reasoning.effort is OpenAI's only", async () => {
    await sdk.responses.create({
      model: GEMINI,
      input: "json please",
      max_output_tokens: 99,
      reasoning: { effort: "low" },
      text: { format: { type: "json_schema", name: "answer", schema: { type: "object", properties: { a: { type: "string" } } }, strict: true } },
    });
    const sent = openaiFake.requests.at(-1)!.body;
    expect(sent.max_completion_tokens).toBe(99);
    expect(sent.reasoning_effort).toBeUndefined();
    expect(sent.response_format).toEqual({
      type: "json_schema",
      json_schema: { name: "answer", schema: { type: "object", properties: { a: { type: "string" } } }, strict: true },
    });
  });

  test("hosted tools are left out for other providers, with a warning; required by tool_choice they are a 400", async () => {
    const res = await fetch(`${server.url}/api/v1/responses`, {
      method: "POST",
      headers: { authorization: `Bearer ${t.project.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "anthropic:claude-sonnet-4-5", input: "hi", tools: [{ type: "web_search" }, weather] }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-hone-warning")).toContain("tool web_search");
    expect(anthropicFake.requests.at(-1)!.body.tools!.map((x) => x.name)).toEqual(["get_weather"]);
    expect((await latestLog(t)).warning).toContain("tool web_search");

    const refused = await sdk.responses
      .create({ model: "anthropic:claude-sonnet-4-5", input: "hi", tools: [{ type: "web_search" }], tool_choice: { type: "web_search" } } as never)
      .then(
        () => null,
        (e: unknown) => e as InstanceType<typeof OpenAI.APIError>,
      );
    expect(refused?.status).toBe(400);
    expect(refused?.message).toContain("web_search");
  });

  test("a custom (freeform) tool's call comes back as a custom_tool_call", async () => {
    const r = await sdk.responses.create({
      model: GEMINI,
      input: "patch it",
      tools: [{ type: "custom", name: "apply_patch", description: "Apply a patch" }],
    });
    const call = r.output.find((i) => i.type === "custom_tool_call");
    expect(call).toMatchObject({ type: "custom_tool_call", name: "apply_patch" });
    expect(openaiFake.requests.at(-1)!.body.tools![0]!.function!.parameters!.required).toEqual(["input"]);
  });

  test("bad input is a 400 in OpenAI's error shape naming the field", async () => {
    const res = await fetch(`${server.url}/api/v1/responses`, {
      method: "POST",
      headers: { authorization: `Bearer ${t.project.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ model: GEMINI, input: [{ type: "message", role: "user", content: [{ type: "input_video", url: "x" }] }] }),
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { message: string } };
    expect(body.error.message).toContain("input_video");
    const noInput = await fetch(`${server.url}/api/v1/responses`, {
      method: "POST",
      headers: { authorization: `Bearer ${t.project.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ model: GEMINI }),
    });
    expect(noInput.status).toBe(400);
    expect(JSON.stringify(await noInput.json())).toContain("input");
  });
});

describe("responses.stream", () => {
  test("text: the events in order, one item id across its deltas; the final response; the log", async () => {
    const types: string[] = [];
    const ids = new Set<string>();
    const stream = sdk.responses.stream({ model: GEMINI, input: "stream me please" });
    stream.on("event", (e) => {
      types.push(e.type);
      if (e.type === "response.output_text.delta") ids.add(e.item_id);
    });
    const final = await stream.finalResponse();
    expect(final.output_text).toBe("echo: stream me please");
    expect(types.slice(0, 4)).toEqual(["response.created", "response.in_progress", "response.output_item.added", "response.content_part.added"]);
    expect(types.slice(-4)).toEqual(["response.output_text.done", "response.content_part.done", "response.output_item.done", "response.completed"]);
    expect(ids.size).toBe(1);
    expect(final.usage?.output_tokens).toBe(7);
    const log = await latestLog(t);
    expect(log.api).toBe("responses");
    expect((log.body.respPayloadOriginal as { id: string; output: unknown[] }).id).toBe(final.id);
    expect(await sdk.responses.retrieve(final.id).then((r) => r.output_text)).toBe("echo: stream me please");
  });

  test("a function call through Anthropic: arguments streamed in pieces", async () => {
    const types: string[] = [];
    const stream = sdk.responses.stream({ model: "anthropic:claude-sonnet-4-5", tools: [weather], input: "Rome?" });
    stream.on("event", (e) => types.push(e.type));
    const final = await stream.finalResponse();
    const call = final.output.find((i) => i.type === "function_call");
    expect(call).toMatchObject({ name: "get_weather", arguments: JSON.stringify({ q: "Rome?" }), call_id: "toolu_01" });
    expect(types.filter((x) => x === "response.function_call_arguments.delta").length).toBe(2);
    expect(types).toContain("response.function_call_arguments.done");
  });

  test("an upstream failure mid-stream is a response.failed event", async () => {
    const types: string[] = [];
    const stream = sdk.responses.stream({ model: "gemini:broken", input: "x" });
    stream.on("event", (e) => types.push(e.type));
    const failed = await stream.finalResponse();
    expect(types.at(-1)).toBe("response.failed");
    expect(failed.status).toBe("failed");
    expect(failed.error?.message).toContain("stream broke");
    const log = await latestLog(t);
    expect(log.statusCode).toBe(502);
  });
});

describe("to OpenAI: passed through as it is", () => {
  test("the body reaches OpenAI unchanged (hosted tools, include, reasoning); OpenAI's Response comes back whole; logged and stored", async () => {
    const request = {
      model: "openai:gpt-5.5",
      input: [{ type: "message" as const, role: "user" as const, content: [{ type: "input_text" as const, text: "Search the news" }] }],
      tools: [{ type: "web_search" as const }],
      include: ["reasoning.encrypted_content" as const],
      reasoning: { effort: "medium" as const },
      store: true,
      prompt_cache_key: "k1",
    };
    const r = await sdk.responses.create(request);
    const sent = openaiFake.requests.at(-1)!;
    expect(sent.path).toBe("/v1/responses");
    expect(sent.body).toEqual({ ...request, model: "gpt-5.5", stream: false });
    expect(r.id.startsWith("resp_fake")).toBe(true);
    expect(r.output[0]).toMatchObject({ type: "reasoning", encrypted_content: "enc-xyz" });
    expect(r.output_text).toBe("echo: Search the news");

    const log = await latestLog(t);
    expect(log.api).toBe("responses");
    expect(log.provider).toBe("openai");
    expect(log.inputTokens).toBe(13);
    expect(log.outputTokens).toBe(9);
    // Tokens by class, from the Response's usage details: part of the input and output counts.
    expect(log).toMatchObject({ cachedInputTokens: 4, reasoningTokens: 5, cacheWriteTokens: null });
    expect(log.costUsd === null || log.costUsd > 0).toBe(true);
    expect((log.body.respPayloadOriginal as { id: string }).id).toBe(r.id);
    expect((log.body.respPayload as { choices: { message: { content: string } }[] }).choices[0]!.message.content).toBe("echo: Search the news");
    expect((await sdk.responses.retrieve(r.id)).id).toBe(r.id);
  });

  test("op-cache on OpenAI: a Response is answered from the cache, whole and streamed as the Responses events", async () => {
    const body = { model: "openai:gpt-5.5", input: "Cache this answer", reasoning: { effort: "low" as const } };
    const first = await sdk.responses.create(body, { headers: { "op-cache": "readWrite" } });
    const before = openaiFake.requests.length;
    await t.deps.logWriter.flush();

    const again = await sdk.responses.create(body, { headers: { "op-cache": "readOnly" } }).withResponse();
    expect(again.response.headers.get("x-hone-cache")).toBe("HIT");
    expect(again.data.output).toEqual(first.output);
    const stream = sdk.responses.stream(body, { headers: { "op-cache": "readOnly" } });
    const types: string[] = [];
    stream.on("event", (e) => types.push(e.type));
    const final = await stream.finalResponse();
    expect(final.output_text).toBe("echo: Cache this answer");
    // The same items (the SDK adds its own `parsed` member to text parts it streams).
    expect(final.output.map((i) => [i.type, i.id])).toEqual(first.output.map((i) => [i.type, i.id]));
    expect(types.slice(0, 2)).toEqual(["response.created", "response.in_progress"]);
    expect(types).toContain("response.output_text.delta");
    expect(types.at(-1)).toBe("response.completed");
    expect(openaiFake.requests.length).toBe(before);
    const log = await latestLog(t);
    expect(log).toMatchObject({ api: "responses", cacheHit: true, costUsd: 0, statusCode: 200 });
  });

  test("previous_response_id from another provider: Hone writes the conversation into OpenAI's input", async () => {
    const first = await sdk.responses.create({ model: GEMINI, input: "Remember 42." });
    await sdk.responses.create({ model: "openai:gpt-5.5", previous_response_id: first.id, input: "What number?" });
    const sent = openaiFake.requests.at(-1)!.body;
    expect(sent.previous_response_id).toBeUndefined();
    expect((sent.input as SentMessage[]).map((i) => `${i.type}:${i.role ?? ""}`)).toEqual(["message:user", "message:assistant", "message:user"]);
    expect(JSON.stringify(sent.input![1])).toContain("echo: Remember 42.");
  });

  test("streamed: OpenAI's events are relayed as they are; the log and the store hold the final Response", async () => {
    const types: string[] = [];
    const stream = sdk.responses.stream({ model: "openai:gpt-5.5", input: "stream natively", reasoning: { effort: "low" } });
    stream.on("event", (e) => types.push(e.type));
    const final = await stream.finalResponse();
    expect(final.output_text).toBe("echo: stream natively");
    expect(types[0]).toBe("response.created");
    expect(types.at(-1)).toBe("response.completed");
    expect(openaiFake.requests.at(-1)!.body.stream).toBe(true);
    const log = await latestLog(t);
    expect(log.statusCode).toBe(200);
    expect(log).toMatchObject({ inputTokens: 13, cachedInputTokens: 4, outputTokens: 9, reasoningTokens: 5 });
    expect((log.body.respPayloadOriginal as { id: string }).id).toBe(final.id);
    expect((await sdk.responses.retrieve(final.id)).output_text).toBe("echo: stream natively");
  });

  test("a response.failed from OpenAI reaches the client; the log records the failure", async () => {
    const types: string[] = [];
    const stream = sdk.responses.stream({ model: "openai:error-mid", input: "x" });
    stream.on("event", (e) => types.push(e.type));
    const failed = await stream.finalResponse();
    expect(types.at(-1)).toBe("response.failed");
    expect(failed.status).toBe("failed");
    const log = await latestLog(t);
    expect(log.statusCode).toBe(502);
    expect(log.errorMessage).toContain("Simulated failure");
  });

  test("an OpenAI error status comes back in OpenAI's shape with its status", async () => {
    const err = await sdk.responses.create({ model: "openai:error-429", input: "x" }).then(
      () => null,
      (e: unknown) => e as InstanceType<typeof OpenAI.APIError>,
    );
    expect(err?.status).toBe(429);
    expect(err?.message).toContain("Simulated upstream error 429");
  });
});

describe("the stored conversation has a cap", () => {
  test("a chain larger than a request body may be is a 400 naming previous_response_id, not loaded", async () => {
    const small = await createTestApp({
      env: { OPENAI_BASE_URL: `${openaiFake.url}/v1`, GEMINI_BASE_URL: `${openaiFake.url}/gemini`, HONE_MAX_BODY_BYTES: "20000" },
    });
    try {
      await storeProviderKey(small, "gemini", "sk-openai-responses");
      const s = serve(small.app);
      const c = new OpenAI({ baseURL: `${s.url}/api/v1`, apiKey: small.project.apiKey, maxRetries: 0 });
      let prev: string | undefined;
      for (let i = 0; i < 2; i++)
        prev = (await c.responses.create({ model: GEMINI, input: "x".repeat(6000), ...(prev ? { previous_response_id: prev } : {}) })).id;
      const err = await c.responses.create({ model: GEMINI, input: "next", previous_response_id: prev }).then(
        () => null,
        (e: unknown) => e as InstanceType<typeof OpenAI.APIError>,
      );
      expect(err?.status).toBe(400);
      expect(err?.message).toContain("HONE_MAX_BODY_BYTES");
      await s.stop();
    } finally {
      await small.close();
    }
  });
});
