import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createOpenAI } from "@ai-sdk/openai";
import { OpenTelemetry } from "@ai-sdk/otel";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { generateText, stepCountIs, tool } from "ai";
import { z } from "zod";
import type { TestApp } from "../helpers/app";
import type { FakeUpstream } from "../helpers/fake-upstreams";
import { type OtelClientWorld, startOtelClientWorld, trainOnLastCalls } from "../helpers/otel-clients";
import { gqlData } from "../helpers/gql";
import { trpcClient } from "../helpers/trpc";

// A real instrumented application, unchanged: the Vercel AI SDK (generateText with a tool loop)
// with its OpenTelemetry integration, exporting through OpenTelemetry's own protobuf exporter to
// Hone's receiver, while the model itself is a fake OpenAI upstream. Its model calls become otel
// logs in one trace (tokens, cost, tool calls and results in chat form); the run's last call makes
// a dataset entry with the whole tool loop; the dataset trains in the fake trainer.

const OPENAI_KEY = "sk-otel-clients-0001";
let w: OtelClientWorld;
let t: TestApp;
let server: { url: string; stop(): Promise<void> };
let upstream: FakeUpstream;
let project: { projectId: string; apiKey: string };

beforeAll(async () => {
  w = await startOtelClientWorld("otel-clients", OPENAI_KEY);
  ({ t, server, upstream, project } = w);
});
afterAll(() => w.stop());

type Log = {
  id: string;
  source: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  traceId: string;
  sessionId: string | null;
  tags: Record<string, string>;
};

describe("the Vercel AI SDK's OpenTelemetry integration", () => {
  test("a tool loop: its model calls become otel logs in one trace; its last call a dataset entry with the loop; the dataset trains", async () => {
    const memory = new InMemorySpanExporter();
    const provider = new TracerProvider({
      resource: resourceFromAttributes({ "service.name": "order-assistant" }),
      spanProcessors: [
        // Batched, as applications export in production (span by span, a slow database lets more
        // than the exporter's 30 concurrent exports pile up, and it drops the rest itself).
        new BatchSpanProcessor({
          exporter: new OTLPTraceExporter({ url: `${server.url}/api/v1/otel/v1/traces`, headers: { "x-hone-key": project.apiKey } }),
          scheduledDelayMillis: 50,
        }),
        new SimpleSpanProcessor({ exporter: memory }),
      ],
    });
    const openai = createOpenAI({ apiKey: OPENAI_KEY, baseURL: upstream.url });
    const result = await generateText({
      model: openai.chat("gpt-4o-mini"),
      system: "You look orders up.",
      prompt: "Where is order 77?",
      tools: {
        lookup: tool({ description: "Find an order", inputSchema: z.object({ q: z.string() }), execute: async ({ q }) => `order found for: ${q}` }),
      },
      stopWhen: stepCountIs(2),
      experimental_telemetry: { isEnabled: true, functionId: "order-lookup", integrations: [new OpenTelemetry({ tracer: provider.getTracer("ai") })] },
    });
    expect(result.steps).toHaveLength(2);
    await provider.forceFlush();
    const spans = memory.getFinishedSpans();
    const traceIds = new Set(spans.map((s) => s.spanContext().traceId));
    expect(traceIds.size).toBe(1);
    const traceId = [...traceIds][0]!;

    const logs = (await trpcClient(t, project.apiKey).logs.list.query({ filter: { traceId }, first: 20 })).logs as unknown as Log[];
    // One log per model call (the fake answered each with a tool call), none for the SDK's outer spans or the tool.
    expect(logs).toHaveLength(2);
    for (const l of logs) {
      expect(l).toMatchObject({ source: "otel", model: "openai:gpt-4o-mini", traceId });
      expect(l.inputTokens).toBe(11);
      expect(l.outputTokens).toBe(7);
      expect(l.costUsd).toBeGreaterThan(0);
      expect(l.tags.service).toBe("order-assistant");
    }
    const trace = await gqlData(t, "query($id: ID!) { trace(id: $id) { spans { operation logId } logs { id } } }", { id: traceId }, { key: project.apiKey });
    expect(trace.trace.spans.length).toBe(spans.length);
    expect(trace.trace.spans.filter((s: { logId: string | null }) => s.logId)).toHaveLength(2);

    // The run's last call holds the whole loop: the question, the first tool call and its result.
    const last = (await trpcClient(t, project.apiKey).logs.list.query({ filter: { traceId, lastInTrace: true }, first: 5 })).logs as unknown as Log[];
    expect(last).toHaveLength(1);
    const body = (await trpcClient(t, project.apiKey).logs.get.query({ id: last[0]!.id })) as unknown as {
      reqPayload: { messages: { role: string; content: unknown; tool_calls?: unknown[]; tool_call_id?: string }[]; tools?: unknown[] };
    };
    const roles = body.reqPayload.messages.map((m) => m.role);
    expect(roles).toEqual(["system", "user", "assistant", "tool"]);
    expect(body.reqPayload.messages[2]!.tool_calls).toHaveLength(1);
    expect(body.reqPayload.messages[3]!.content).toBe("order found for: Where is order 77?");
    expect(body.reqPayload.tools).toHaveLength(1);

    // A dataset from the runs' last calls (the same import path as logs), trained in the fake trainer.
    for (let i = 0; i < 9; i++) {
      await generateText({
        model: openai.chat("gpt-4o-mini"),
        prompt: `Where is order ${100 + i}?`,
        tools: { lookup: tool({ description: "Find an order", inputSchema: z.object({ q: z.string() }), execute: async ({ q }) => `found ${q}` }) },
        stopWhen: stepCountIs(2),
        experimental_telemetry: { isEnabled: true, integrations: [new OpenTelemetry({ tracer: provider.getTracer("ai") })] },
      });
    }
    await provider.forceFlush();
    const lines = (await trainOnLastCalls(w, { slug: "from-traces", runs: 10, calls: 20 })) as { messages: { role: string; tool_calls?: unknown[] }[] }[];
    expect(lines.length).toBeGreaterThanOrEqual(5);
    for (const l of lines) expect(l.messages.some((m) => m.role === "tool")).toBe(true);
    await provider.shutdown();
  });
});
