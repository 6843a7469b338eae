import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { expectAccessible } from "./a11y";
import { type Browser, closeAll, type Hone, launchBrowser, shot, signedInPage, startHone } from "./harness";

// Traces in the console: an agent's run sent as OTLP/JSON (the shape OpenTelemetry's JSON exporter
// sends) listed on the Traces page, opened as a waterfall (the agent's span, its model calls with
// their logs, the tool with its arguments and result), a model call's log opened from it and the
// trace opened back from the log's drawer; the sessions list and a session's traces.

let hone: Hone;
let browser: Browser;
let page: Page;

const TRACE = "0af7651916cd43dd8448eb211c80319c";
const SESSION = "support-chat-7";
const now = Date.now();
const ns = (ms: number) => String(BigInt(Math.round(ms)) * 1_000_000n);
const attr = (key: string, v: string | number) => ({ key, value: typeof v === "number" ? { intValue: v } : { stringValue: v } });

function span(id: string, parent: string | null, name: string, at: number, ms: number, attrs: [string, string | number][], traceId = TRACE) {
  return {
    traceId,
    spanId: id,
    ...(parent ? { parentSpanId: parent } : {}),
    name,
    kind: 1,
    startTimeUnixNano: ns(now + at),
    endTimeUnixNano: ns(now + at + ms),
    attributes: attrs.map(([k, v]) => attr(k, v)),
    status: { code: 1 },
  };
}

const AGENT = "b7ad6b7169203331";
const body = {
  resourceSpans: [
    {
      resource: { attributes: [attr("service.name", "support-bot")] },
      scopeSpans: [
        {
          scope: { name: "support-bot" },
          spans: [
            span(AGENT, null, "invoke_agent support", 0, 900, [
              ["gen_ai.operation.name", "invoke_agent"],
              ["session.id", SESSION],
            ]),
            span("00f067aa0ba902b7", AGENT, "chat gpt-4o-mini", 10, 300, [
              ["gen_ai.operation.name", "chat"],
              ["gen_ai.provider.name", "openai"],
              ["gen_ai.request.model", "gpt-4o-mini"],
              ["gen_ai.usage.input_tokens", 90],
              ["gen_ai.usage.output_tokens", 12],
              ["session.id", SESSION],
              ["gen_ai.input.messages", JSON.stringify([{ role: "user", parts: [{ type: "text", content: "Where is order 1234?" }] }])],
              [
                "gen_ai.output.messages",
                JSON.stringify([{ role: "assistant", parts: [{ type: "tool_call", id: "c1", name: "find_order", arguments: { id: 1234 } }] }]),
              ],
            ]),
            span("1f067aa0ba902b70", AGENT, "execute_tool find_order", 320, 200, [
              ["gen_ai.operation.name", "execute_tool"],
              ["gen_ai.tool.name", "find_order"],
              ["gen_ai.tool.call.arguments", '{"id":1234}'],
              ["gen_ai.tool.call.result", '{"status":"shipped"}'],
            ]),
            span("2f067aa0ba902b70", AGENT, "chat gpt-4o-mini", 530, 350, [
              ["gen_ai.operation.name", "chat"],
              ["gen_ai.provider.name", "openai"],
              ["gen_ai.request.model", "gpt-4o-mini"],
              ["gen_ai.usage.input_tokens", 140],
              ["gen_ai.usage.output_tokens", 20],
              ["session.id", SESSION],
              ["gen_ai.input.messages", JSON.stringify([{ role: "user", parts: [{ type: "text", content: "Where is order 1234?" }] }])],
              ["gen_ai.output.messages", JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: "Order 1234 has shipped." }] }])],
            ]),
          ],
        },
      ],
    },
  ],
};

/** An OpenAI Agents SDK run as OpenInference's trace processor sends it: span kinds, flattened messages, input.value / output.value. */
const OI_TRACE = "1bf7651916cd43dd8448eb211c80319d";
const OI_AGENT = "c7ad6b7169203331";
const oi = (id: string, parent: string | null, name: string, at: number, ms: number, attrs: [string, string | number][]) =>
  span(id, parent, name, at, ms, attrs, OI_TRACE);
const openInference = {
  resourceSpans: [
    {
      resource: { attributes: [attr("service.name", "weather-agent")] },
      scopeSpans: [
        {
          scope: { name: "@arizeai/openinference-instrumentation-openai-agents" },
          spans: [
            oi(OI_AGENT, null, "Forecaster", 0, 600, [["openinference.span.kind", "AGENT"]]),
            oi("30f067aa0ba902b7", OI_AGENT, "response", 10, 200, [
              ["openinference.span.kind", "LLM"],
              ["llm.model_name", "gpt-4.1-mini"],
              ["llm.provider", "openai"],
              ["llm.token_count.prompt", 13],
              ["llm.token_count.completion", 9],
              ["llm.input_messages.0.message.role", "user"],
              ["llm.input_messages.0.message.content", "Weather in Paris?"],
              ["llm.output_messages.0.message.role", "assistant"],
              ["llm.output_messages.0.message.tool_calls.0.tool_call.id", "call_1"],
              ["llm.output_messages.0.message.tool_calls.0.tool_call.function.name", "get_weather"],
              ["llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments", '{"q":"Paris"}'],
            ]),
            oi("40f067aa0ba902b7", OI_AGENT, "get_weather", 220, 100, [
              ["openinference.span.kind", "TOOL"],
              ["tool.name", "get_weather"],
              ["input.value", '{"q":"Paris"}'],
              ["output.value", "sunny, 21C"],
            ]),
          ],
        },
      ],
    },
  ],
};

