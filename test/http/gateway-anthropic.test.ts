import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { z } from "zod";
import { systemCtx } from "../../src/domain/context";
import { setProviderKey } from "../../src/domain/projects";
import { ChatCompletionWire } from "../../src/http/rest/wire-schemas";
import { createTestApp, serve, type TestApp, openAiClient } from "../helpers/app";
import { startFakeAnthropic, type FakeUpstream } from "../helpers/fake-upstreams";
import { latestLog } from "../helpers/logs";

const KEY = "sk-ant-test-key-5555";
let t: TestApp;
let fake: FakeUpstream;
let server: { url: string; stop(): Promise<void> };
let client: OpenAI;

beforeAll(async () => {
  fake = startFakeAnthropic({ apiKey: KEY });
  t = await createTestApp({ env: { ANTHROPIC_BASE_URL: fake.url } });
  await setProviderKey({ ...systemCtx(t.deps, "test"), projectId: t.project.projectId }, { provider: "anthropic", apiKey: KEY });
  server = serve(t.app);
  client = openAiClient(server.url, t.project.apiKey);
});
afterAll(async () => {
  await server.stop();
  await fake.stop();
  await t.close();
});

/** The tool calls of a logged chat completion's message. */
const ToolCalls = z.array(z.looseObject({ function: z.looseObject({ arguments: z.string() }) }));

const tools = [
  {
    type: "function" as const,
    function: { name: "get_weather", description: "Weather for a city", parameters: { type: "object", properties: { q: { type: "string" } } } },
  },
];

