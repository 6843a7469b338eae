import { doublePrecision, index, jsonb, pgTable, primaryKey, smallint, text, timestamp } from "drizzle-orm/pg-core";
import { projects } from "./projects";

/**
 * The spans of traces sent to Hone's OTLP receiver (domain/traces): every span, model calls and the
 * agent's other steps (tool executions, retrieval, the run itself), so a trace reads as a tree. A
 * model call's span names its log (log_id); its messages live in the log, not here. A span sent
 * twice is one row (its trace and span ids are its key).
 */
export const traceSpans = pgTable(
  "trace_spans",
  {
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    traceId: text("trace_id").notNull(),
    spanId: text("span_id").notNull(),
    parentSpanId: text("parent_span_id"),
    name: text("name").notNull(),
    /** internal, server, client, producer, consumer (null: unspecified). */
    kind: text("kind"),
    /** What the span does, from the GenAI conventions: chat, embeddings, execute_tool, invoke_agent, … (null: not said). */
    operation: text("operation"),
    /** The resource's service.name. */
    service: text("service"),
    sessionId: text("session_id"),
    startedAt: timestamp("started_at", { withTimezone: true, mode: "date" }),
    endedAt: timestamp("ended_at", { withTimezone: true, mode: "date" }),
    durationMs: doublePrecision("duration_ms"),
    /** 0 unset, 1 ok, 2 error (OTLP's status codes). */
    status: smallint("status").notNull().default(0),
    statusMessage: text("status_message"),
    /** The log a model call became (null: not a model call). */
    logId: text("log_id"),
    /** The span's attributes (a model call's messages left out: they are in its log), bounded. */
    attributes: jsonb("attributes").$type<Record<string, unknown>>().notNull().default({}),
    /** Its events (name, time, attributes), bounded. */
    events: jsonb("events").$type<{ name: string; timeMs: number | null; attributes: Record<string, unknown> }[]>(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.projectId, t.traceId, t.spanId] }),
    index().on(t.projectId, t.startedAt),
    index().on(t.projectId, t.sessionId, t.startedAt),
    // Retention deletes the oldest stored first (HONE_LOG_RETENTION_DAYS).
    index().on(t.createdAt),
  ],
);
