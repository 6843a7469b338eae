import { doublePrecision, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { apiKeys, projects } from "./projects";

/**
 * What may be spent, by whom: one row per subject (the project, one key, one tag value, or each
 * value of a tag), with up to four caps. `subject` spells the subject once ("project", "key:<id>",
 * "tag:<key>=<value>", "tag:<key>") so setting a subject's limits again replaces them.
 */
export const limits = pgTable(
  "limits",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    scope: text("scope").$type<"project" | "key" | "tag">().notNull(),
    keyId: text("key_id").references(() => apiKeys.id, { onDelete: "cascade" }),
    tagKey: text("tag_key"),
    /** Null on a tag limit: each value of the tag has the limits on its own. */
    tagValue: text("tag_value"),
    subject: text("subject").notNull(),
    requestsPerMinute: integer("requests_per_minute"),
    tokensPerMinute: integer("tokens_per_minute"),
    costPerDayUsd: doublePrecision("cost_per_day_usd"),
    costPerMonthUsd: doublePrecision("cost_per_month_usd"),
    /** Under a cost cap, a call Hone cannot price: refused, or admitted and counted at what it turns out to cost. */
    unpricedCalls: text("unpriced_calls").$type<"refuse" | "allow">().notNull().default("refuse"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex().on(t.projectId, t.subject)],
);

/**
 * One window of one capped quantity (requests, tokens, usd_day, usd_month) of one limit and
 * subject value. `leased` is what the processes have taken to admit calls with (a slice at a time,
 * never past the cap but for settled overruns); `spent` what calls settled. Both only grow within a
 * window; a new window is a new row.
 */
export const limitCounters = pgTable(
  "limit_counters",
  {
    limitId: text("limit_id")
      .notNull()
      .references(() => limits.id, { onDelete: "cascade" }),
    metric: text("metric").$type<"requests" | "tokens" | "usd_day" | "usd_month">().notNull(),
    /** The tag value of a per-value limit; "" otherwise. */
    value: text("value").notNull(),
    windowStart: timestamp("window_start", { withTimezone: true, mode: "date" }).notNull(),
    windowEnd: timestamp("window_end", { withTimezone: true, mode: "date" }).notNull(),
    leased: doublePrecision("leased").notNull().default(0),
    spent: doublePrecision("spent").notNull().default(0),
    /** What the last lease granted (set in the statement that grants it, so the granting process reads it back). */
    lastGrant: doublePrecision("last_grant").notNull().default(0),
    /** The highest alert threshold (50, 80, 100) crossed by `spent` and alerted in this window. */
    alerted: integer("alerted").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.limitId, t.metric, t.value, t.windowStart] }), index().on(t.windowEnd)],
);

/** A project's webhook: where alerts are posted, and the secret they are signed with (encrypted). */
export const projectWebhooks = pgTable("project_webhooks", {
  projectId: text("project_id")
    .primaryKey()
    .references(() => projects.id, { onDelete: "cascade" }),
  url: text("url").notNull(),
  secretEnc: text("secret_enc").notNull(),
  /** Last characters of the secret, so a person can tell which one is in force. */
  secretHint: text("secret_hint").notNull(),
  createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
});

/**
 * One alert to deliver, and how its delivery went. `dedupe` names the event once (a budget's
 * threshold in a window, a key's expiry) so that processes racing to raise it store it once.
 */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    event: text("event").notNull(),
    dedupe: text("dedupe").notNull(),
    payload: jsonb("payload").$type<Record<string, unknown>>().notNull(),
    status: text("status").$type<"PENDING" | "DELIVERED" | "FAILED">().notNull(),
    attempts: integer("attempts").notNull().default(0),
    lastStatusCode: integer("last_status_code"),
    lastError: text("last_error"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    deliveredAt: timestamp("delivered_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [uniqueIndex().on(t.projectId, t.dedupe), index().on(t.projectId, t.createdAt)],
);
