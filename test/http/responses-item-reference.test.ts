import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, stepCountIs, tool } from "ai";
import { z } from "zod";
import { systemCtx } from "../../src/domain/context";
import { storedResponses } from "../../src/db/schema";
import { createProject } from "../../src/domain/projects";
import { createTestApp, serve, storeProviderKey, type TestApp } from "../helpers/app";
import { type FakeUpstream, startFakeAnthropic, startFakeOpenAI } from "../helpers/fake-upstreams";

// An item_reference names an item of a response Hone stored (the Vercel AI SDK sends its earlier
// answers so in a tool loop): for a provider other than OpenAI, Hone puts the item itself in its
// place, from what it stored for the project.

let t: TestApp;
let anthropicFake: FakeUpstream;
let openaiFake: FakeUpstream;
let server: { url: string; stop(): Promise<void> };

beforeAll(async () => {
  anthropicFake = startFakeAnthropic({ apiKey: "sk-ant-refs" });
  openaiFake = startFakeOpenAI({ apiKey: "sk-gemini-refs" });
  t = await createTestApp({ env: { ANTHROPIC_BASE_URL: anthropicFake.url, GEMINI_BASE_URL: `${openaiFake.url}/gemini` } });
  await storeProviderKey(t, "anthropic", "sk-ant-refs");
  await storeProviderKey(t, "gemini", "sk-gemini-refs");
  server = serve(t.app);
});
afterAll(async () => {
  await server.stop();
  await anthropicFake.stop();
  await openaiFake.stop();
  await t.close();
});

const CLAUDE = "anthropic:claude-sonnet-4-5";
const weather = {
  type: "function",
  name: "get_weather",
  description: "Weather for a city",
  parameters: { type: "object", properties: { q: { type: "string" } } },
};

type Item = { id: string; type: string; [k: string]: unknown };

type MessageItem = Item & { content: { type: string; text: string }[] };
/** A created Response, as these tests read it. */
type ResponseOut = { id: string; output: Item[] };
/** A refused one: OpenAI's error object. */
type ErrorOut = { error: { message: string; type: string; code: unknown } };

/** POST /responses: the status and the body, typed as a Response unless the caller names the error's type. */
async function create<T = ResponseOut>(body: Record<string, unknown>, key = t.project.apiKey): Promise<{ status: number; body: T }> {
  const res = await t.request("POST", "/api/v1/responses", { body, key });
  return { status: res.status, body: (await res.json()) as T };
}

