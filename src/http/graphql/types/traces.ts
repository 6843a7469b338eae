import type { Page, SessionSummary, Trace, TraceSpanView, TraceSummary } from "../../../domain/traces";
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
    truncated: t.exposeBoolean("truncated", {
      description: "Spans or logs past the caps (2,000 spans; 500 logs, or HONE_MAX_PAGE_SIZE when lower, 200 by default) were left out",
    }),
  }),
});

const TraceSummaryRef = builder.objectRef<TraceSummary>("TraceSummary").implement({
  description: "A trace in a list: summed from its spans and calls",
  fields: (t) => ({
    id: t.exposeString("id"),
    sessionId: t.exposeString("sessionId", { nullable: true }),
    name: t.exposeString("name", { nullable: true, description: "The root span's name (else the first call's model)" }),
    service: t.exposeString("service", { nullable: true }),
    startedAt: t.field({ type: "DateTime", resolve: (r) => r.startedAt }),
    endedAt: t.field({ type: "DateTime", nullable: true, resolve: (r) => r.endedAt }),
    durationMs: t.exposeFloat("durationMs", { nullable: true }),
    spans: t.exposeInt("spans"),
    logs: t.exposeInt("logs"),
    errors: t.exposeInt("errors"),
    costUsd: t.exposeFloat("costUsd"),
    inputTokens: t.exposeFloat("inputTokens"),
    outputTokens: t.exposeFloat("outputTokens"),
  }),
});

export const TracePageRef = builder.objectRef<Page<TraceSummary>>("TracePage").implement({
  description: "A page of traces, newest first; the next page is after endCursor",
  fields: (t) => ({
    items: t.field({ type: [TraceSummaryRef], resolve: (p) => p.items }),
    endCursor: t.exposeString("endCursor", { nullable: true }),
    hasNextPage: t.exposeBoolean("hasNextPage"),
  }),
});

const SessionSummaryRef = builder.objectRef<SessionSummary>("SessionSummary").implement({
  description: "A session (a conversation, an agent's run): its traces and calls",
  fields: (t) => ({
    id: t.exposeString("id"),
    traces: t.exposeInt("traces"),
    logs: t.exposeInt("logs"),
    errors: t.exposeInt("errors"),
    costUsd: t.exposeFloat("costUsd"),
    inputTokens: t.exposeFloat("inputTokens"),
    outputTokens: t.exposeFloat("outputTokens"),
    startedAt: t.field({ type: "DateTime", resolve: (r) => r.startedAt }),
    lastAt: t.field({ type: "DateTime", resolve: (r) => r.lastAt }),
  }),
});

export const SessionPageRef = builder.objectRef<Page<SessionSummary>>("SessionPage").implement({
  description: "A page of sessions, the latest active first; the next page is after endCursor",
  fields: (t) => ({
    items: t.field({ type: [SessionSummaryRef], resolve: (p) => p.items }),
    endCursor: t.exposeString("endCursor", { nullable: true }),
    hasNextPage: t.exposeBoolean("hasNextPage"),
  }),
});
