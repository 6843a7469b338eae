import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ChatCompletionWire } from "../../src/http/rest/wire-schemas";
import { createTestApp, type TestApp } from "../helpers/app";
import { gqlData } from "../helpers/gql";
import { latestLog, logsOf } from "../helpers/logs";
import { type OkOptions, rest, type Rest } from "../helpers/rest";

let t: TestApp;
let api: Rest;
beforeAll(async () => {
  t = await createTestApp({ env: { HONE_TESTING_ROUTES: "true" } });
  api = rest(t);
});
afterAll(() => t.close());

const completion = (id: string, content: string) => ({
  id,
  object: "chat.completion",
  created: 1_700_000_000,
  model: "gpt-4o-mini-2024-07-18",
  choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
  usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
});

describe("POST /report", () => {
  test("a full report is stored as sent and answered only once committed", async () => {
    const reqPayload = { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }], metadata: { prompt_id: "p1" } };
    const respPayload = completion("chatcmpl-r1", "hello");
    const r = await api.ok("POST /report", {
      body: {
        requestedAt: 1_700_000_000_000,
        receivedAt: 1_700_000_001_250,
        reqPayload,
        respPayload,
        statusCode: 200,
        tags: { $sdk: "python", n: 3, ok: true, gone: null },
      },
    });
    expect(r).toEqual({ status: "ok" });
    // No flush: the answer came after the commit.
    const rows = await t.deps.database.db.query.requestLogs.findMany({ where: { completionId: "chatcmpl-r1" }, with: { body: true } });
    expect(rows).toHaveLength(1);
    const log = rows[0]!;
    expect(log).toMatchObject({
      source: "report",
      // One spelling per model: a bare name is OpenAI's.
      model: "openai:gpt-4o-mini",
      completionId: "chatcmpl-r1",
      statusCode: 200,
      errorMessage: null,
      durationMs: 1250,
      inputTokens: 100,
      outputTokens: 20,
      tags: { prompt_id: "p1", $sdk: "python", n: "3", ok: "true" },
    });
    expect(log.requestedAt!.getTime()).toBe(1_700_000_000_000);
    expect(log.receivedAt!.getTime()).toBe(1_700_000_001_250);
    expect(log.costUsd).toBeGreaterThan(0);
    expect(log.body!.reqPayload).toEqual(reqPayload);
    expect(log.body!.respPayload).toEqual(respPayload);
  });

  test("null, missing and odd payloads are stored verbatim", async () => {
    const odd: unknown[] = [null, [1, "two", { three: 3 }], "just a string", 42, { deep: { a: [null, true, 1.5e-7] }, emoji: "héllo ✓ 🎉" }];
    for (const payload of odd) {
      expect(await api.ok("POST /report", { body: { reqPayload: payload, respPayload: payload } })).toEqual({ status: "ok" });
      const log = await latestLog(t);
      expect(log.body.reqPayload).toEqual(payload);
      expect(log.body.respPayload).toEqual(payload);
      expect(log.model).toBeNull();
    }
    expect(await api.ok("POST /report", { body: {} })).toEqual({ status: "ok" });
    const empty = await latestLog(t);
    expect(empty).toMatchObject({ model: null, completionId: null, statusCode: null, requestedAt: null, tags: {} });
  });

  test("a NUL character, which jsonb cannot hold, does not lose the log", async () => {
    expect(await api.ok("POST /report", { body: { reqPayload: { model: "m", text: "a\u0000b" }, statusCode: 200 } })).toEqual({ status: "ok" });
    const log = await latestLog(t);
    expect((log.body.reqPayload as { text: string }).text).toBe("a\uFFFDb");
    expect(log.model).toBe("openai:m");
  });

  test("payloads near the size limit are stored; over it is 413", async () => {
    const big = "x".repeat(9 * 1024 * 1024);
    expect(await api.ok("POST /report", { body: { reqPayload: { model: "big", big }, statusCode: 200 } })).toEqual({ status: "ok" });
    const log = await latestLog(t);
    expect((log.body.reqPayload as { big: string }).big.length).toBe(big.length);
    const tooBig = await api.fail("POST /report", { body: { reqPayload: { big: big + "x".repeat(2 * 1024 * 1024) } } });
    expect(tooBig.status).toBe(413);
  });

  test("bad timestamps and wrong types are 400 with the issues", async () => {
    for (const body of [{ requestedAt: "yesterday" }, { receivedAt: -5 }, { requestedAt: 1e20 }, { statusCode: "200" }, { errorMessage: 5 }]) {
      const r = await api.fail("POST /report", { body });
      expect(r.status).toBe(400);
      expect(r.body.message).toBe("Input validation failed");
      expect(r.body.issues.length).toBeGreaterThan(0);
    }
    // Tags that are not flat get OpenPipe's own wording.
    for (const body of [{ tags: ["a"] }, { tags: { a: { nested: true } } }]) {
      const r = await api.fail("POST /report", { body });
      expect(r.status).toBe(400);
      expect(r.body.message).toStartWith("Failed to parse tags:");
      expect(r.body.issues.length).toBeGreaterThan(0);
    }
    expect((await api.fail("POST /report", { body: [1, 2] })).status).toBe(400);
    const malformed = await api.raw("POST /report", { body: "{" });
    expect(malformed.status).toBe(400);
  });

  test("the base URL may end with a slash (clients then send //report)", async () => {
    const res = await t.request("POST", "/api/v1//report", { body: { statusCode: 201 } });
    expect(res.status).toBe(200);
    expect((await latestLog(t)).statusCode).toBe(201);
  });
});

