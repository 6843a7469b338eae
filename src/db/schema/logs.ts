import { sql } from "drizzle-orm";
import { boolean, doublePrecision, index, integer, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";

// One lean row per logged call: what filters, lists and aggregates read. The request and
// response bodies live in request_log_bodies, so scans over logs never drag them along.
// Ids are time-ordered (UUIDv7), so "newest first" pages and retention both walk the primary key.
export const requestLogs = pgTable(
  "request_logs",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id").notNull(),
    /** gateway | report | report-anthropic */
    source: text("source").notNull(),
    /** openai | anthropic | gemini | custom | hone, or null for reports */
    provider: text("provider"),
    model: text("model"),
    completionId: text("completion_id"),
    statusCode: integer("status_code"),
    errorMessage: text("error_message"),
    requestedAt: timestamp("requested_at", { withTimezone: true, mode: "date" }),
    receivedAt: timestamp("received_at", { withTimezone: true, mode: "date" }),
    durationMs: integer("duration_ms"),
    inputTokens: integer("input_tokens"),
    outputTokens: integer("output_tokens"),
    costUsd: doublePrecision("cost_usd"),
    cacheHit: boolean("cache_hit").notNull().default(false),
    metadata: jsonb("metadata").$type<Record<string, string>>().notNull().default({}),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [
    index().on(t.projectId, t.id),
    index().on(t.projectId, t.completionId),
    index().on(t.projectId, t.model, t.id),
    index("request_logs_metadata_gin").using("gin", sql`${t.metadata} jsonb_path_ops`),
  ],
);

export const requestLogBodies = pgTable("request_log_bodies", {
  logId: text("log_id")
    .primaryKey()
    .references(() => requestLogs.id, { onDelete: "cascade" }),
  reqPayload: jsonb("req_payload"),
  respPayload: jsonb("resp_payload"),
  /** For calls reported in another format (Anthropic): the payloads exactly as reported. */
  reqPayloadOriginal: jsonb("req_payload_original"),
  respPayloadOriginal: jsonb("resp_payload_original"),
});
