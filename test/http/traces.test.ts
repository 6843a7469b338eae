import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { context, trace } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { TracerProvider } from "@opentelemetry/sdk-trace";
import { createTestApp, serve, storeProviderKey, type TestApp } from "../helpers/app";
import { startFakeAnthropic, startFakeOpenAI, type FakeUpstream } from "../helpers/fake-upstreams";
import { gqlData } from "../helpers/gql";
import { trpcClient } from "../helpers/trpc";

// Gateway calls join the caller's trace (docs/traces.md): the OpenTelemetry SDK's own W3C
// propagator writes `traceparent` for a span the application has open, and the official SDKs send
// it; each call's log carries the trace, a span of its own and the caller's span as its parent.
// `op-trace-id` and `op-session-id` name a trace and a session without OpenTelemetry; /report
// takes the same. A malformed header never fails a call: it is left out and the log says so.

const OPENAI_KEY = "sk-traces-upstream-0001";
const ANTHROPIC_KEY = "sk-ant-traces-0001";

let t: TestApp;
let server: { url: string; stop(): Promise<void> };
let openaiFake: FakeUpstream;
let anthropicFake: FakeUpstream;
let project: { projectId: string; apiKey: string };

beforeAll(async () => {
  openaiFake = startFakeOpenAI({ apiKey: OPENAI_KEY });
  anthropicFake = startFakeAnthropic({ apiKey: ANTHROPIC_KEY });
  t = await createTestApp({ env: { OPENAI_BASE_URL: openaiFake.url, ANTHROPIC_BASE_URL: anthropicFake.url } });
  server = serve(t.app);
  project = await t.createProject("traces");
  await storeProviderKey(t, "openai", OPENAI_KEY, project.projectId);
  await storeProviderKey(t, "anthropic", ANTHROPIC_KEY, project.projectId);
});
afterAll(async () => {
  await server.stop();
  await openaiFake.stop();
  await anthropicFake.stop();
  await t.close();
});

type Traced = { id: string; traceId: string | null; spanId: string | null; parentSpanId: string | null; sessionId: string | null; warning: string | null };
async function traced(filter: Record<string, unknown>): Promise<Traced[]> {
  await t.deps.logWriter.flush();
  const r = await gqlData(
    t,
    "query($f: LogFilterInput) { logs(first: 50, filter: $f) { edges { node { id traceId spanId parentSpanId sessionId warning } } } }",
    { f: filter },
    { key: project.apiKey },
  );
  return r.logs.edges.map((e: { node: Traced }) => e.node);
}

