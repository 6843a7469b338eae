import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { flushSpanExport } from "../../src/domain/calls";
import { decodeJson, decodeProtobuf, type OtlpSpan } from "../../src/lib/otlp/decode";
import { createTestApp, serve, storeProviderKey, type TestApp } from "../helpers/app";
import { startFakeOpenAI, type FakeUpstream } from "../helpers/fake-upstreams";
import { trpcClient } from "../helpers/trpc";

// Hone's own spans out (docs/traces.md): with OTEL_EXPORTER_OTLP_ENDPOINT set, each gateway call is
// a span sent by OpenTelemetry's SDK to the collector (a fake here that reads OTLP/HTTP as a
// collector does), with the GenAI attributes, parented to the caller's traceparent, its ids the
// log's; no messages unless the operator opts in; a collector that is away fails no call.

const OPENAI_KEY = "sk-otel-export-0001";
const LIMITS = { maxSpans: 10_000, maxAttributes: 512, maxEvents: 128, maxDepth: 8 };

let upstream: FakeUpstream;
let collector: ReturnType<typeof Bun.serve>;
const received: { headers: Headers; spans: OtlpSpan[] }[] = [];

beforeAll(() => {
  upstream = startFakeOpenAI({ apiKey: OPENAI_KEY });
  collector = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      if (new URL(req.url).pathname !== "/v1/traces") return new Response("no", { status: 404 });
      const bytes = new Uint8Array(await req.arrayBuffer());
      const json = req.headers.get("content-type")?.includes("json");
      const decoded = json ? decodeJson(JSON.parse(new TextDecoder().decode(bytes)), LIMITS) : decodeProtobuf(bytes, LIMITS);
      received.push({ headers: req.headers, spans: decoded.spans });
      return json ? Response.json({}) : new Response(new Uint8Array(0), { headers: { "content-type": "application/x-protobuf" } });
    },
  });
});
afterAll(async () => {
  collector.stop(true);
  await upstream.stop();
});

async function app(env: Record<string, string>): Promise<{ t: TestApp; server: { url: string; stop(): Promise<void> }; key: string }> {
  const t = await createTestApp({ env: { OPENAI_BASE_URL: upstream.url, ...env } });
  const server = serve(t.app);
  const p = await t.createProject("otel-export");
  await storeProviderKey(t, "openai", OPENAI_KEY, p.projectId);
  return { t, server, key: p.apiKey };
}

type Traced = { id: string; traceId: string; spanId: string; parentSpanId: string | null; model: string };

describe("Hone's spans out", () => {
  test("protobuf to the collector: a span per call with the GenAI attributes, the caller's trace its parent, the log's ids; no messages", async () => {
    const { t, server, key } = await app({
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${collector.port}`,
      OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer%20collector-token,x-tenant=acme",
      OTEL_SERVICE_NAME: "hone-gateway",
    });
    try {
      const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
      const parent = "00f067aa0ba902b7";
      const openai = new OpenAI({ apiKey: key, baseURL: `${server.url}/api/v1`, maxRetries: 0 });
      await openai.chat.completions.create(
        { model: "gpt-4o-mini", messages: [{ role: "user", content: "secret plans" }] },
        { headers: { traceparent: `00-${traceId}-${parent}-01` } },
      );
      await openai.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "no trace sent" }] });
      await flushSpanExport(t.deps.config);
      await t.deps.logWriter.flush();
      const spans = received.flatMap((r) => r.spans);
      expect(received[0]!.headers.get("authorization")).toBe("Bearer collector-token");
      expect(received[0]!.headers.get("x-tenant")).toBe("acme");
      expect(spans).toHaveLength(2);
      const logs = (await trpcClient(t, key).logs.list.query({ first: 5 })).logs as unknown as Traced[];
      const joined = spans.find((s) => s.traceId === traceId)!;
      expect(joined).toMatchObject({ parentSpanId: parent, name: "chat openai:gpt-4o-mini", kind: 3 });
      expect(joined.resource["service.name"]).toBe("hone-gateway");
      expect(joined.attributes).toMatchObject({
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "openai:gpt-4o-mini",
        "gen_ai.usage.input_tokens": 11,
        "gen_ai.usage.output_tokens": 7,
        "http.response.status_code": 200,
      });
      expect(JSON.stringify(joined)).not.toContain("secret plans");
      const log = logs.find((l) => l.traceId === traceId)!;
      expect(joined.attributes["hone.log_id"]).toBe(log.id);
      expect(log).toMatchObject({ spanId: joined.spanId, parentSpanId: parent });
      // A call without a trace starts one: the log has the exported span's ids.
      const alone = spans.find((s) => s.traceId !== traceId)!;
      expect(alone.parentSpanId).toBeNull();
      expect(logs.find((l) => l.id === alone.attributes["hone.log_id"])).toMatchObject({ traceId: alone.traceId, spanId: alone.spanId, parentSpanId: null });
    } finally {
      await server.stop();
      await t.close();
    }
  });

  test("JSON, with the messages when the operator opts in; a collector that is away fails no call", async () => {
    received.length = 0;
    const { t, server, key } = await app({
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `http://127.0.0.1:${collector.port}/v1/traces`,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      HONE_OTEL_CAPTURE_CONTENT: "true",
    });
    try {
      const openai = new OpenAI({ apiKey: key, baseURL: `${server.url}/api/v1`, maxRetries: 0 });
      await openai.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "open plans" }] });
      await flushSpanExport(t.deps.config);
      const [span] = received.flatMap((r) => r.spans);
      expect(received[0]!.headers.get("content-type")).toContain("application/json");
      expect(String(span!.attributes["gen_ai.input.messages"])).toContain("open plans");
      expect(String(span!.attributes["gen_ai.output.messages"])).toContain("echo: open plans");
    } finally {
      await server.stop();
      await t.close();
    }
    // The collector away: the call is answered and logged as ever.
    const away = await app({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9" });
    try {
      const openai = new OpenAI({ apiKey: away.key, baseURL: `${away.server.url}/api/v1`, maxRetries: 0 });
      const r = await openai.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] });
      expect(r.choices[0]!.message.content).toBe("echo: hi");
      await away.t.deps.logWriter.flush();
      const logs = (await trpcClient(away.t, away.key).logs.list.query({ first: 5 })).logs as unknown as Traced[];
      expect(logs).toHaveLength(1);
      expect(logs[0]!.spanId).toMatch(/^[0-9a-f]{16}$/);
    } finally {
      await away.server.stop();
      await away.t.close();
    }
  });

  test("a bad setting stops the start with a message naming it", async () => {
    await expect(createTestApp({ env: { OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" } })).rejects.toThrow("grpc is not supported");
  });
});