describe("POST /report-anthropic", () => {
  test("stored in chat.completion form (text, tool_use, stop reason, usage) and verbatim", async () => {
    const reqPayload = {
      model: "claude-3-5-haiku-20241022",
      max_tokens: 1024,
      system: "Be brief.",
      messages: [
        { role: "user", content: "Weather in Paris?" },
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "weather", input: { city: "Paris" } }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "sunny" }] },
      ],
      tools: [{ name: "weather", description: "Get weather", input_schema: { type: "object", properties: { city: { type: "string" } } } }],
      tool_choice: { type: "auto", disable_parallel_tool_use: true },
      metadata: { user_id: "u-1" },
    };
    const respPayload = {
      id: "msg_01abc",
      type: "message",
      role: "assistant",
      model: "claude-3-5-haiku-20241022",
      content: [
        { type: "text", text: "It is sunny. Checking more." },
        { type: "tool_use", id: "toolu_2", name: "weather", input: { city: "Lyon" } },
      ],
      stop_reason: "tool_use",
      stop_sequence: null,
      usage: { input_tokens: 50, output_tokens: 10, cache_read_input_tokens: 5, cache_creation_input_tokens: 7 },
    };
    const r = await api.ok("POST /report-anthropic", {
      body: {
        requestedAt: Date.now() - 500,
        receivedAt: Date.now(),
        reqPayload,
        respPayload,
        statusCode: 200,
        metadata: { feature: "weather" },
        tags: { legacy: "yes" },
      },
    });
    expect(r).toEqual({ status: "ok" });
    const log = await latestLog(t);
    expect(log).toMatchObject({
      source: "report-anthropic",
      provider: "anthropic",
      model: "anthropic:claude-3-5-haiku-20241022",
      completionId: "msg_01abc",
      // Anthropic's input tokens leave out its cache reads and writes; Hone's count them in, by class.
      inputTokens: 62,
      cachedInputTokens: 5,
      cacheWriteTokens: 7,
      outputTokens: 10,
      reasoningTokens: null,
      tags: { feature: "weather", legacy: "yes" },
    });
    expect(log.costUsd).toBeGreaterThan(0);
    // The classes reach GraphQL and the export as they are stored.
    const { log: viaGraph } = await gqlData(t, "query($id: ID!) { log(id: $id) { inputTokens cachedInputTokens cacheWriteTokens reasoningTokens } }", {
      id: log.id,
    });
    expect(viaGraph).toEqual({ inputTokens: 62, cachedInputTokens: 5, cacheWriteTokens: 7, reasoningTokens: null });
    const exported = await api.raw("GET /logs/export", { query: { format: "csv" } });
    const [header, ...lines] = (await exported.text()).trim().split("\n");
    const cols = header!.split(",");
    const mine = lines.find((l) => l.startsWith(`${log.id},`))!.split(",");
    expect(["cached_input_tokens", "cache_write_tokens", "reasoning_tokens"].map((c) => mine[cols.indexOf(c)])).toEqual(["5", "7", ""]);
    const resp = ChatCompletionWire.parse(log.body.respPayload);
    expect(resp.object).toBe("chat.completion");
    expect(resp.choices[0]!.message.content).toBe(respPayload.content[0]!.text!);
    expect(resp.choices[0]!.message.tool_calls).toEqual([{ id: "toolu_2", type: "function", function: { name: "weather", arguments: '{"city":"Lyon"}' } }]);
    expect(resp.choices[0]!.finish_reason).toBe("tool_calls");
    const req = log.body.reqPayload as { messages: unknown[]; tools: unknown[]; tool_choice: unknown; parallel_tool_calls: unknown };
    expect(req.messages).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "Weather in Paris?" },
      { role: "assistant", content: null, tool_calls: [{ id: "toolu_1", type: "function", function: { name: "weather", arguments: '{"city":"Paris"}' } }] },
      { role: "tool", tool_call_id: "toolu_1", content: "sunny" },
    ]);
    expect(req.tools[0]).toEqual({
      type: "function",
      function: { name: "weather", description: "Get weather", parameters: reqPayload.tools[0]!.input_schema },
    });
    expect(req.tool_choice).toBe("auto");
    expect(req.parallel_tool_calls).toBe(false);
    expect(log.body.respPayloadOriginal).toEqual(respPayload);
    expect(log.body.reqPayloadOriginal).toEqual(reqPayload);

    // What the SDKs' own test reads back: content equal to Anthropic's first text block.
    const latest = await api.ok("GET /local-testing-only-get-latest-logged-call");
    expect(ChatCompletionWire.parse(latest!.respPayload).choices[0]!.message.content).toBe(respPayload.content[0]!.text!);
  });

  test("a failed Anthropic call and a null payload are stored as they are", async () => {
    const err = { type: "error", error: { type: "overloaded_error", message: "Overloaded" } };
    expect(await api.ok("POST /report-anthropic", { body: { reqPayload: null, respPayload: err, statusCode: 529, errorMessage: "Overloaded" } })).toEqual({
      status: "ok",
    });
    const log = await latestLog(t);
    expect(log).toMatchObject({ statusCode: 529, errorMessage: "Overloaded", model: null });
    expect(log.body.respPayload).toEqual(err);
    await api.ok("POST /report-anthropic", { body: { metadata: { a: 1 } } });
    expect((await api.fail("POST /report-anthropic", { body: { metadata: "nope" } })).status).toBe(400);
  });
});

