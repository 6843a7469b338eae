import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { gzipSync } from "node:zlib";
import { context, type Span, SpanStatusCode, trace, type Tracer } from "@opentelemetry/api";
import { OTLPTraceExporter as JsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtoExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { sql } from "drizzle-orm";
import { resultRows } from "../../src/domain/logs";
import { createTestApp, serve, type TestApp, testConfig } from "../helpers/app";
import { gql, gqlData } from "../helpers/gql";
import { trpcClient } from "../helpers/trpc";

// The OTLP receiver (docs/traces.md) fed by OpenTelemetry's own exporters, unchanged: protobuf and
// JSON over HTTP, the project key in a header of the exporter's configuration. An agent's run
// (invoke_agent -> chat -> execute_tool -> chat) following the GenAI conventions becomes two logs
// with source "otel" (tokens, cost, tool calls in chat form, the trace and session) and four
// spans; sent again, nothing is stored twice. Bad bodies are 400s an exporter will not retry.

let t: TestApp;
let server: { url: string; stop(): Promise<void> };
let project: { projectId: string; apiKey: string };

beforeAll(async () => {
  t = await createTestApp({ env: { HONE_OTLP_MAX_SPANS: "50" } });
  server = serve(t.app);
  project = await t.createProject("otel");
});
afterAll(async () => {
  await server.stop();
  await t.close();
});

const TOOLS = JSON.stringify([
  { type: "function", name: "get_weather", description: "Weather in a city", parameters: { type: "object", properties: { city: { type: "string" } } } },
]);

/** An agent run as a GenAI-instrumented application makes it: an agent span around two model calls and a tool. */
function agentRun(tracer: Tracer, session: string): string {
  // Each step a few milliseconds after the last, as a real run's are.
  const base = Date.now();
  let step = 0;
  const at = () => base + 5 * step++;
  const agent = tracer.startSpan("invoke_agent weather-bot", {
    startTime: at(),
    attributes: { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "weather-bot", "session.id": session },
  });
  const inAgent = trace.setSpan(context.active(), agent);
  const chat = (attrs: Record<string, string | number | string[]>) => {
    const s: Span = tracer.startSpan(
      "chat gpt-4o-mini",
      { kind: 2, startTime: at(), attributes: { "gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai", "session.id": session, ...attrs } },
      inAgent,
    );
    s.end(at());
  };
  chat({
    "gen_ai.request.model": "gpt-4o-mini",
    "gen_ai.response.model": "gpt-4o-mini-2024-07-18",
    "gen_ai.response.id": "chatcmpl-otel-1",
    "gen_ai.usage.input_tokens": 120,
    "gen_ai.usage.output_tokens": 18,
    "gen_ai.response.finish_reasons": ["tool_calls"],
    "gen_ai.system_instructions": JSON.stringify([{ type: "text", content: "You answer about the weather." }]),
    "gen_ai.input.messages": JSON.stringify([{ role: "user", parts: [{ type: "text", content: "Weather in Paris?" }] }]),
    "gen_ai.output.messages": JSON.stringify([
      { role: "assistant", parts: [{ type: "tool_call", id: "call_1", name: "get_weather", arguments: { city: "Paris" } }], finish_reason: "tool_call" },
    ]),
    "gen_ai.tool.definitions": TOOLS,
  });
  const tool = tracer.startSpan(
    "execute_tool get_weather",
    { startTime: at(), attributes: { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather", "gen_ai.tool.call.id": "call_1" } },
    inAgent,
  );
  tool.end(at());
  chat({
    "gen_ai.request.model": "gpt-4o-mini",
    "gen_ai.usage.input_tokens": 160,
    "gen_ai.usage.output_tokens": 9,
    "gen_ai.input.messages": JSON.stringify([
      { role: "user", parts: [{ type: "text", content: "Weather in Paris?" }] },
      { role: "assistant", parts: [{ type: "tool_call", id: "call_1", name: "get_weather", arguments: { city: "Paris" } }] },
      { role: "tool", parts: [{ type: "tool_call_response", id: "call_1", response: "18°C, sunny" }] },
    ]),
    "gen_ai.output.messages": JSON.stringify([
      { role: "assistant", parts: [{ type: "text", content: "It is 18°C and sunny in Paris." }], finish_reason: "stop" },
    ]),
  });
  agent.setStatus({ code: SpanStatusCode.OK });
  agent.end(at());
  return agent.spanContext().traceId;
}

type OtelLog = {
  id: string;
  source: string;
  model: string;
  provider: string | null;
  inputTokens: number | null;
  outputTokens: number | null;
  costUsd: number | null;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  sessionId: string | null;
  tags: Record<string, string>;
};
async function otelLogs(traceId: string): Promise<OtelLog[]> {
  const r = await trpcClient(t, project.apiKey).logs.list.query({ filter: { traceId }, first: 50 });
  return r.logs as unknown as OtelLog[];
}
async function spanCount(traceId: string): Promise<number> {
  const r = await t.deps.database.db.execute(sql`select count(*)::int as n from trace_spans where project_id = ${project.projectId} and trace_id = ${traceId}`);
  return Number(resultRows<{ n: number }>(r)[0]?.n ?? 0);
}

describe("the OTLP receiver", () => {
  for (const [form, Exporter] of [
    ["protobuf", ProtoExporter],
    ["JSON", JsonExporter],
  ] as const) {
    test(`OpenTelemetry's ${form} exporter: an agent run becomes two otel logs (tokens, cost, tool calls, trace, session) and four spans; sent twice, stored once`, async () => {
      // JSON to the standard path at the root (HONE_OTLP_PREFIX unset), as an exporter given
      // OTEL_EXPORTER_OTLP_ENDPOINT=https://<hone> sends; protobuf to Hone's own path.
      const path = form === "JSON" ? "/v1/traces" : "/api/v1/otel/v1/traces";
      const exporter = new Exporter({ url: `${server.url}${path}`, headers: { "x-hone-key": project.apiKey } });
      const memory = new InMemorySpanExporter();
      const provider = new TracerProvider({
        resource: resourceFromAttributes({ "service.name": "weather-app", "deployment.environment.name": "staging" }),
        spanProcessors: [new SimpleSpanProcessor({ exporter }), new SimpleSpanProcessor({ exporter: memory })],
      });
      const session = `conv-${form}`;
      const traceId = agentRun(provider.getTracer("weather-bot"), session);
      await provider.forceFlush();
      const logs = await otelLogs(traceId);
      expect(logs).toHaveLength(2);
      for (const l of logs) {
        expect(l).toMatchObject({ source: "otel", model: "openai:gpt-4o-mini", provider: "openai", traceId, sessionId: session });
        expect(l.costUsd).toBeGreaterThan(0);
        expect(l.tags).toMatchObject({ service: "weather-app", environment: "staging", session });
      }
      const [second, first] = logs;
      expect(first!.inputTokens).toBe(120);
      expect(second!.outputTokens).toBe(9);
      // Both calls are children of the agent's span.
      const agentSpan = memory.getFinishedSpans().find((s) => s.name.startsWith("invoke_agent"))!;
      expect(new Set(logs.map((l) => l.parentSpanId))).toEqual(new Set([agentSpan.spanContext().spanId]));
      // The first call in chat form: system, user; its answer a tool call; the tools.
      const body = await trpcClient(t, project.apiKey).logs.get.query({ id: first!.id });
      const b = body as unknown as {
        reqPayload: { messages: unknown[]; tools: unknown[] };
        respPayload: { choices: { message: unknown; finish_reason: string }[] };
      };
      expect(b.reqPayload.messages).toEqual([
        { role: "system", content: "You answer about the weather." },
        { role: "user", content: "Weather in Paris?" },
      ]);
      expect(b.reqPayload.tools).toEqual([
        {
          type: "function",
          function: { name: "get_weather", description: "Weather in a city", parameters: { type: "object", properties: { city: { type: "string" } } } },
        },
      ]);
      expect(b.respPayload.choices[0]).toMatchObject({
        message: {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }],
        },
        finish_reason: "tool_calls",
      });
      const secondBody = (await trpcClient(t, project.apiKey).logs.get.query({ id: second!.id })) as unknown as { reqPayload: { messages: unknown[] } };
      expect(secondBody.reqPayload.messages.at(-1)).toEqual({ role: "tool", tool_call_id: "call_1", content: "18°C, sunny" });
      expect(await spanCount(traceId)).toBe(4);

      // The same spans exported again (an exporter's retry): nothing more is stored.
      await new Promise<void>((resolve, reject) => exporter.export(memory.getFinishedSpans(), (r) => (r.code === 0 ? resolve() : reject(r.error))));
      expect(await otelLogs(traceId)).toHaveLength(2);
      expect(await spanCount(traceId)).toBe(4);
      // The trace read whole: the agent's span the root, the two calls (with their logs) and the tool its children.
      const tr = await gqlData(
        t,
        "query($id: ID!) { trace(id: $id) { id sessionId costUsd inputTokens outputTokens truncated spans { spanId parentSpanId name operation status logId service } logs { id } } }",
        { id: traceId },
        { key: project.apiKey },
      );
      const got = tr.trace as {
        sessionId: string;
        inputTokens: number;
        spans: { spanId: string; parentSpanId: string | null; operation: string; status: string; logId: string | null; service: string }[];
        logs: { id: string }[];
      };
      expect(got).toMatchObject({ id: traceId, sessionId: session, inputTokens: 280, outputTokens: 27, truncated: false });
      expect(got.spans.map((x) => x.operation)).toEqual(["invoke_agent", "chat", "execute_tool", "chat"]);
      const root = got.spans[0]!;
      expect(root).toMatchObject({ parentSpanId: null, status: "ok", logId: null, service: "weather-app" });
      expect(got.spans.slice(1).every((x) => x.parentSpanId === root.spanId)).toBe(true);
      expect(new Set(got.spans.map((x) => x.logId).filter(Boolean))).toEqual(new Set(logs.map((l) => l.id)));
      expect(got.logs).toHaveLength(2);
      const viaTrpc = await trpcClient(t, project.apiKey).traces.get.query({ id: traceId });
      expect(viaTrpc.spans.map((x) => x.spanId)).toEqual(got.spans.map((x) => x.spanId));
      // Another project's key: no such trace.
      const other = await t.createProject(`otel-peek-${form}`);
      const peek = await gql(t, "query($id: ID!) { trace(id: $id) { id } }", { id: traceId }, { key: other.apiKey });
      expect(JSON.stringify(peek.errors)).toContain("not found");
      // The log filter by source finds them; GraphQL has the trace fields.
      const g = await gqlData(t, `{ logs(first: 5, filter: { source: "otel" }) { edges { node { source traceId } } } }`, {}, { key: project.apiKey });
      expect(g.logs.edges.length).toBeGreaterThanOrEqual(2);
      await provider.shutdown();
    });
  }

  test("traces and sessions listed: each trace summed from its spans and calls; filters, pages, bad cursors", async () => {
    const page = await gqlData(
      t,
      `{ traces(sessionId: "conv-protobuf") { items { id sessionId name service spans logs errors costUsd inputTokens outputTokens durationMs } hasNextPage } }`,
      {},
      { key: project.apiKey },
    );
    expect(page.traces.items).toHaveLength(1);
    expect(page.traces.items[0]).toMatchObject({
      sessionId: "conv-protobuf",
      name: "invoke_agent weather-bot",
      service: "weather-app",
      spans: 4,
      logs: 2,
      errors: 0,
      inputTokens: 280,
      outputTokens: 27,
    });
    expect(page.traces.items[0].costUsd).toBeGreaterThan(0);
    expect(page.traces.items[0].durationMs).toBeGreaterThanOrEqual(30);
    // Pages of one: every trace once, newest first.
    const seen: string[] = [];
    let after: string | null = null;
    for (let i = 0; i < 10; i++) {
      const p: { items: { id: string }[]; endCursor: string | null; hasNextPage: boolean } = await trpcClient(t, project.apiKey).traces.list.query({
        first: 1,
        after,
      });
      seen.push(...p.items.map((x) => x.id));
      if (!p.hasNextPage) break;
      after = p.endCursor;
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toHaveLength(2);
    expect((await trpcClient(t, project.apiKey).traces.list.query({ service: "weather-app" })).items).toHaveLength(2);
    expect((await trpcClient(t, project.apiKey).traces.list.query({ service: "nobody" })).items).toHaveLength(0);
    expect((await trpcClient(t, project.apiKey).traces.list.query({ hasError: true })).items).toHaveLength(0);
    const sessions = await trpcClient(t, project.apiKey).traces.sessions.query({});
    const conv = sessions.items.filter((x) => x.id.startsWith("conv-"));
    expect(conv.map((x) => x.id).sort()).toEqual(["conv-JSON", "conv-protobuf"]);
    for (const x of conv) expect(x).toMatchObject({ traces: 1, logs: 2, errors: 0, inputTokens: 280 });
    for (const [args, word] of [
      [`after: "nonsense"`, "after is not a cursor of this list"],
      [`from: "2020-01-01T00:00:00Z", to: "2020-06-01T00:00:00Z"`, "at most 31 days"],
      [`first: 0`, "first must be at least 1"],
    ] as const) {
      const r = await gql(t, `{ traces(${args}) { hasNextPage } }`, {}, { key: project.apiKey });
      expect(JSON.stringify(r.errors)).toContain(word);
    }
    // Another project sees none of them.
    const other = await t.createProject("otel-lists-other");
    expect((await trpcClient(t, other.apiKey).traces.list.query({})).items).toEqual([]);
    expect((await trpcClient(t, other.apiKey).traces.sessions.query({})).items).toEqual([]);
  });

  test("masking applies to ingested calls: mask_stored keeps the value out of what is stored; block rejects the span, counted", async () => {
    const url = `${server.url}/api/v1/otel/v1/traces`;
    const EMAIL = "otel.planted@example.com";
    const exportOf = (traceId: string) =>
      JSON.stringify({
        resourceSpans: [
          {
            resource: { attributes: [] },
            scopeSpans: [
              {
                scope: { name: "t" },
                spans: [
                  {
                    traceId,
                    spanId: "b1b2c3d4e5f60718",
                    name: "execute_tool send_mail",
                    attributes: [
                      { key: "gen_ai.operation.name", value: { stringValue: "execute_tool" } },
                      { key: "gen_ai.tool.call.arguments", value: { stringValue: JSON.stringify({ to: EMAIL }) } },
                    ],
                  },
                  {
                    traceId,
                    spanId: "a1b2c3d4e5f60718",
                    name: "chat gpt-4o-mini",
                    startTimeUnixNano: String(Date.now() * 1e6),
                    endTimeUnixNano: String((Date.now() + 20) * 1e6),
                    attributes: [
                      { key: "gen_ai.request.model", value: { stringValue: "gpt-4o-mini" } },
                      { key: "gen_ai.provider.name", value: { stringValue: "openai" } },
                      {
                        key: "gen_ai.input.messages",
                        value: { stringValue: JSON.stringify([{ role: "user", parts: [{ type: "text", content: `mail ${EMAIL}` }] }]) },
                      },
                    ],
                  },
                ],
              },
            ],
          },
        ],
      });
    for (const [mode, traceId] of [
      ["mask_stored", "6b8efff798038103d269b633813fc60c"],
      ["block", "7b8efff798038103d269b633813fc60c"],
    ] as const) {
      const p = await t.createProject(`otel-${mode}`);
      await gqlData(t, "mutation($m: String!) { setMaskingRule(mode: $m) { id } }", { m: mode }, { key: p.apiKey });
      const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json", "x-hone-key": p.apiKey }, body: exportOf(traceId) });
      expect(res.status).toBe(200);
      const answer = (await res.json()) as { partialSuccess?: { rejectedSpans: number; errorMessage: string } };
      const stored = JSON.stringify(
        resultRows(
          await t.deps.database.db.execute(
            sql`select l.*, b.* from request_logs l left join request_log_bodies b on b.log_id = l.id where l.project_id = ${p.projectId}`,
          ),
        ),
      );
      const spans = JSON.stringify(resultRows(await t.deps.database.db.execute(sql`select * from trace_spans where project_id = ${p.projectId}`)));
      expect(spans).not.toContain(EMAIL);
      expect(spans).toContain("<EMAIL_1>");
      expect(stored).not.toContain(EMAIL);
      if (mode === "mask_stored") {
        expect(answer.partialSuccess).toBeUndefined();
        expect(stored).toContain("mail <EMAIL_1>");
      } else {
        expect(answer.partialSuccess).toEqual({ rejectedSpans: 1, errorMessage: "a model call holding sensitive data the project's masking rule blocks" });
        expect(stored).toBe("[]");
      }
    }
  });

  test("bounds and bad bodies: 400s naming the problem, a key in x-api-key, gzip, spans past the cap rejected and counted", async () => {
    const url = `${server.url}/api/v1/otel/v1/traces`;
    const span = (i: number) => ({
      traceId: "5b8efff798038103d269b633813fc60c",
      spanId: (i + 1).toString(16).padStart(16, "0"),
      name: `step ${i}`,
      startTimeUnixNano: String(Date.now() * 1e6),
      endTimeUnixNano: String((Date.now() + 5) * 1e6),
    });
    const body = (n: number) =>
      JSON.stringify({
        resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: "t" }, spans: Array.from({ length: n }, (_, i) => span(i)) }] }],
      });
    // gzip JSON, the key in x-api-key; 60 spans against a cap of 50: 10 rejected, said.
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", "content-encoding": "gzip", "x-api-key": project.apiKey },
      body: gzipSync(body(60)),
    });
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { partialSuccess: { rejectedSpans: number; errorMessage: string } };
    expect(answer.partialSuccess.rejectedSpans).toBe(10);
    expect(answer.partialSuccess.errorMessage).toContain("HONE_OTLP_MAX_SPANS");
    expect(await spanCount("5b8efff798038103d269b633813fc60c")).toBe(50);
    for (const [headers, payload, word] of [
      [{ "content-type": "text/plain" }, body(1), "content-type text/plain is not OTLP/HTTP"],
      [{ "content-type": "application/json" }, "{not json", "malformed JSON"],
      [{ "content-type": "application/x-protobuf" }, "\xff\xff\xff\xff", "not an OTLP trace export"],
      [{ "content-type": "application/json", "content-encoding": "gzip" }, body(1), "not gzip"],
      [{ "content-type": "application/json", "content-encoding": "br" }, body(1), "content-encoding br is not supported"],
      [{ "content-type": "application/json" }, JSON.stringify({ resourceSpans: 5 }), "resourceSpans must be a list"],
    ] as const) {
      const r = await fetch(url, { method: "POST", headers: { ...headers, authorization: `Bearer ${project.apiKey}` }, body: payload });
      expect(r.status).toBe(400);
      expect(await r.text()).toContain(word);
    }
    // Text Postgres cannot hold (NUL, a lone surrogate) in names, attributes and messages: stored replaced, nothing refused.
    const odd =
      '{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"svc\\ud800"}}]},"scopeSpans":[{"scope":{"name":"s"},"spans":[' +
      '{"traceId":"9b8efff798038103d269b633813fc60c","spanId":"00000000000000f1","name":"step\\udc00\\u0000","attributes":[{"key":"k\\ud800","value":{"stringValue":"v\\u0000\\ud800"}},' +
      '{"key":"gen_ai.operation.name","value":{"stringValue":"chat\\ud800"}},{"key":"gen_ai.request.model","value":{"stringValue":"gpt-4o-mini\\ud800"}},' +
      '{"key":"gen_ai.input.messages","value":{"stringValue":"[{\\"role\\":\\"user\\",\\"content\\":\\"hi\\\\ud800\\\\u0000\\"}]"}}]}]}]}]}';
    const oddRes = await fetch(url, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${project.apiKey}` }, body: odd });
    expect(oddRes.status).toBe(200);
    expect(await spanCount("9b8efff798038103d269b633813fc60c")).toBe(1);
    // No key, a wrong key: 401. A read-only key may not send.
    expect((await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: body(1) })).status).toBe(401);
    expect((await fetch(url, { method: "POST", headers: { "content-type": "application/json", "x-hone-key": "nope" }, body: body(1) })).status).toBe(401);
    const reader = (await trpcClient(t, project.apiKey).apiKeys.create.mutate({ name: "reader", scopes: ["read"] })) as { apiKey: string };
    expect((await fetch(url, { method: "POST", headers: { "content-type": "application/json", "x-hone-key": reader.apiKey }, body: body(1) })).status).toBe(
      403,
    );
    // Another project's spans are its own: the same trace id there is another trace.
    const other = await t.createProject("otel-other");
    const theirs = await fetch(url, { method: "POST", headers: { "content-type": "application/json", "x-hone-key": other.apiKey }, body: body(3) });
    expect(theirs.status).toBe(200);
    expect(await spanCount("5b8efff798038103d269b633813fc60c")).toBe(50);
  });

  test("HONE_OTLP_PREFIX moves the standard path, or turns it off; a prefix under Hone's own paths is refused at start", async () => {
    const body = JSON.stringify({ resourceSpans: [] });
    const post = (app: TestApp, path: string) =>
      app.app.handle(
        new Request(`http://hone.test${path}`, { method: "POST", headers: { "content-type": "application/json", "x-hone-key": project.apiKey }, body }),
      );
    const prefixed = await createTestApp({ env: { HONE_OTLP_PREFIX: "/otlp" }, deps: { database: t.deps.database } });
    const off = await createTestApp({ env: { HONE_OTLP_PREFIX: "off" }, deps: { database: t.deps.database } });
    try {
      expect((await post(prefixed, "/otlp/v1/traces")).status).toBe(200);
      expect((await post(prefixed, "/v1/traces")).status).toBe(404);
      expect((await post(off, "/v1/traces")).status).toBe(404);
      expect((await post(off, "/api/v1/otel/v1/traces")).status).toBe(200);
    } finally {
      await prefixed.close();
      await off.close();
    }
    for (const bad of ["/api/otlp", "otlp", "/otlp/", "/graphql"]) {
      let err = "started";
      try {
        testConfig({ HONE_OTLP_PREFIX: bad });
      } catch (e) {
        err = (e as Error).message;
      }
      expect({ bad, err }).toEqual({ bad, err: expect.stringContaining("HONE_OTLP_PREFIX") });
    }
  });

  test("two calls of a run within one millisecond: the one that started later is the run's last call, whatever order they came in", async () => {
    const at = BigInt(Date.now()) * 1_000_000n + 100_000n;
    const call = (traceId: string, spanId: string, startNs: bigint, question: string) => ({
      traceId,
      spanId,
      name: "chat gpt-4o-mini",
      startTimeUnixNano: String(startNs),
      endTimeUnixNano: String(startNs + 100_000n),
      attributes: [
        { key: "gen_ai.operation.name", value: { stringValue: "chat" } },
        { key: "gen_ai.request.model", value: { stringValue: "gpt-4o-mini" } },
        { key: "gen_ai.input.messages", value: { stringValue: JSON.stringify([{ role: "user", parts: [{ type: "text", content: question }] }]) } },
      ],
    });
    // Eight runs (their ids otherwise sort by a digest: all eight right by chance is 1 in 256). In
    // each, the later call (0.5 ms after the first, in the same millisecond) comes first.
    const traces = Array.from({ length: 8 }, (_, i) => `7a1b2c3d4e5f60718293a4b5c6d7e8f${i}`);
    const spans = traces.flatMap((traceId, i) => [
      call(traceId, `00000000000000b${i}`, at + 500_000n, "second"),
      call(traceId, `00000000000000a${i}`, at, "first"),
    ]);
    const res = await fetch(`${server.url}/v1/traces`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-hone-key": project.apiKey },
      body: JSON.stringify({ resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: "t" }, spans }] }] }),
    });
    expect(res.status).toBe(200);
    const trpc = trpcClient(t, project.apiKey);
    for (const [i, traceId] of traces.entries()) {
      const last = (await trpc.logs.list.query({ filter: { traceId, lastInTrace: true }, first: 5 })).logs as unknown as OtelLog[];
      expect(last.map((l) => l.spanId)).toEqual([`00000000000000b${i}`]);
    }
  });

  test("a session named only on the application's own span: its calls join it, whether that span comes before or after them", async () => {
    const traceId = "8c1b2c3d4e5f60718293a4b5c6d7e8f0";
    const root = "00000000000000c1";
    const at = BigInt(Date.now()) * 1_000_000n;
    const chat = (spanId: string, offsetMs: number) => ({
      traceId,
      spanId,
      parentSpanId: root,
      name: "chat gpt-4o-mini",
      startTimeUnixNano: String(at + BigInt(offsetMs) * 1_000_000n),
      endTimeUnixNano: String(at + BigInt(offsetMs + 5) * 1_000_000n),
      attributes: [
        { key: "gen_ai.operation.name", value: { stringValue: "chat" } },
        { key: "gen_ai.request.model", value: { stringValue: "gpt-4o-mini" } },
      ],
    });
    const send = (spans: object[]) =>
      fetch(`${server.url}/v1/traces`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-hone-key": project.apiKey },
        body: JSON.stringify({ resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: "t" }, spans }] }] }),
      });
    // A batch exporter sends the calls first (they end first), the application's span after them.
    expect((await send([chat("00000000000000c2", 1)])).status).toBe(200);
    expect((await otelLogs(traceId)).map((l) => l.sessionId)).toEqual([null]);
    const appSpan = {
      traceId,
      spanId: root,
      name: "answer",
      startTimeUnixNano: String(at),
      endTimeUnixNano: String(at + 50_000_000n),
      attributes: [{ key: "session.id", value: { stringValue: "conv-late" } }],
    };
    expect((await send([appSpan])).status).toBe(200);
    expect((await otelLogs(traceId)).map((l) => l.sessionId)).toEqual(["conv-late"]);
    // A call of the same trace sent later still: its session from the span stored before.
    expect((await send([chat("00000000000000c3", 20)])).status).toBe(200);
    expect((await otelLogs(traceId)).map((l) => l.sessionId)).toEqual(["conv-late", "conv-late"]);
    const byFilter = (await trpcClient(t, project.apiKey).logs.list.query({ filter: { sessionId: "conv-late" }, first: 10 })).logs;
    expect(byFilter).toHaveLength(2);
  });
});