describe("gateway to Anthropic (native Messages API)", () => {
  test("the request is translated: system and developer, images, tool calls and results, tools, tool_choice, max_tokens", async () => {
    await client.chat.completions.create({
      model: "anthropic:claude-sonnet-4-5",
      temperature: 1.5,
      stop: "END",
      user: "user-7",
      parallel_tool_calls: false,
      tools,
      tool_choice: { type: "function", function: { name: "get_weather" } },
      messages: [
        { role: "system", content: "You are terse." },
        { role: "developer", content: [{ type: "text", text: "Use tools." }] },
        {
          role: "user",
          content: [
            { type: "text", text: "What is here?" },
            { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
            { type: "image_url", image_url: { url: "https://example.com/cat.jpg" } },
          ],
        },
        {
          role: "assistant",
          content: "Checking.",
          tool_calls: [{ id: "toolu_9", type: "function", function: { name: "get_weather", arguments: '{"q":"Paris"}' } }],
        },
        { role: "tool", tool_call_id: "toolu_9", content: "sunny" },
        { role: "user", content: "thanks" },
      ],
    });
    const sent = fake.requests.at(-1)!;
    expect(sent.headers["x-api-key"]).toBe(KEY);
    expect(sent.headers["anthropic-version"]).toBe("2023-06-01");
    expect(sent.body).toEqual({
      model: "claude-sonnet-4-5",
      max_tokens: 4096,
      system: [
        { type: "text", text: "You are terse." },
        { type: "text", text: "Use tools." },
      ],
      temperature: 1,
      stop_sequences: ["END"],
      metadata: { user_id: "user-7" },
      tools: [{ name: "get_weather", description: "Weather for a city", input_schema: { type: "object", properties: { q: { type: "string" } } } }],
      tool_choice: { type: "tool", name: "get_weather", disable_parallel_tool_use: true },
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "What is here?" },
            { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
            { type: "image", source: { type: "url", url: "https://example.com/cat.jpg" } },
          ],
        },
        {
          role: "assistant",
          content: [
            { type: "text", text: "Checking." },
            { type: "tool_use", id: "toolu_9", name: "get_weather", input: { q: "Paris" } },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "toolu_9", content: "sunny" },
            { type: "text", text: "thanks" },
          ],
        },
      ],
    });
  });

  test("max_completion_tokens wins over max_tokens; required and none map to any and none", async () => {
    await client.chat.completions.create({
      model: "anthropic:c",
      messages: [{ role: "user", content: "x" }],
      max_tokens: 10,
      max_completion_tokens: 20,
      tools,
      tool_choice: "required",
    });
    expect(fake.requests.at(-1)!.body).toMatchObject({ max_tokens: 20, tool_choice: { type: "any" } });
    await client.chat.completions.create({ model: "anthropic:c", messages: [{ role: "user", content: "x" }], tools, tool_choice: "none" });
    expect(fake.requests.at(-1)!.body.tool_choice).toEqual({ type: "none" });
  });

  test("the response comes back as a chat.completion with usage and cost, and is logged that way", async () => {
    const r = await client.chat.completions.create({ model: "anthropic:claude-3-5-haiku-20241022", messages: [{ role: "user", content: "hi" }] });
    expect(r.object).toBe("chat.completion");
    expect(r.choices[0]!.message).toMatchObject({ role: "assistant", content: "echo: hi" });
    expect(r.choices[0]!.finish_reason).toBe("stop");
    // input 12 + cache read 3
    expect(r.usage).toMatchObject({ prompt_tokens: 15, completion_tokens: 6, total_tokens: 21, prompt_tokens_details: { cached_tokens: 3 } });
    const log = await latestLog(t);
    expect(log).toMatchObject({ provider: "anthropic", statusCode: 200, inputTokens: 15, outputTokens: 6, completionId: r.id });
    expect(log.costUsd).toBeGreaterThan(0);
  });

  test("tool_use blocks become tool_calls with finish_reason tool_calls", async () => {
    const r = await client.chat.completions.create({ model: "anthropic:c", messages: [{ role: "user", content: "weather in Oslo" }], tools });
    const choice = r.choices[0]!;
    expect(choice.finish_reason).toBe("tool_calls");
    expect(choice.message.content).toBe("Let me check.");
    expect(choice.message.tool_calls).toEqual([
      { id: "toolu_01", type: "function", function: { name: "get_weather", arguments: JSON.stringify({ q: "weather in Oslo" }) } },
    ]);
  });

  test("streams are translated event by event, text and tool calls, with usage at the end", async () => {
    const s = await client.chat.completions.create({
      model: "anthropic:c",
      messages: [{ role: "user", content: "stream me" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = "";
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | null = null;
    for await (const chunk of s) {
      text += chunk.choices[0]?.delta.content ?? "";
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe("echo: stream me");
    expect(finish).toBe("stop");
    expect(usage).toMatchObject({ prompt_tokens: 15, completion_tokens: 6 });

    const toolStream = await client.chat.completions.create({ model: "anthropic:c", messages: [{ role: "user", content: "Rome" }], tools, stream: true });
    let args = "";
    let name = "";
    let id = "";
    for await (const chunk of toolStream) {
      const call = chunk.choices[0]?.delta.tool_calls?.[0];
      if (call?.id) id = call.id;
      if (call?.function?.name) name = call.function.name;
      args += call?.function?.arguments ?? "";
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect({ id, name, args: JSON.parse(args) }).toEqual({ id: "toolu_01", name: "get_weather", args: { q: "Rome" } });
    expect(finish).toBe("tool_calls");
    const log = await latestLog(t);
    expect(log).toMatchObject({ statusCode: 200, inputTokens: 15, outputTokens: 6 });
    const toolCalls = ToolCalls.parse(ChatCompletionWire.parse(log.body.respPayload).choices[0]!.message.tool_calls);
    expect(toolCalls[0]!.function.arguments).toBe(args);
  });

  test("n > 1 samples n times", async () => {
    const before = fake.requests.length;
    const r = await client.chat.completions.create({ model: "anthropic:c", messages: [{ role: "user", content: "pick" }], n: 3 });
    expect(r.choices.map((c) => c.index)).toEqual([0, 1, 2]);
    expect(fake.requests.length - before).toBe(3);
    expect(r.usage?.completion_tokens).toBe(18);
  });

  test("errors: upstream status kept, error events mid-stream end the stream, unsupported members are 400", async () => {
    const overloaded = await client.chat.completions.create({ model: "anthropic:error-529", messages: [{ role: "user", content: "x" }] }).catch((e) => e);
    expect(overloaded.status).toBe(529);
    expect(overloaded.message).toContain("Simulated overloaded_error");
    expect((await latestLog(t)).statusCode).toBe(529);

    const mid = await client.chat.completions.create({ model: "anthropic:error-mid", messages: [{ role: "user", content: "x" }], stream: true });
    const err = await (async () => {
      for await (const _ of mid);
    })().catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(err.message).toContain("Overloaded");
    expect((await latestLog(t)).statusCode).toBe(502);

    const broken = await client.chat.completions.create({ model: "anthropic:broken", messages: [{ role: "user", content: "a b c" }], stream: true });
    expect(
      await (async () => {
        for await (const _ of broken);
      })().catch((e) => e),
    ).toBeInstanceOf(OpenAI.APIError);

    const rf = await client.chat.completions
      .create({ model: "anthropic:c", messages: [{ role: "user", content: "x" }], response_format: { type: "json_object" } })
      .catch((e) => e);
    expect(rf.status).toBe(400);
    expect(rf.message).toContain("not supported for anthropic");
    const n2stream = await client.chat.completions
      .create({ model: "anthropic:c", messages: [{ role: "user", content: "x" }], n: 2, stream: true })
      .catch((e) => e);
    expect(n2stream.status).toBe(400);
  });
});
