import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { z } from "zod";
import { systemCtx } from "../../src/domain/context";
import { calcPrice } from "@pydantic/genai-prices";
import { setProviderKey } from "../../src/domain/projects";
import { ChatCompletionWire } from "../../src/http/rest/wire-schemas";
import { createTestApp, serve, type TestApp, openAiClient } from "../helpers/app";
import { startFakeOpenAI, type FakeUpstream } from "../helpers/fake-upstreams";
import { latestLog, logsOf } from "../helpers/logs";
import { rest, type Rest } from "../helpers/rest";
import { waitFor } from "../helpers/wait-for";

const UPSTREAM_KEY = "sk-openai-test-key-9876";
let t: TestApp;
let fake: FakeUpstream;
let server: { url: string; stop(): Promise<void> };
let client: OpenAI;
let api: Rest;

beforeAll(async () => {
  fake = startFakeOpenAI({ apiKey: UPSTREAM_KEY });
  t = await createTestApp({ env: { OPENAI_BASE_URL: `${fake.url}/v1`, HONE_UPSTREAM_TIMEOUT_MS: "1500" } });
  await setProviderKey({ ...systemCtx(t.deps, "test"), projectId: t.project.projectId }, { provider: "openai", apiKey: UPSTREAM_KEY });
  server = serve(t.app);
  client = openAiClient(server.url, t.project.apiKey);
  api = rest(t);
});
afterAll(async () => {
  await server.stop();
  await fake.stop();
  await t.close();
});

const ask = (content: string) => [{ role: "user" as const, content }];
/** A logged request whose body carried Hone's own member. */
const WithHone = z.looseObject({ hone: z.unknown() });
/** A logged upstream error answer. */
const UpstreamError = z.looseObject({ error: z.looseObject({ code: z.unknown() }) });