describe("the SDK test route and /check-cache", () => {
  test("GET /local-testing-only-get-latest-logged-call returns the newest log of the project", async () => {
    await api.ok("POST /report", {
      body: { reqPayload: { model: "latest-model" }, respPayload: completion("chatcmpl-latest", "x"), statusCode: 200, tags: { t: "1" } },
    });
    const body = await api.ok("GET /local-testing-only-get-latest-logged-call");
    expect(body).toMatchObject({ cacheHit: false, statusCode: 200, errorMessage: null, tags: { t: "1" }, metadata: { t: "1" } });
    expect(body!.reqPayload).toEqual({ model: "latest-model" });
    expect(new Date(body!.createdAt).toISOString()).toBe(body!.createdAt);

    const fresh = await t.createProject("empty");
    const none = await api.ok("GET /local-testing-only-get-latest-logged-call", { key: fresh.apiKey });
    expect(none).toBeNull();
  });

  test("the test route is 404 unless HONE_TESTING_ROUTES is on", async () => {
    const off = await createTestApp();
    try {
      const res = await rest(off).fail("GET /local-testing-only-get-latest-logged-call");
      expect(res.status).toBe(404);
    } finally {
      await off.close();
    }
  });

  test("/check-cache validates its body and answers {respPayload: null}", async () => {
    expect(await api.ok("POST /check-cache", { body: { requestedAt: Date.now(), reqPayload: { model: "x" }, tags: { a: "b" } } })).toEqual({
      respPayload: null,
    });
    expect((await api.fail("POST /check-cache", { body: { reqPayload: {} } })).status).toBe(400);
    expect((await api.fail("POST /check-cache", { body: { requestedAt: "now" } })).status).toBe(400);
  });
});