beforeAll(async () => {
  [hone, browser] = await Promise.all([startHone({ seed: 0 }), launchBrowser()]);
  ({ page } = await signedInPage(browser, hone, { width: 1400, height: 900 }));
  const res = await fetch(`${hone.url}/api/v1/otel/v1/traces`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-hone-key": hone.project.apiKey },
    body: JSON.stringify(body),
  });
  if (res.status !== 200) throw new Error(`OTLP export answered ${res.status}: ${await res.text()}`);
  // The standard path at the root, as an exporter given only Hone's address posts.
  const oiRes = await fetch(`${hone.url}/v1/traces`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-hone-key": hone.project.apiKey },
    body: JSON.stringify(openInference),
  });
  if (oiRes.status !== 200) throw new Error(`OTLP export answered ${oiRes.status}: ${await oiRes.text()}`);
}, 120_000);
afterAll(() => closeAll(browser, hone));

describe("traces in the console", () => {
  test("listed, opened as a waterfall with the calls' logs and the tool's arguments and result; a log links back", async () => {
    await page.goto(`${hone.url}/traces`);
    const row = page.locator(`[data-trace-id="${TRACE}"]`);
    await row.waitFor();
    const cells = (await row.locator("td").allTextContents()).map((c) => c.trim());
    expect(cells.slice(1, 7)).toEqual(["invoke_agent support", "support-bot", SESSION, "4", "2", "0"]);
    await row.getByRole("link", { name: "invoke_agent support" }).click();
    const waterfall = page.getByTestId("waterfall");
    await waterfall.waitFor();
    expect(await waterfall.locator("[data-span-id]").evaluateAll((els) => els.map((e) => e.getAttribute("data-operation")))).toEqual([
      "invoke_agent",
      "chat",
      "execute_tool",
      "chat",
    ]);
    await waterfall.getByText('arguments: {"id":1234}').waitFor();
    await waterfall.getByText('result: {"status":"shipped"}').waitFor();
    await waterfall.getByText(/Order 1234 has shipped\./).waitFor();
    await shot(page, "trace-waterfall");
    await expectAccessible(page, "Trace", () => waterfall.waitFor());
    // A span's details: its attributes.
    await waterfall.getByRole("button", { name: /execute_tool find_order/ }).click();
    await waterfall.getByText('"gen_ai.tool.name": "find_order"').waitFor();
    // The second call's log, in the log drawer; from it, back to the trace.
    await waterfall.getByRole("link", { name: "Open the call's log" }).last().click();
    const link = page.getByTestId("log-trace");
    await link.waitFor();
    expect(await link.textContent()).toContain(SESSION);
    await shot(page, "log-in-trace");
    await link.getByRole("link", { name: TRACE }).click();
    await page.getByTestId("waterfall").waitFor();
    expect(page.url()).toContain(`/traces/${TRACE}`);
  });

  test("an OpenInference run: the agent and its tool named as the conventions name them, the tool's input and output inline, the call's log", async () => {
    await page.goto(`${hone.url}/traces/${OI_TRACE}`);
    const waterfall = page.getByTestId("waterfall");
    await waterfall.waitFor();
    expect(await waterfall.locator("[data-span-id]").evaluateAll((els) => els.map((e) => e.getAttribute("data-operation")))).toEqual([
      "invoke_agent",
      "chat",
      "execute_tool",
    ]);
    await waterfall.getByText('arguments: {"q":"Paris"}').waitFor();
    await waterfall.getByText("result: sunny, 21C").waitFor();
    await waterfall.getByText(/gpt-4\.1-mini · 13 in, 9 out/).waitFor();
    await page.getByText(/3 spans, 1 call, \$/).waitFor();
    await shot(page, "trace-openinference");
  });

  test("sessions: the session's traces and calls; a session opens its traces", async () => {
    await page.goto(`${hone.url}/traces?view=sessions`);
    const row = page.locator(`[data-session-id="${SESSION}"]`);
    await row.waitFor();
    expect((await row.locator("td").allTextContents()).slice(0, 4).map((c) => c.trim())).toEqual([SESSION, "1", "2", "0"]);
    await shot(page, "sessions");
    await expectAccessible(page, "Sessions", () => row.waitFor());
    await row.getByRole("link", { name: SESSION }).click();
    await page.locator(`[data-trace-id="${TRACE}"]`).waitFor();
    expect(page.url()).toContain(`session=${SESSION}`);
    // A trace that is not there says so.
    await page.goto(`${hone.url}/traces/ffffffffffffffffffffffffffffffff`);
    await page.getByText("The trace could not be loaded").waitFor();
  });
});
