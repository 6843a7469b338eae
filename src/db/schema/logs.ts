import { sql } from "drizzle-orm";
import type { LogAttempt, RefusalKind } from "../../domain/logs";
import { CLASS_SUM_KEYS } from "../../core/token-classes";
import { boolean, doublePrecision, index, integer, jsonb, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";

// One lean row per logged call: what filters, lists and aggregates read. The request and
// response bodies live in request_log_bodies, so scans over logs never drag them along.
// Ids are time-ordered (UUIDv7), so "newest first" pages and retention both walk the primary key.
export const requestLogs = pgTable(
  "request_logs",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id").notNull(),
    /** gateway | report | report-anthropic | internal (a call Hone made itself: a judge, an evaluation, ...) */
    source: text("source").notNull(),
    /** For source internal: judge | evaluation | alignment | relabel | playground | monitor */
    internalKind: text("internal_kind"),
    /** The protocol the client spoke: chat | responses | messages | embeddings. */
    api: text("api").notNull().default("chat"),
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
    /**
     * Tokens by class, as the provider reported them: input read from its prompt cache, input
     * written to it (Anthropic bills writes apart), and output spent on reasoning. Each is part of
     * input_tokens or output_tokens, not added to them. Null: the answer did not say.
     */
    cachedInputTokens: integer("cached_input_tokens"),
    cacheWriteTokens: integer("cache_write_tokens"),
    reasoningTokens: integer("reasoning_tokens"),
    costUsd: doublePrecision("cost_usd"),
    /**
     * The call's tokens and cost per billed class (domain/pricing): `<class>_tokens` and
     * `<class>_usd` for input, cache_read, cache_write_5m, cache_write_1h, audio_input, output,
     * reasoning, audio_output; classes add up to the input and output tokens, and to cost_usd.
     * Null: no usage was reported, a cache hit, or a log older than the column.
     */
    classes: jsonb("classes").$type<Record<string, number>>(),
    /** The price the cost was reckoned with (the table and model, and the date it started; or an override). */
    priceVersion: text("price_version"),
    /** Why an answered call has no plain cost: no_usage (no token counts) or no_price (no price for its model). */
    costFlag: text("cost_flag"),
    cacheHit: boolean("cache_hit").notNull().default(false),
    /**
     * Bytes of JSON text of the request payload (with its original, for converted reports) and of
     * the response payload, as stored: what reading the bodies back costs, known before they are
     * loaded (HONE_MAX_RESPONSE_BYTES). Null on logs written before the column existed.
     */
    reqBytes: integer("req_bytes"),
    respBytes: integer("resp_bytes"),
    /** Why some of the call's figures were not kept (impossible token counts, a payload cut short). */
    warning: text("warning"),
    /** The last user message and the first answer, short (domain/logs/previews.ts): listed without the bodies. */
    inputPreview: text("input_preview"),
    outputPreview: text("output_preview"),
    /** Calls with fallbacks or a route: every attempt (target, status, error, latency, what came next), in order. */
    attempts: jsonb("attempts").$type<LogAttempt[]>(),
    /** The route called (its slug), and the rollout version of the target that answered. */
    route: text("route"),
    routeVersion: text("route_version"),
    /** Tokens the fine-tune's pruning rules removed from the request before it went upstream (null: none removed). */
    prunedTokens: integer("pruned_tokens"),
    /**
     * A call Hone refused before any upstream (docs/limits.md "Refused calls"): why (rate_limit,
     * budget, unpriced, model, scope), and how many calls the row stands for (1; more for a key's
     * refusals of a minute past HONE_REFUSALS_LOGGED_PER_MINUTE, folded into one row). Null: not refused.
     */
    refusal: text("refusal").$type<RefusalKind>(),
    refusals: integer("refusals"),
    /** Sensitive values masked in what is stored (domain/masking): how many of each kind, never the values. Null: none. */
    masked: jsonb("masked").$type<Record<string, number>>(),
    /** The masking mode the call ran under (mask_stored, mask_upstream, block); null: off. */
    masking: text("masking"),
    /**
     * Where the call sits in a trace (docs/traces.md): the W3C trace id (32 hex digits, or the
     * client's own op-trace-id), the call's own span, and the caller's span it is a child of; the
     * session its trace belongs to (a conversation, an agent's run). Null: not known.
     */
    traceId: text("trace_id"),
    spanId: text("span_id"),
    parentSpanId: text("parent_span_id"),
    sessionId: text("session_id"),
    /** The log's tags (its column keeps the wire's older word, metadata). */
    tags: jsonb("metadata").$type<Record<string, string>>().notNull().default({}),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [
    index().on(t.projectId, t.id),
    index().on(t.projectId, t.completionId),
    index().on(t.projectId, t.model, t.id),
    index("request_logs_trace").on(t.projectId, t.traceId).where(sql`${t.traceId} is not null`),
    index("request_logs_session").on(t.projectId, t.sessionId, t.id).where(sql`${t.sessionId} is not null`),
    index("request_logs_metadata_gin").using("gin", sql`${t.tags} jsonb_path_ops`),
  ],
);

// Both tables are partitioned by range of id, one partition per UTC day (migration
// 20261124100000_partition_logs; src/domain/logs/partitions.ts creates them ahead and drops them
// for retention). No foreign key ties a body to its log: whatever deletes logs deletes bodies too.
// request_log_bodies also has search_text, generated from the payloads' message texts and indexed
// with pg_trgm (declared in that migration, not here: drizzle does not write to it).
export const requestLogBodies = pgTable("request_log_bodies", {
  logId: text("log_id").primaryKey(),
  reqPayload: jsonb("req_payload"),
  respPayload: jsonb("resp_payload"),
  /** For calls reported in another format (Anthropic): the payloads exactly as reported. */
  reqPayloadOriginal: jsonb("req_payload_original"),
  respPayloadOriginal: jsonb("resp_payload_original"),
});

/** What every usage rollup row sums (a function: each table needs its own column builders). */
const usageMeasures = () => ({
  requests: integer("requests").notNull(),
  errors: integer("errors").notNull(),
  inputTokens: doublePrecision("input_tokens").notNull(),
  outputTokens: doublePrecision("output_tokens").notNull(),
  costUsd: doublePrecision("cost_usd").notNull(),
  latency: jsonb("latency").$type<Record<string, number>>().notNull(),
  /** The answered calls with no plain cost (no token counts, or no price). */
  unpriced: integer("unpriced").notNull().default(0),
  /** Calls Hone refused before any upstream (a folded row counts its calls). */
  refused: integer("refused").notNull().default(0),
  /** The logs' classes summed, a column per figure (class_input_tokens, class_input_usd, ...: pricing/token-classes.ts). */
  ...classSumColumns(),
});

function classSumColumns() {
  return Object.fromEntries(CLASS_SUM_KEYS.map((k) => [`class_${k}`, doublePrecision(`class_${k}`).notNull().default(0)]));
}
const usageDimensions = () => ({
  model: text("model"),
  provider: text("provider"),
  source: text("source").notNull(),
  statusClass: text("status_class").notNull(),
});

/**
 * Usage per project and closed UTC hour, per model, provider, source and status class: what the
 * usage API reads for closed hours instead of the logs (src/domain/logs/usage-rollups.ts). latency
 * is a histogram {bin: calls} of duration_ms, 4 bins per doubling.
 */
export const usageHourly = pgTable(
  "usage_hourly",
  {
    projectId: text("project_id").notNull(),
    hour: timestamp("hour", { withTimezone: true, mode: "date" }).notNull(),
    ...usageDimensions(),
    ...usageMeasures(),
  },
  // The model (nulls as '') last: a delete's subtraction finds its rows by index, not among every row of the hour.
  (t) => [index("usage_hourly_project_hour_model").on(t.projectId, t.hour, sql`coalesce(${t.model}, '')`)],
);

/** The same per value of one configured metadata key (HONE_USAGE_TAG_KEY); tag null: the key was absent. */
export const usageHourlyTags = pgTable(
  "usage_hourly_tags",
  {
    projectId: text("project_id").notNull(),
    hour: timestamp("hour", { withTimezone: true, mode: "date" }).notNull(),
    tag: text("tag"),
    ...usageMeasures(),
  },
  // The tag (nulls as '') last: an hour holds a row per tag value, a delete subtracts from a few.
  (t) => [index("usage_hourly_tags_project_hour_tag").on(t.projectId, t.hour, sql`coalesce(${t.tag}, '')`)],
);

/**
 * The hourly rollups summed per UTC day (histograms merged), so a month by day reads 24 times
 * fewer rows. A day's row covers its closed hours; only days wholly closed are read.
 */
export const usageDaily = pgTable(
  "usage_daily",
  {
    projectId: text("project_id").notNull(),
    day: timestamp("day", { withTimezone: true, mode: "date" }).notNull(),
    ...usageDimensions(),
    ...usageMeasures(),
  },
  (t) => [index().on(t.projectId, t.day)],
);

export const usageDailyTags = pgTable(
  "usage_daily_tags",
  {
    projectId: text("project_id").notNull(),
    day: timestamp("day", { withTimezone: true, mode: "date" }).notNull(),
    tag: text("tag"),
    ...usageMeasures(),
  },
  (t) => [index().on(t.projectId, t.day)],
);

/** Closed project-hours a late log (a backfilled report) changed: summed again by the next run. */
export const usageStaleHours = pgTable(
  "usage_stale_hours",
  {
    projectId: text("project_id").notNull(),
    hour: timestamp("hour", { withTimezone: true, mode: "date" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.hour] })],
);

/** One row: every hour before closedUntil is in the rollups, summed for tagKey. */
export const usageRollupState = pgTable("usage_rollup_state", {
  id: integer("id").primaryKey(),
  closedUntil: timestamp("closed_until", { withTimezone: true, mode: "date" }),
  tagKey: text("tag_key").notNull(),
});