describe("traces", () => {
  test("an application's open span: the OTel propagator's traceparent puts every call (Chat, streamed, Messages, Responses) in its trace, each a child span", async () => {
    const tracer = new TracerProvider().getTracer("support-agent");
    const propagator = new W3CTraceContextPropagator();
    const span = tracer.startSpan("agent run");
    const headers: Record<string, string> = {};
    propagator.inject(trace.setSpan(context.active(), span), headers, { set: (carrier, key, value) => void (carrier[key] = value) });
    expect(headers.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    const { traceId, spanId } = span.spanContext();
    const defaultHeaders = { ...headers, "op-session-id": "conversation-42" };
    const openai = new OpenAI({ apiKey: project.apiKey, baseURL: `${server.url}/api/v1`, maxRetries: 0, defaultHeaders });
    const anthropic = new Anthropic({ apiKey: project.apiKey, baseURL: `${server.url}/api`, maxRetries: 0, defaultHeaders });
    await openai.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "step one" }] });
    for await (const _ of await openai.chat.completions.create({ model: "gpt-4o-mini", stream: true, messages: [{ role: "user", content: "step two" }] }));
    await anthropic.messages.create({ model: "claude-3-5-haiku-latest", max_tokens: 20, messages: [{ role: "user", content: "step three" }] });
    await openai.responses.create({ model: "gpt-4o-mini", input: "step four" });
    span.end();

    const logs = await traced({ traceId });
    expect(logs).toHaveLength(4);
    for (const l of logs) {
      expect(l.traceId).toBe(traceId);
      expect(l.parentSpanId).toBe(spanId);
      expect(l.spanId).toMatch(/^[0-9a-f]{16}$/);
      expect(l.spanId).not.toBe(spanId);
      expect(l.sessionId).toBe("conversation-42");
      expect(l.warning).toBeNull();
    }
    expect(new Set(logs.map((l) => l.spanId)).size).toBe(4);
    // The session filter finds them too; tRPC lists the same fields.
    expect((await traced({ sessionId: "conversation-42" })).map((l) => l.id).sort()).toEqual(logs.map((l) => l.id).sort());
    // The trace read whole: the application's span was not sent to Hone, so its four calls are roots, one span each.
    const whole = await gqlData(
      t,
      "query($id: ID!) { trace(id: $id) { sessionId spans { spanId parentSpanId logId operation } logs { id } } }",
      { id: traceId },
      { key: project.apiKey },
    );
    expect(whole.trace.sessionId).toBe("conversation-42");
    expect(whole.trace.spans).toHaveLength(4);
    for (const s of whole.trace.spans as { spanId: string; parentSpanId: string; logId: string; operation: string }[]) {
      expect(s.parentSpanId).toBe(spanId);
      expect(logs.find((l) => l.id === s.logId)?.spanId).toBe(s.spanId);
    }
    // Listed: a trace only the gateway saw has no spans of its own, four calls.
    const listedTraces = await trpcClient(t, project.apiKey).traces.list.query({ sessionId: "conversation-42" });
    expect(listedTraces.items).toHaveLength(1);
    expect(listedTraces.items[0]).toMatchObject({ id: traceId, spans: 0, logs: 4, errors: 0, sessionId: "conversation-42" });
    const listed = await trpcClient(t, project.apiKey).logs.list.query({ filter: { traceId }, first: 10 });
    expect(listed.logs.map((l) => (l as unknown as Traced).parentSpanId)).toEqual([spanId, spanId, spanId, spanId]);
  });

  test("op-trace-id names a trace without OpenTelemetry; /report takes trace fields or the header; malformed headers are left out, said, and fail nothing", async () => {
    const post = (headers: Record<string, string>) =>
      t.request("POST", "/api/v1/chat/completions", {
        key: project.apiKey,
        headers,
        body: { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] },
      });
    expect((await post({ "op-trace-id": "run_2026-12-03.a" })).status).toBe(200);
    const own = await traced({ traceId: "run_2026-12-03.a" });
    expect(own).toHaveLength(1);
    expect(own[0]!.parentSpanId).toBeNull();
    expect(own[0]!.spanId).toMatch(/^[0-9a-f]{16}$/);

    for (const [headers, said] of [
      [{ traceparent: "00-00000000000000000000000000000000-00f067aa0ba902b7-01" }, "traceparent"],
      [{ traceparent: "not a trace" }, "traceparent"],
      [{ "op-trace-id": "has spaces in it" }, "op-trace-id"],
      [{ "op-session-id": "x".repeat(200) }, "op-session-id"],
    ] as const) {
      const res = await post(headers);
      expect(res.status).toBe(200);
      await t.deps.logWriter.flush();
      const [last] = (await trpcClient(t, project.apiKey).logs.list.query({ first: 1 })).logs as unknown as Traced[];
      expect(last!.traceId).toBeNull();
      expect(last!.sessionId).toBeNull();
      expect(last!.warning).toContain(`left out of the trace: ${said}`);
    }

    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const report = await t.request("POST", "/api/v1/report", {
      key: project.apiKey,
      body: {
        requestedAt: Date.now() - 50,
        receivedAt: Date.now(),
        statusCode: 200,
        reqPayload: { model: "gpt-4o-mini", messages: [{ role: "user", content: "reported" }] },
        respPayload: { id: "r1", choices: [{ index: 0, message: { role: "assistant", content: "ok" } }] },
        traceId,
        spanId: "00f067aa0ba902b7",
        parentSpanId: "b7ad6b7169203331",
        sessionId: "s-1",
      },
    });
    expect(report.status).toBe(200);
    const viaHeader = await t.request("POST", "/api/v1/report", {
      key: project.apiKey,
      headers: { traceparent: `00-${traceId}-b7ad6b7169203331-01` },
      body: { reqPayload: { model: "gpt-4o-mini", messages: [] }, respPayload: { id: "r2", choices: [] } },
    });
    expect(viaHeader.status).toBe(200);
    const reported = await traced({ traceId });
    expect(reported).toHaveLength(2);
    expect(reported.find((l) => l.spanId === "00f067aa0ba902b7")).toMatchObject({ parentSpanId: "b7ad6b7169203331", sessionId: "s-1" });
    expect(reported.find((l) => l.spanId !== "00f067aa0ba902b7")).toMatchObject({ parentSpanId: "b7ad6b7169203331", sessionId: null });
    // A bad trace field in a report is a 400 naming it.
    const bad = await t.request("POST", "/api/v1/report", { key: project.apiKey, body: { reqPayload: {}, traceId: "no spaces please" } });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain("traceId");
    // Another project's key sees none of this trace.
    const other = await t.createProject("traces-other");
    const theirs = await gqlData(
      t,
      "query($f: LogFilterInput) { logs(first: 5, filter: $f) { edges { node { id } } } }",
      { f: { traceId } },
      { key: other.apiKey },
    );
    expect(theirs.logs.edges).toEqual([]);
  });
});