describe("gateway to OpenAI", () => {
  test("a plain completion: routed with the stored key, prefix removed, Hone's members stripped, logged", async () => {
    const completion = await client.chat.completions.create(
      {
        model: "openai:gpt-4o-mini",
        messages: ask("hello there"),
        metadata: { prompt_id: "greeting", attempt: 2 } as never,
        seed: 7,
        // @ts-expect-error Hone's own body member
        hone: { tags: { team: "core" } },
      },
      { headers: { "op-tags": JSON.stringify({ $sdk: "typescript", env: "test" }) } },
    );
    expect(completion.choices[0]!.message.content).toBe("echo: hello there");
    expect(completion.object).toBe("chat.completion");

    const sent = fake.requests.at(-1)!;
    expect(sent.headers.authorization).toBe(`Bearer ${UPSTREAM_KEY}`);
    expect(sent.body.model).toBe("gpt-4o-mini");
    expect(sent.body.seed).toBe(7);
    expect(sent.body.hone).toBeUndefined();
    expect(sent.body.metadata).toBeUndefined(); // OpenAI takes metadata only with store: true

    const log = await latestLog(t);
    expect(log).toMatchObject({
      source: "gateway",
      provider: "openai",
      model: "openai:gpt-4o-mini",
      statusCode: 200,
      errorMessage: null,
      completionId: completion.id,
      inputTokens: 11,
      outputTokens: 7,
      cacheHit: false,
      tags: { prompt_id: "greeting", attempt: "2", team: "core", $sdk: "typescript", env: "test" },
    });
    const u = completion.usage!;
    const expected = calcPrice({ input_tokens: u.prompt_tokens, output_tokens: u.completion_tokens }, "gpt-4o-mini", { providerId: "openai" })!;
    expect(log.costUsd).toBeCloseTo(Number(expected.total_price), 12);
    expect(log.costUsd).toBeGreaterThan(0);
    expect(log.durationMs).toBeGreaterThanOrEqual(0);
    expect(log.body.respPayload).toEqual(JSON.parse(JSON.stringify(completion)));
    expect(WithHone.parse(log.body.reqPayload).hone).toEqual({ tags: { team: "core" } });
  });

  test("bare names go to OpenAI; metadata is forwarded when store is true", async () => {
    await client.chat.completions.create({ model: "gpt-4o-mini", messages: ask("bare"), store: true, metadata: { a: "b" } });
    const sent = fake.requests.at(-1)!;
    expect(sent.body.model).toBe("gpt-4o-mini");
    expect(sent.body.metadata).toEqual({ a: "b" });
    expect(sent.body.store).toBe(true);
  });

  test("members OpenAI accepts pass through unchanged", async () => {
    const extra = {
      response_format: { type: "json_object" },
      stop: ["\n\n"],
      logprobs: true,
      top_logprobs: 2,
      user: "u-1",
      reasoning_effort: "low",
      parallel_tool_calls: false,
      presence_penalty: 0.5,
      prediction: { type: "content", content: "x" },
    };
    await client.chat.completions.create({ model: "gpt-4o-mini", messages: ask("pass"), ...(extra as object) } as never);
    const sent = fake.requests.at(-1)!.body;
    for (const [k, v] of Object.entries(extra)) expect(sent[k]).toEqual(v);
  });

  test("streaming: the SDK reads every chunk; the log holds the merged completion with the same usage and cost as unstreamed", async () => {
    const plain = await client.chat.completions.create({ model: "gpt-4o-mini", messages: ask("count to three") });
    const plainLog = await latestLog(t);

    const stream = await client.chat.completions.create({ model: "gpt-4o-mini", messages: ask("count to three"), stream: true });
    let text = "";
    let chunks = 0;
    let sawUsage = false;
    for await (const chunk of stream) {
      chunks++;
      text += chunk.choices[0]?.delta.content ?? "";
      if (chunk.usage) sawUsage = true;
    }
    expect(text).toBe(plain.choices[0]!.message.content!);
    expect(chunks).toBeGreaterThan(3);
    expect(sawUsage).toBe(false); // not asked for, so the usage-only chunk is not forwarded
    expect(fake.requests.at(-1)!.body.stream_options).toEqual({ include_usage: true });

    const log = await latestLog(t);
    expect(log.statusCode).toBe(200);
    expect(log.inputTokens).toBe(plainLog.inputTokens);
    expect(log.outputTokens).toBe(plainLog.outputTokens);
    expect(log.costUsd).toBe(plainLog.costUsd);
    const merged = ChatCompletionWire.parse(log.body.respPayload);
    expect(merged.object).toBe("chat.completion");
    expect(merged.choices[0]!.message.content).toBe(text);
    expect(merged.choices[0]!.finish_reason).toBe("stop");
    // The client did not ask for usage, so the logged response (what it received) has none.
    expect(merged).not.toHaveProperty("usage");

    const withUsage = await client.chat.completions.create({
      model: "gpt-4o-mini",
      messages: ask("x"),
      stream: true,
      stream_options: { include_usage: true },
    });
    let usage: unknown = null;
    for await (const chunk of withUsage) if (chunk.usage) usage = chunk.usage;
    expect(usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 7 });
  });

  test("the raw stream is OpenAI SSE ending with [DONE]", async () => {
    const res = await fetch(`${server.url}/api/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${t.project.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-4o-mini", messages: ask("raw"), stream: true }),
    });
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const text = await res.text();
    const events = text.split("\n\n").filter(Boolean);
    expect(events.at(-1)).toBe("data: [DONE]");
    for (const e of events.slice(0, -1)) expect(JSON.parse(e.replace(/^data: /, "")).object).toBe("chat.completion.chunk");
  });

  test("bytes reach the client as the upstream sends them", async () => {
    const started = performance.now();
    const stream = await client.chat.completions.create({ model: "slow-150", messages: ask("a b c d"), stream: true });
    const arrivals: number[] = [];
    for await (const chunk of stream) if (chunk.choices[0]?.delta.content) arrivals.push(performance.now() - started);
    // Five words 150 ms apart: the first must arrive long before the last.
    expect(arrivals.length).toBe(5);
    expect(arrivals.at(-1)! - arrivals[0]!).toBeGreaterThan(450);
  });

  test("tools and n > 1, plain and streamed", async () => {
    const tools = [{ type: "function" as const, function: { name: "lookup", parameters: { type: "object", properties: { q: { type: "string" } } } } }];
    const r = await client.chat.completions.create({ model: "gpt-4o-mini", messages: ask("find cats"), tools, tool_choice: "auto" });
    expect(r.choices[0]!.finish_reason).toBe("tool_calls");
    const call = r.choices[0]!.message.tool_calls![0]! as { function: { name: string; arguments: string } };
    expect(call.function.name).toBe("lookup");
    expect(JSON.parse(call.function.arguments)).toEqual({ q: "find cats" });

    const s = await client.chat.completions.create({ model: "gpt-4o-mini", messages: ask("find dogs"), tools, stream: true });
    let args = "";
    for await (const chunk of s) args += chunk.choices[0]?.delta.tool_calls?.[0]?.function?.arguments ?? "";
    expect(JSON.parse(args)).toEqual({ q: "find dogs" });
    const merged = ChatCompletionWire.parse((await latestLog(t)).body.respPayload);
    const toolCalls = z.array(z.unknown()).parse(merged.choices[0]!.message.tool_calls);
    expect(toolCalls[0]).toEqual({ id: "call_abc", type: "function", function: { name: "lookup", arguments: args } });

    const three = await client.chat.completions.create({ model: "gpt-4o-mini", messages: ask("pick"), n: 3 });
    expect(three.choices.map((c) => c.index)).toEqual([0, 1, 2]);
    const streamedThree = await client.chat.completions.create({ model: "gpt-4o-mini", messages: ask("pick"), n: 3, stream: true });
    const seen = new Set<number>();
    for await (const chunk of streamedThree) for (const c of chunk.choices) seen.add(c.index);
    expect([...seen].sort()).toEqual([0, 1, 2]);
    expect(ChatCompletionWire.parse((await latestLog(t)).body.respPayload).choices).toHaveLength(3);
  });

  test("upstream HTTP errors keep their status and message; the SDK reads them; they are logged", async () => {
    for (const [model, status, Cls] of [
      ["error-429", 429, OpenAI.RateLimitError],
      ["error-500", 500, OpenAI.InternalServerError],
      ["error-400", 400, OpenAI.BadRequestError],
    ] as const) {
      const err = await client.chat.completions.create({ model, messages: ask("x") }).catch((e) => e);
      expect(err).toBeInstanceOf(Cls);
      expect(err.status).toBe(status);
      expect(err.message).toContain(`Simulated upstream error ${status}`);
      expect(err.code).toBe(`simulated_${status}`);
      const log = await latestLog(t);
      expect(log).toMatchObject({ statusCode: status, model: `openai:${model}`, errorMessage: `Simulated upstream error ${status}` });
      expect(UpstreamError.parse(log.body.respPayload).error.code).toBe(`simulated_${status}`);
    }
    // The same for a stream: the error arrives before any byte, as a normal HTTP error.
    const err = await client.chat.completions.create({ model: "error-503", messages: ask("x"), stream: true }).catch((e) => e);
    expect(err.status).toBe(503);
  });

  test("a timeout is a 504 and an unreachable upstream a 502, both logged", async () => {
    const started = performance.now();
    const timeout = await client.chat.completions.create({ model: "hang", messages: ask("x") }).catch((e) => e);
    expect(timeout.status).toBe(504);
    expect(timeout.message).toContain("did not answer within 1500 ms");
    expect(performance.now() - started).toBeLessThan(5000);
    expect((await latestLog(t)).statusCode).toBe(504);

    const dead = await createTestApp({ env: { OPENAI_BASE_URL: "http://127.0.0.1:9/v1" } });
    try {
      await setProviderKey({ ...systemCtx(dead.deps, "test"), projectId: dead.project.projectId }, { provider: "openai", apiKey: UPSTREAM_KEY });
      const { status, body } = await rest(dead).fail("POST /chat/completions", { body: { model: "gpt-4o-mini", messages: ask("x") } });
      expect(status).toBe(502);
      expect(body.code).toBe("UPSTREAM_ERROR");
      expect(body.error.message).toContain("Could not reach OpenAI");
      expect((await latestLog(dead)).statusCode).toBe(502);
    } finally {
      await dead.close();
    }
  });

  test("a stream that breaks or stalls ends with an error event, and what arrived is logged", async () => {
    const broken = await client.chat.completions.create({ model: "broken", messages: ask("one two three four"), stream: true });
    let got = "";
    const err = await (async () => {
      for await (const chunk of broken) got += chunk.choices[0]?.delta.content ?? "";
    })().catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(err.message).toContain("stream");
    const log = await latestLog(t);
    expect(log.statusCode).toBe(502);
    expect(ChatCompletionWire.parse(log.body.respPayload).choices[0]!.message.content).toBe(got);

    const started = performance.now();
    const stalled = await client.chat.completions.create({ model: "stall", messages: ask("x"), stream: true });
    const err2 = await (async () => {
      for await (const _ of stalled);
    })().catch((e) => e);
    expect(err2).toBeInstanceOf(OpenAI.APIError);
    expect(performance.now() - started).toBeLessThan(5000);
    expect((await latestLog(t)).statusCode).toBe(504);
  });

  test("a client that disconnects mid-stream aborts the upstream request; the partial call is logged", async () => {
    const abortedBefore = fake.aborted;
    const controller = new AbortController();
    const res = await fetch(`${server.url}/api/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${t.project.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "slow-200", messages: ask("w1 w2 w3 w4 w5 w6 w7 w8"), stream: true }),
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    await reader.read();
    controller.abort();
    await waitFor(() => fake.aborted > abortedBefore, { message: "the upstream request to be aborted" });
    const log = await waitFor(() => latestLog(t), { until: (l) => l.statusCode === 499, message: "the aborted call's log" });
    expect(fake.aborted).toBeGreaterThan(abortedBefore);
    expect(log.statusCode).toBe(499);
    expect(log.errorMessage).toContain("closed");
    const partial = ChatCompletionWire.nullable().parse(log.body.respPayload)?.choices[0]?.message.content ?? "";
    expect("echo: w1 w2 w3 w4 w5 w6 w7 w8".startsWith(partial)).toBe(true);
    expect(partial.length).toBeLessThan("echo: w1 w2 w3 w4 w5 w6 w7 w8".length);
  });

  test("op-log-request: false is not logged", async () => {
    const before = (await logsOf(t)).length;
    await client.chat.completions.create({ model: "gpt-4o-mini", messages: ask("secret") }, { headers: { "op-log-request": "false" } });
    await client.chat.completions.create({ model: "gpt-4o-mini", messages: ask("secret"), hone: { logRequest: false } } as never);
    expect((await logsOf(t)).length).toBe(before);
  });

  test("bad requests get 400 with OpenAI's error member; none reaches the upstream", async () => {
    const count = fake.requests.length;
    const cases: [unknown, Record<string, string>, string][] = [
      [{ model: "gpt-4o-mini", messages: [{ role: "user", content: "x", extra: 1 }] }, {}, "Input validation failed"],
      [{ model: "gpt-4o-mini", messages: [] }, {}, "Input validation failed"],
      [{ messages: ask("x") }, {}, "Input validation failed"],
      [{ model: "gpt-4o-mini", messages: ask("x"), tools: [{ type: "function" }] }, {}, "Input validation failed"],
      [{ model: "gpt-4o-mini", messages: ask("x"), n: 0 }, {}, "Input validation failed"],
      [{ model: "gpt-4o-mini", messages: ask("x"), audio: { format: "wav" } }, {}, "Input validation failed"],
      [{ model: "gpt-4o-mini", messages: ask("x") }, { "op-tags": "{not json" }, "op-tags"],
      [{ model: "gpt-4o-mini", messages: ask("x") }, { "op-cache": "sometimes" }, "op-cache"],
      [{ model: "gpt-4o-mini", messages: ask("x") }, { "op-criteria": '{"a":1}' }, "op-criteria"],
      [{ model: "gpt-4o-mini", messages: ask("x") }, { "op-log-request": "maybe" }, "op-log-request"],
      [{ model: "mystery:model-x", messages: ask("x") }, {}, "unknown provider prefix `mystery:`"],
    ];
    for (const [body, headers, message] of cases) {
      const { status, body: b } = await api.fail("POST /chat/completions", { body, headers });
      expect(status).toBe(400);
      expect(b.message).toContain(message);
      expect(b.code).toBe("VALIDATION");
      expect(b.message).toBe(b.error.message);
    }
    const malformed = await api.fail("POST /chat/completions", { body: "{" });
    expect(malformed.status).toBe(400);
    expect(fake.requests.length).toBe(count);
  });

  test("unknown fine-tunes are 404 with the exact message, and logged when asked", async () => {
    for (const model of ["hone:my-model", "openpipe:my-model"]) {
      const err = await client.chat.completions.create({ model, messages: ask("x") }, { headers: { "op-log-request": "true" } }).catch((e) => e);
      expect(err).toBeInstanceOf(OpenAI.NotFoundError);
      expect(err.message).toContain(`The model \`${model}\` does not exist`);
      const log = await latestLog(t);
      expect(log).toMatchObject({ model: "hone:my-model", statusCode: 404, errorMessage: `The model \`${model}\` does not exist` });
    }
  });

  test("a missing provider key is a 400 naming the provider", async () => {
    const other = await t.createProject("no-keys");
    const c = openAiClient(server.url, other.apiKey);
    const err = await c.chat.completions.create({ model: "gpt-4o-mini", messages: ask("x") }).catch((e) => e);
    expect(err.status).toBe(400);
    expect(err.message).toContain("No openai API key is stored for this project");
    const anthropic = await c.chat.completions.create({ model: "anthropic:claude-x", messages: ask("x") }).catch((e) => e);
    expect(anthropic.message).toContain("No anthropic API key");
  });

  test("a wrong Hone key is a 401 the SDK understands", async () => {
    const bad = openAiClient(server.url, "hone_sk_wrongwrongwrongwrongwrongwrong");
    const err = await bad.chat.completions.create({ model: "gpt-4o-mini", messages: ask("x") }).catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(err.message).toContain("Invalid API key");
  });
});