describe("POST /logs/update-metadata", () => {
  test("filters AND together; values merge per key; null deletes; matchedLogs counts; other projects untouched", async () => {
    const proj = await t.createProject("meta");
    const other = await t.createProject("meta-other");
    const report = (key: string, model: string, id: string, tags: Record<string, string>) =>
      api.ok("POST /report", { body: { reqPayload: { model }, respPayload: { id }, statusCode: 200, tags }, key });
    await report(proj.apiKey, "m1", "c1", { env: "prod", team: "a" });
    await report(proj.apiKey, "m1", "c2", { env: "dev", team: "a" });
    await report(proj.apiKey, "m2", "c3", { env: "prod", team: "b" });
    await report(other.apiKey, "m1", "c1", { env: "prod", team: "a" });

    const upd = (body: NonNullable<OkOptions<"POST /logs/update-metadata">["body"]>, key = proj.apiKey) => api.ok("POST /logs/update-metadata", { body, key });
    expect(await upd({ filters: [{ field: "model", equals: "m1" }], metadata: { reviewed: "yes" } })).toEqual({ matchedLogs: 2 });
    expect(
      await upd({
        filters: [
          { field: "model", equals: "m1" },
          { field: "metadata.env", equals: "prod" },
        ],
        metadata: { hot: "1" },
      }),
    ).toEqual({ matchedLogs: 1 });
    expect(await upd({ filters: [{ field: "completionId", equals: "c3" }], metadata: { team: null, score: 5 } })).toEqual({ matchedLogs: 1 });
    expect(await upd({ filters: [{ field: "tags.team", equals: "a" }], metadata: { legacy: true } })).toEqual({ matchedLogs: 2 });
    expect(await upd({ filters: [], metadata: { all: "x" } })).toEqual({ matchedLogs: 3 });
    expect(await upd({ filters: [{ field: "metadata.env", equals: "nowhere" }], metadata: { a: "b" } })).toEqual({ matchedLogs: 0 });

    const logs = await logsOf(t, proj.projectId);
    const byCompletion = Object.fromEntries(logs.map((l) => [l.completionId, l.tags]));
    expect(byCompletion).toEqual({
      c1: { env: "prod", team: "a", reviewed: "yes", hot: "1", legacy: "true", all: "x" },
      c2: { env: "dev", team: "a", reviewed: "yes", legacy: "true", all: "x" },
      c3: { env: "prod", score: "5", all: "x" },
    });
    const untouched = await logsOf(t, other.projectId);
    expect(untouched[0]!.tags).toEqual({ env: "prod", team: "a" });

    // The deprecated spelling.
    expect(
      await api.ok("POST /logs/update-tags", { body: { filters: [{ field: "tags.env", equals: "dev" }], tags: { old: "api" } }, key: proj.apiKey }),
    ).toEqual({
      matchedLogs: 1,
    });
  });

  test("unknown filter fields and malformed bodies are 400", async () => {
    for (const body of [
      { filters: [{ field: "statusCode", equals: 200 }], metadata: {} },
      { filters: [{ field: "metadata.", equals: "x" }], metadata: {} },
      { filters: "all", metadata: {} },
      { filters: [] },
      { filters: [], metadata: { k: { nested: 1 } } },
    ]) {
      const r = await api.fail("POST /logs/update-metadata", { body });
      expect(r.status).toBe(400);
      expect(r.body.message).toBe("Input validation failed");
    }
  });
});
