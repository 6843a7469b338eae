import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { OpenAIAgentsInstrumentation } from "@arizeai/openinference-instrumentation-openai-agents";
import * as agents from "@openai/agents";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import OpenAI from "openai";
import { z } from "zod";
import type { TestApp } from "../helpers/app";
import { type OtelClientWorld, startOtelClientWorld, trainOnLastCalls } from "../helpers/otel-clients";
import { gqlData } from "../helpers/gql";
import { trpcClient } from "../helpers/trpc";

// A real agent, unchanged: the OpenAI Agents SDK for TypeScript (an agent with a function tool, on
// the Responses API of a fake OpenAI upstream), traced by its OpenTelemetry trace processor from
// OpenInference (Arize), exported by OpenTelemetry's own JSON exporter to Hone's receiver. The
// run's two model calls become otel logs in one trace, with the instructions, the tool call and its
// result in chat form; the tool's execution and the agent's steps are the trace's structure; the
// runs' last calls make a dataset that trains in the fake trainer.

const OPENAI_KEY = "sk-otel-agents-0001";
let w: OtelClientWorld;
let t: TestApp;
let project: { projectId: string; apiKey: string };
let provider: TracerProvider;
let memory: InMemorySpanExporter;

beforeAll(async () => {
  w = await startOtelClientWorld("otel-agents", OPENAI_KEY);
  ({ t, project } = w);
  memory = new InMemorySpanExporter();
  provider = new TracerProvider({
    resource: resourceFromAttributes({ "service.name": "weather-agent", "deployment.environment.name": "staging" }),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: new OTLPTraceExporter({ url: w.receiver, headers: { authorization: `Bearer ${project.apiKey}` } }),
        scheduledDelayMillis: 50,
      }),
      new SimpleSpanProcessor({ exporter: memory }),
    ],
  });
  // The processor replaces the SDK's own (which would export to OpenAI's tracing API).
  new OpenAIAgentsInstrumentation({ tracerProvider: provider }).manuallyInstrument(agents);
  // The SDK turns its tracing off when NODE_ENV is "test" (as under bun test); an application has it on.
  agents.setTracingDisabled(false);
  agents.setDefaultOpenAIClient(new OpenAI({ apiKey: OPENAI_KEY, baseURL: w.upstream.url }));
});
afterAll(async () => {
  await provider.shutdown();
  await w.stop();
});

type Log = {
  id: string;
  source: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  traceId: string;
  tags: Record<string, string>;
};

const weather = agents.tool({
  name: "get_weather",
  description: "The weather of a city",
  parameters: z.object({ q: z.string() }),
  execute: async ({ q }) => `sunny, 21C (${q})`,
});
const forecaster = new agents.Agent({ name: "Forecaster", instructions: "You answer questions about the weather.", model: "gpt-4.1-mini", tools: [weather] });

describe("the OpenAI Agents SDK with OpenInference's OpenTelemetry trace processor", () => {
  test("an agent run: its model calls become otel logs in one trace; its last call holds the loop; the runs' dataset trains", async () => {
    const result = await agents.run(forecaster, "Weather in Paris?");
    expect(result.finalOutput).toBe("echo: Weather in Paris?");
    await provider.forceFlush();
    const spans = memory.getFinishedSpans();
    const traceIds = new Set(spans.map((s) => s.spanContext().traceId));
    expect(traceIds.size).toBe(1);
    const traceId = [...traceIds][0]!;

    const trpc = trpcClient(t, project.apiKey);
    const logs = (await trpc.logs.list.query({ filter: { traceId }, first: 20 })).logs as unknown as Log[];
    // One log per Responses call (the first answered with the function call, the second with text);
    // none for the agent, its turns or the tool.
    expect(logs).toHaveLength(2);
    for (const l of logs) {
      expect(l).toMatchObject({ source: "otel", model: "openai:gpt-4.1-mini", traceId, inputTokens: 13, outputTokens: 9 });
      expect(l.costUsd).toBeGreaterThan(0);
      expect(l.tags.service).toBe("weather-agent");
    }
    const trace = await gqlData(
      t,
      "query($id: ID!) { trace(id: $id) { spans { name operation logId attributes } } }",
      { id: traceId },
      { key: project.apiKey },
    );
    const stored = trace.trace.spans as { name: string; operation: string | null; logId: string | null; attributes: Record<string, unknown> }[];
    expect(stored).toHaveLength(spans.length);
    expect(stored.filter((s) => s.logId)).toHaveLength(2);
    // The agent and the tool are structure, named as the GenAI conventions name them; the tool's
    // arguments and result stay on its span for the trace view.
    expect(stored.find((s) => s.name === "Forecaster")?.operation).toBe("invoke_agent");
    const toolSpan = stored.find((s) => s.name === "get_weather")!;
    expect(toolSpan).toMatchObject({ operation: "execute_tool", logId: null });
    expect(toolSpan.attributes["output.value"]).toBe("sunny, 21C (Weather in Paris?)");

    const last = (await trpc.logs.list.query({ filter: { traceId, lastInTrace: true }, first: 5 })).logs as unknown as Log[];
    expect(last).toHaveLength(1);
    const body = (await trpc.logs.get.query({ id: last[0]!.id })) as unknown as {
      reqPayload: { messages: { role: string; content: unknown; tool_calls?: { function: { name: string } }[]; tool_call_id?: string }[]; tools?: unknown[] };
      respPayload: { choices: { message: { content: string }; finish_reason: string }[] };
    };
    const messages = body.reqPayload.messages;
    expect(messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool"]);
    expect(messages[0]!.content).toBe("You answer questions about the weather.");
    expect(messages[2]!.tool_calls?.[0]?.function.name).toBe("get_weather");
    expect(messages[3]).toMatchObject({ tool_call_id: "call_resp1", content: "sunny, 21C (Weather in Paris?)" });
    expect(body.reqPayload.tools).toHaveLength(1);
    expect(body.respPayload.choices[0]).toMatchObject({ message: { content: "echo: Weather in Paris?" }, finish_reason: "stop" });
    // The first call ended in the tool call.
    const firstCall = logs.find((l) => l.id !== last[0]!.id)!;
    const first = (await trpc.logs.get.query({ id: firstCall.id })) as unknown as { respPayload: { choices: { finish_reason: string }[] } };
    expect(first.respPayload.choices[0]!.finish_reason).toBe("tool_calls");

    for (let i = 0; i < 9; i++) await agents.run(forecaster, `Weather in city ${i}?`);
    await provider.forceFlush();
    const lines = await trainOnLastCalls(w, { slug: "agent-runs", runs: 10, calls: 20 });
    expect(lines.length).toBeGreaterThanOrEqual(5);
    for (const l of lines) expect(l.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "assistant"]);
  });
});
