import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { systemCtx } from "../../src/domain/context";
import { setProviderKey } from "../../src/domain/projects";
import { createTestApp, type TestApp } from "../helpers/app";
import { gqlData } from "../helpers/gql";
import { latestLog } from "../helpers/logs";

// Token counts that cannot be true are not priced and not summed: one report with prompt_tokens
// 1e300 made the project's usage total 1.25e295 USD for good. The report still answers 200 (the
// call happened); the log keeps the payload as sent, empty tokens and cost, and a warning.

let t: TestApp;
let upstream: ReturnType<typeof Bun.serve>;
let upstreamUsage: unknown = null;

beforeAll(async () => {
  // An upstream that claims whatever usage the test sets.
  upstream = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: () =>
      Response.json({
        id: "chatcmpl-u",
        object: "chat.completion",
        created: 1,
        model: "gpt-4o-mini",
        choices: [{ index: 0, message: { role: "assistant", content: "hi" }, finish_reason: "stop" }],
        usage: upstreamUsage,
      }),
  });
  t = await createTestApp({ env: { OPENAI_BASE_URL: `http://127.0.0.1:${upstream.port}/v1` } });
  await setProviderKey({ ...systemCtx(t.deps, "test"), projectId: t.project.projectId }, { provider: "openai", apiKey: "sk-test-upstream-0001" });
});
afterAll(async () => {
  await upstream.stop(true);
  await t.close();
});

const report = (usage: unknown, model = "gpt-4o-mini") =>
  t.request("POST", "/api/v1/report", {
    body: `{"requestedAt":${Date.now() - 500},"receivedAt":${Date.now()},"statusCode":200,"reqPayload":{"model":"${model}","messages":[{"role":"user","content":"q"}]},"respPayload":{"id":"c1","choices":[{"index":0,"message":{"role":"assistant","content":"a"},"finish_reason":"stop"}]${usage === undefined ? "" : `,"usage":${usage}`}}}`,
  });

async function totalCost(): Promise<number> {
  const from = new Date(Date.now() - 3_600_000).toISOString();
  const to = new Date(Date.now() + 3_600_000).toISOString();
  const d = await gqlData(t, `query($from: String!, $to: String!) { usage(from: $from, to: $to, bucket: "hour") { totals { costUsd inputTokens } } }`, {
    from,
    to,
  });
  return d.usage.totals.costUsd;
}

describe("impossible token counts", () => {
  test('1e300, -5, 1.5 and "7": 200, tokens and cost left empty with a warning, the payload kept as sent', async () => {
    const cases: [string, string][] = [
      [`{"prompt_tokens":1e300,"completion_tokens":5,"total_tokens":1e300}`, "1e+300"],
      [`{"prompt_tokens":-5,"completion_tokens":5,"total_tokens":0}`, "-5"],
      [`{"prompt_tokens":10,"completion_tokens":1.5,"total_tokens":11.5}`, "1.5"],
      [`{"prompt_tokens":"7","completion_tokens":5,"total_tokens":12}`, '"7"'],
      [`{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15,"prompt_tokens_details":{"cached_tokens":-1}}`, "-1"],
    ];
    for (const [usage, shown] of cases) {
      const r = await report(usage);
      expect(r.status).toBe(200);
      const log = await latestLog(t);
      expect({ usage, input: log.inputTokens, output: log.outputTokens, cost: log.costUsd }).toEqual({ usage, input: null, output: null, cost: null });
      expect(log.warning).toContain(`is ${shown}, not a token count`);
      // The payload keeps the value as it was sent (jsonb orders the keys its own way).
      expect((log.body.respPayload as { usage: unknown }).usage).toEqual(JSON.parse(usage));
    }
    // None of them reached the usage totals.
    expect(await totalCost()).toBe(0);
  });

  test("a missing usage leaves tokens and cost empty without a warning; a true one is priced and summed", async () => {
    expect((await report(undefined)).status).toBe(200);
    const none = await latestLog(t);
    expect([none.inputTokens, none.costUsd, none.warning]).toEqual([null, null, null]);
    expect((await report(`{"prompt_tokens":1000,"completion_tokens":100,"total_tokens":1100}`)).status).toBe(200);
    const fine = await latestLog(t);
    expect([fine.inputTokens, fine.outputTokens, fine.warning]).toEqual([1000, 100, null]);
    expect(fine.costUsd).toBeGreaterThan(0);
    expect(fine.costUsd).toBeLessThan(0.01);
    expect(await totalCost()).toBeCloseTo(fine.costUsd!, 10);
  });

  test("/report-anthropic: a string count is not read as a number", async () => {
    const r = await t.request("POST", "/api/v1/report-anthropic", {
      body: {
        requestedAt: Date.now() - 100,
        receivedAt: Date.now(),
        statusCode: 200,
        reqPayload: { model: "claude-3-5-haiku-20241022", max_tokens: 10, messages: [{ role: "user", content: "q" }] },
        respPayload: {
          id: "msg_1",
          type: "message",
          role: "assistant",
          model: "claude-3-5-haiku-20241022",
          content: [{ type: "text", text: "a" }],
          stop_reason: "end_turn",
          usage: { input_tokens: "7", output_tokens: 3 },
        },
      },
    });
    expect(r.status).toBe(200);
    const log = await latestLog(t);
    expect([log.inputTokens, log.outputTokens, log.costUsd]).toEqual([null, null, null]);
    expect(log.warning).toContain("not a token count");
    expect((log.body.respPayloadOriginal as { usage: { input_tokens: unknown } }).usage.input_tokens).toBe("7");
  });

  test("an upstream's answer is held to the same rule through the gateway", async () => {
    upstreamUsage = { prompt_tokens: 1e300, completion_tokens: -3, total_tokens: 1 };
    const r = await t.request("POST", "/api/v1/chat/completions", { body: { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] } });
    expect(r.status).toBe(200);
    // The client gets the answer as the upstream sent it.
    expect(((await r.json()) as { usage: { prompt_tokens: number } }).usage.prompt_tokens).toBe(1e300);
    const log = await latestLog(t);
    expect([log.inputTokens, log.outputTokens, log.costUsd]).toEqual([null, null, null]);
    expect(log.warning).toContain("usage.prompt_tokens is 1e+300");
    expect(await totalCost()).toBeLessThan(0.01);
    upstreamUsage = null;
  });
});
