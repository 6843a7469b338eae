import { doublePrecision, index, integer, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import type { LogFilter } from "../../domain/logs";
import { projects } from "./projects";

/**
 * A project's own price for a model (as its logs name it: `openai:gpt-4o`, `hone:support-v1`,
 * `my-vllm:llama-3`) from a date on: either its rates ($ per million tokens by genai-prices' keys:
 * input_mtok, cache_read_mtok, ...) and/or a price per hour of call time, or a multiplier of the
 * price table's (0.8: a 20% discount).
 * The override in force for a call is the latest whose effective_from is not after the call.
 */
export const priceOverrides = pgTable(
  "price_overrides",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    model: text("model").notNull(),
    effectiveFrom: timestamp("effective_from", { withTimezone: true, mode: "date" }).notNull(),
    rates: jsonb("rates").$type<Record<string, number>>(),
    multiplier: doublePrecision("multiplier"),
    /** A price per hour of call time, alone or with rates. */
    usdPerHour: doublePrecision("usd_per_hour"),
    note: text("note"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [index().on(t.projectId, t.model, t.effectiveFrom)],
);

/** Recalculating the cost of the logs matching a filter, in the background (a batch per job step). */
export const costRecalculations = pgTable(
  "cost_recalculations",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    filter: jsonb("filter").$type<LogFilter>().notNull(),
    status: text("status").$type<"QUEUED" | "RUNNING" | "DONE" | "ERROR">().notNull(),
    /** Logs matching the filter when it started, logs done so far, and of those the ones whose cost changed. */
    total: integer("total").notNull().default(0),
    done: integer("done").notNull().default(0),
    changed: integer("changed").notNull().default(0),
    /** The last log id done (they are walked newest first). */
    cursor: text("cursor"),
    errorMessage: text("error_message"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [index().on(t.projectId, t.id)],
);