describe("item_reference on a translated provider", () => {
  test("references to a stored response's input and output items are the items themselves, upstream; the chain they are stored in continues", async () => {
    const first = await create({ model: CLAUDE, tools: [weather], input: "Weather in Oslo?" });
    expect(first.status).toBe(200);
    const output = first.body.output;
    const message = output.find((i) => i.type === "message")!;
    const call = output.find((i) => i.type === "function_call")!;
    expect(call).toMatchObject({ call_id: "toolu_01", name: "get_weather" });
    const listed = await t.request("GET", `/api/v1/responses/${first.body.id}/input_items`);
    const question = ((await listed.json()) as { data: Item[] }).data[0]!;
    expect(question).toMatchObject({ type: "message", role: "user" });

    // A reasoning item (of a response OpenAI answered) resolves too, and is left out: only its maker reads it.
    await t.deps.database.db.insert(storedResponses).values({
      id: "resp_openai_stored",
      projectId: t.project.projectId,
      previousResponseId: null,
      input: [],
      response: {
        id: "resp_openai_stored",
        object: "response",
        status: "completed",
        output: [{ id: "rs_openai_1", type: "reasoning", summary: [{ type: "summary_text", text: "Thinking." }], encrypted_content: "gAAA" }],
      },
    });

    const input = [
      { type: "item_reference", id: question.id },
      { type: "item_reference", id: "rs_openai_1" },
      { type: "item_reference", id: message.id },
      { type: "item_reference", id: call.id },
      { type: "function_call_output", call_id: "toolu_01", output: "Sunny, 21 C" },
    ];
    const second = await create({ model: CLAUDE, input });
    expect(second.status).toBe(200);
    const expected = [
      { role: "user", content: [{ type: "text", text: "Weather in Oslo?" }] },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Let me check." },
          { type: "tool_use", id: "toolu_01", name: "get_weather", input: { q: "Weather in Oslo?" } },
        ],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_01", content: "Sunny, 21 C" }] },
    ];
    expect(anthropicFake.requests.at(-1)!.body.messages).toEqual(expected);

    // On Gemini (chat completions) as well.
    const gemini = await create({ model: "gemini:gemini-2.5-flash", input });
    expect(gemini.status).toBe(200);
    expect(openaiFake.requests.at(-1)!.body.messages).toEqual([
      { role: "user", content: "Weather in Oslo?" },
      {
        role: "assistant",
        content: "Let me check.",
        tool_calls: [{ id: "toolu_01", type: "function", function: { name: "get_weather", arguments: JSON.stringify({ q: "Weather in Oslo?" }) } }],
      },
      { role: "tool", tool_call_id: "toolu_01", content: "Sunny, 21 C" },
    ]);

    // The input is stored as sent, references included; continuing from it resolves them again.
    const stored = await t.request("GET", `/api/v1/responses/${second.body.id}/input_items?order=asc`);
    expect(((await stored.json()) as { data: Item[] }).data.map((i) => i.type)).toEqual([
      "item_reference",
      "item_reference",
      "item_reference",
      "item_reference",
      "function_call_output",
    ]);
    const third = await create({ model: CLAUDE, previous_response_id: second.body.id, input: "Thanks!" });
    expect(third.status).toBe(200);
    expect(anthropicFake.requests.at(-1)!.body.messages).toEqual([
      ...expected,
      { role: "assistant", content: [{ type: "text", text: (second.body.output[0] as MessageItem).content[0]!.text }] },
      { role: "user", content: [{ type: "text", text: "Thanks!" }] },
    ]);
  });

  test("an unknown id, another project's, one without an id, or too many are a 400 naming it, and nothing goes upstream", async () => {
    const other = await createProject(systemCtx(t.deps, "test"), { name: "other" });
    await storeProviderKey(t, "anthropic", "sk-ant-refs", other.projectId);
    const theirs = await create({ model: CLAUDE, input: "Their secret" }, other.apiKey);
    expect(theirs.status).toBe(200);
    const theirMessage = theirs.body.output[0]!.id;
    const mine = await create({ model: CLAUDE, input: "Mine" });
    const before = anthropicFake.requests.length;

    for (const id of ["msg_never_stored", theirMessage]) {
      const r = await create<ErrorOut>({
        model: CLAUDE,
        input: [
          { type: "item_reference", id: mine.body.output[0]!.id },
          { type: "item_reference", id },
        ],
      });
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ type: "validation", code: "VALIDATION" });
      expect(r.body.error.message).toContain(`'${id}'`);
    }
    // The id is theirs: their own project resolves it.
    const resolved = await create(
      {
        model: CLAUDE,
        input: [
          { type: "item_reference", id: theirMessage },
          { role: "user", content: "Again" },
        ],
      },
      other.apiKey,
    );
    expect(resolved.status).toBe(200);
    expect(anthropicFake.requests.at(-1)!.body.messages![0]).toEqual({ role: "assistant", content: [{ type: "text", text: "echo: Their secret" }] });
    const afterTheirs = anthropicFake.requests.length;

    const noId = await create<ErrorOut>({ model: CLAUDE, input: [{ type: "item_reference" }] });
    expect(noId.status).toBe(400);
    expect(noId.body.error.message).toContain("item_reference needs the id");

    const many = await create<ErrorOut>({ model: CLAUDE, input: Array.from({ length: 1_001 }, (_, i) => ({ type: "item_reference", id: `msg_${i}` })) });
    expect(many.status).toBe(400);
    expect(many.body.error.message).toContain("1,001 items are referenced");
    expect(anthropicFake.requests.length).toBe(afterTheirs);
    expect(afterTheirs).toBe(before + 1);
  });

  test("the AI SDK's tool loop (openai Responses model, store on) runs on an Anthropic model through Hone", async () => {
    const sent: { input: Item[] }[] = [];
    const answered: { output: Item[] }[] = [];
    const openai = createOpenAI({
      baseURL: `${server.url}/api/v1`,
      apiKey: t.project.apiKey,
      fetch: (async (url: string | URL | Request, init?: RequestInit) => {
        if (typeof init?.body === "string") sent.push(JSON.parse(init.body) as { input: Item[] });
        const res = await fetch(url, init);
        answered.push(await res.clone().json());
        return res;
      }) as typeof fetch,
    });
    const calls: string[] = [];
    const result = await generateText({
      model: openai(CLAUDE),
      prompt: "Weather in Paris?",
      tools: {
        get_weather: tool({
          description: "Weather for a city",
          inputSchema: z.object({ q: z.string() }),
          execute: async ({ q }) => {
            calls.push(q);
            return { forecast: "rain" };
          },
        }),
      },
      // The fake calls a tool whenever one may be called: the last step may not, so it answers.
      prepareStep: ({ stepNumber }) => (stepNumber >= 2 ? { toolChoice: "none" as const } : {}),
      stopWhen: stepCountIs(5),
    });
    expect(result.steps).toHaveLength(3);
    // The fake asks with the last user text: after a tool result there is none.
    expect(calls).toEqual(["Weather in Paris?", ""]);
    expect(result.text).toStartWith("echo:");

    // The SDK sent its earlier answers as references (store is its default) ...
    expect(sent).toHaveLength(3);
    const firstMessageId = answered[0]!.output.find((i) => i.type === "message")!.id;
    expect(sent[1]!.input).toContainEqual({ type: "item_reference", id: firstMessageId });
    expect(sent[2]!.input.filter((i) => i.type === "item_reference")).toHaveLength(2);
    // ... and Anthropic got what they name.
    const last = anthropicFake.requests.at(-1)!.body;
    expect(last.tool_choice).toEqual({ type: "none" });
    expect(last.messages!.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant", "user"]);
    expect(last.messages![1]!.content).toEqual([
      { type: "text", text: "Let me check." },
      { type: "tool_use", id: "toolu_01", name: "get_weather", input: { q: "Weather in Paris?" } },
    ]);
  });
});
