import { sql } from "drizzle-orm";
import { boolean, check, doublePrecision, index, integer, jsonb, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import { datasets } from "./datasets";
import { projects } from "./projects";

/**
 * A monitor: a saved log filter, an optional LLM filter (a criterion, keeping PASS or FAIL), a
 * sample rate, and the dataset its kept calls become entries of. The counters only grow; they are
 * updated in the transaction that settles the logs they count.
 */
export const monitors = pgTable(
  "monitors",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** The log filter (domain/logs/inputs.ts LogFilter), as given. */
    filter: jsonb("filter").$type<Record<string, unknown>>().notNull().default({}),
    /** Whether the filter asks for Hone's own calls (otherwise they are never offered to it). */
    includeInternal: boolean("include_internal").notNull().default(false),
    /** The criterion reference (`<id>` or `<id>@v<N>`) of the LLM filter; null: none. */
    criterion: text("criterion"),
    /** Which verdict keeps a call: PASS (collect good calls) or FAIL (collect failures). */
    keepOn: text("keep_on").$type<"PASS" | "FAIL">().notNull().default("PASS"),
    sampleRate: doublePrecision("sample_rate").notNull(),
    datasetId: text("dataset_id")
      .notNull()
      .references(() => datasets.id, { onDelete: "cascade" }),
    /** The share of added entries that go to the TEST split. */
    testFraction: doublePrecision("test_fraction").notNull(),
    status: text("status").$type<"ACTIVE" | "PAUSED">().notNull(),
    /** Why the monitor stopped by itself (its criterion is gone, ...); null while it runs. */
    lastError: text("last_error"),
    /** The application's answered calls stored while it was active (before its sample): compacted from monitor_seen. */
    seen: integer("seen").notNull().default(0),
    /** Calls taken by the sample rate (as they were stored, or by a backfill) and examined. */
    sampled: integer("sampled").notNull().default(0),
    /** Of those, the calls the log filter matched. */
    matched: integer("matched").notNull().default(0),
    judged: integer("judged").notNull().default(0),
    /** Matched calls the judge's verdict did not keep. */
    rejected: integer("rejected").notNull().default(0),
    added: integer("added").notNull().default(0),
    duplicates: integer("duplicates").notNull().default(0),
    /** Matched calls that could not become an entry (no answer, cut short) or that no judge could judge. */
    invalid: integer("invalid").notNull().default(0),
    judgeCostUsd: doublePrecision("judge_cost_usd").notNull().default(0),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [
    index().on(t.projectId, t.id),
    // The log writer joins new logs to the project's active monitors.
    index("monitors_active").on(t.projectId).where(sql`${t.status} = 'ACTIVE'`),
    check("monitors_status_check", sql`${t.status} in ('ACTIVE', 'PAUSED')`),
    check("monitors_keep_on_check", sql`${t.keepOn} in ('PASS', 'FAIL')`),
  ],
);

/**
 * The logs offered to a monitor, one row per (monitor, log): written with the log itself (in the
 * statement that stores it) or by a backfill, then settled once. `outcome` null: waiting (claimed
 * by a runner while `claimed_until` is ahead). Only calls in the monitor's sample are offered.
 * Settled rows are kept for calls that matched the filter (so a backfill never judges or adds one
 * twice); the others are deleted when settled.
 */
export const monitorLogs = pgTable(
  "monitor_logs",
  {
    monitorId: text("monitor_id")
      .notNull()
      .references(() => monitors.id, { onDelete: "cascade" }),
    logId: text("log_id").notNull(),
    /** added | duplicate | rejected (the judge's verdict did not keep it) | invalid */
    outcome: text("outcome"),
    claimedBy: text("claimed_by"),
    /** Times a runner claimed it: a call whose judge keeps failing is given up on (invalid) after 3. */
    attempts: integer("attempts").notNull().default(0),
    claimedUntil: timestamp("claimed_until", { withTimezone: true, mode: "date" }),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.monitorId, t.logId] }), index("monitor_logs_waiting").on(t.monitorId, t.logId).where(sql`${t.outcome} is null`)],
);

/**
 * Calls a monitor saw, appended by the statement that stores a batch of logs (one row per active
 * monitor of the batch's projects: an insert takes no lock another writer waits on), summed into
 * monitors.seen by the runner (compactMonitorSeen).
 */
export const monitorSeen = pgTable(
  "monitor_seen",
  {
    monitorId: text("monitor_id")
      .notNull()
      .references(() => monitors.id, { onDelete: "cascade" }),
    n: integer("n").notNull(),
  },
  (t) => [index().on(t.monitorId)],
);
