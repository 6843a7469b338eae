import { and, asc, eq } from "drizzle-orm";
import { z } from "zod";
import { type Ctx, dbOf } from "../context";
import { traceSpans } from "../../db/schema";
import { notFound, parseInput } from "../../core/errors";
import { MAX_TRACE_ID_LENGTH } from "../../core/limits";
import { listLogs, type RequestLog } from "../logs";
import { verb } from "../verb";

// One trace read whole (docs/traces.md): its spans (the OTLP receiver's, and each logged call that
// joined the trace from the gateway or /report as a span of its own) and its logs.

/** Spans one trace answers with at most (an agent's run is rarely past a few hundred). */
const MAX_SPANS = 2_000;
/** Logs one trace answers with at most. */
const MAX_LOGS = 500;

export type TraceSpanView = {
  spanId: string;
  parentSpanId: string | null;
  name: string;
  kind: string | null;
  operation: string | null;
  service: string | null;
  startedAt: Date | null;
  endedAt: Date | null;
  durationMs: number | null;
  status: "unset" | "ok" | "error";
  statusMessage: string | null;
  /** The log of a model call (null: another step). */
  logId: string | null;
  attributes: Record<string, unknown>;
  events: { name: string; timeMs: number | null; attributes: Record<string, unknown> }[];
};

export type Trace = {
  id: string;
  sessionId: string | null;
  startedAt: Date | null;
  endedAt: Date | null;
  durationMs: number | null;
  /** Spans by start time; a parent not among them (it was not sent) leaves its children at the root. */
  spans: TraceSpanView[];
  logs: RequestLog[];
  /** The logs' totals. */
  costUsd: number;
  inputTokens: number;
  outputTokens: number;
  /** Whether spans or logs were left out past the caps. */
  truncated: boolean;
};

export const TraceIdInput = z.strictObject({ id: z.string().min(1).max(MAX_TRACE_ID_LENGTH) });
export type TraceIdInput = z.input<typeof TraceIdInput>;

const STATUS = ["unset", "ok", "error"] as const;

export const getTrace = verb({
  name: "trace",
  description: "One trace: its spans as a tree (model calls with their logs, tool executions, agent steps) and its logs",
  kind: "query",
  role: "viewer",
  input: TraceIdInput,
  run: async (ctx: Ctx, raw: TraceIdInput): Promise<Trace> => {
    const { id } = parseInput(TraceIdInput, raw);
    const rows = await dbOf(ctx)
      .select()
      .from(traceSpans)
      .where(and(eq(traceSpans.projectId, ctx.projectId), eq(traceSpans.traceId, id)))
      .orderBy(asc(traceSpans.startedAt), asc(traceSpans.spanId))
      .limit(MAX_SPANS + 1);
    const page = await listLogs(ctx, { filter: { traceId: id }, first: Math.min(MAX_LOGS, ctx.deps.config.maxPageSize) });
    if (!rows.length && !page.logs.length) throw notFound("Trace", id);
    const spans: TraceSpanView[] = rows.slice(0, MAX_SPANS).map((r) => ({
      spanId: r.spanId,
      parentSpanId: r.parentSpanId,
      name: r.name,
      kind: r.kind,
      operation: r.operation,
      service: r.service,
      startedAt: r.startedAt,
      endedAt: r.endedAt,
      durationMs: r.durationMs,
      status: STATUS[r.status] ?? "unset",
      statusMessage: r.statusMessage,
      logId: r.logId,
      attributes: r.attributes,
      events: r.events ?? [],
    }));
    // A call that joined the trace through the gateway or /report is a span of its own.
    const known = new Set(spans.map((s) => s.spanId));
    for (const l of page.logs) {
      if (l.spanId && known.has(l.spanId)) continue;
      const startedAt = l.requestedAt ?? l.createdAt;
      spans.push({
        spanId: l.spanId ?? l.id,
        parentSpanId: l.parentSpanId,
        name: `${l.api} ${l.model ?? ""}`.trim(),
        kind: "client",
        operation: l.api === "embeddings" ? "embeddings" : "chat",
        service: l.tags.service ?? null,
        startedAt,
        endedAt: l.durationMs !== null ? new Date(startedAt.getTime() + l.durationMs) : null,
        durationMs: l.durationMs,
        status: l.statusCode !== null && l.statusCode >= 400 ? "error" : "ok",
        statusMessage: l.errorMessage,
        logId: l.id,
        attributes: {},
        events: [],
      });
    }
    spans.sort((a, b) => (a.startedAt?.getTime() ?? 0) - (b.startedAt?.getTime() ?? 0));
    const starts = spans.map((s) => s.startedAt?.getTime()).filter((t): t is number => t !== undefined);
    const ends = spans.map((s) => s.endedAt?.getTime()).filter((t): t is number => t !== undefined);
    const startedAt = starts.length ? new Date(Math.min(...starts)) : null;
    const endedAt = ends.length ? new Date(Math.max(...ends)) : null;
    return {
      id,
      sessionId: rows.find((r) => r.sessionId)?.sessionId ?? page.logs.find((l) => l.sessionId)?.sessionId ?? null,
      startedAt,
      endedAt,
      durationMs: startedAt && endedAt ? endedAt.getTime() - startedAt.getTime() : null,
      spans,
      logs: page.logs,
      costUsd: page.logs.reduce((s, l) => s + (l.costUsd ?? 0), 0),
      inputTokens: page.logs.reduce((s, l) => s + (l.inputTokens ?? 0), 0),
      outputTokens: page.logs.reduce((s, l) => s + (l.outputTokens ?? 0), 0),
      truncated: rows.length > MAX_SPANS || page.hasNextPage,
    };
  },
});
