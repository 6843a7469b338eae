import type { Trace, TraceSpanView } from "../../../domain/traces";
import { builder } from "../builder";
import { RequestLogRef } from "./logs";

// Traces (domain/traces): one trace's spans as a tree, with the logs of its model calls.

const TraceSpanRef = builder.objectRef<TraceSpanView>("TraceSpan").implement({
  description: "A step of a trace: a model call (with its log), a tool's execution, an agent's run, or anything else the application traced",
  fields: (t) => ({
    spanId: t.exposeString("spanId"),
    parentSpanId: t.exposeString("parentSpanId", { nullable: true, description: "The span it is a step of (null: a root, or its parent was not sent)" }),
    name: t.exposeString("name"),
    kind: t.exposeString("kind", { nullable: true, description: "internal, server, client, producer or consumer" }),
    operation: t.exposeString("operation", {
      nullable: true,
      description: "What it does, in the GenAI conventions' words: chat, embeddings, execute_tool, invoke_agent, …",
    }),
    service: t.exposeString("service", { nullable: true }),
    startedAt: t.field({ type: "DateTime", nullable: true, resolve: (s) => s.startedAt }),
    endedAt: t.field({ type: "DateTime", nullable: true, resolve: (s) => s.endedAt }),
    durationMs: t.exposeFloat("durationMs", { nullable: true }),
    status: t.exposeString("status", { description: "unset, ok or error" }),
    statusMessage: t.exposeString("statusMessage", { nullable: true }),
    logId: t.exposeString("logId", { nullable: true, description: "The log of a model call (null: another step)" }),
    attributes: t.field({ type: "JSON", resolve: (s) => s.attributes, description: "Its attributes (a model call's messages are in its log)" }),
    events: t.field({ type: "JSON", resolve: (s) => s.events }),
  }),
});

export const TraceRef = builder.objectRef<Trace>("Trace").implement({
  description: "A trace: an application's run (an agent's steps, its model calls) as the spans it sent and the calls Hone logged",
  fields: (t) => ({
    id: t.exposeString("id"),
    sessionId: t.exposeString("sessionId", { nullable: true }),
    startedAt: t.field({ type: "DateTime", nullable: true, resolve: (r) => r.startedAt }),
    endedAt: t.field({ type: "DateTime", nullable: true, resolve: (r) => r.endedAt }),
    durationMs: t.exposeFloat("durationMs", { nullable: true }),
    spans: t.field({ type: [TraceSpanRef], resolve: (r) => r.spans }),
    logs: t.field({ type: [RequestLogRef], resolve: (r) => r.logs }),
    costUsd: t.exposeFloat("costUsd"),
    inputTokens: t.exposeInt("inputTokens"),
    outputTokens: t.exposeInt("outputTokens"),
    truncated: t.exposeBoolean("truncated", { description: "Spans or logs past the caps (2,000 spans, 500 logs) were left out" }),
  }),
});
