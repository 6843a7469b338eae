import { index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { projects } from "./projects";

/**
 * How a project masks sensitive data (domain/masking): one rule for the project, and rules that
 * narrow it for one API key or one model (a route is the model hone:<slug>). A call is masked by
 * the strictest rule that applies to it.
 */
export const maskingRules = pgTable(
  "masking_rules",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    /** project, key or model. */
    scope: text("scope").$type<"project" | "key" | "model">().notNull(),
    /** The key's id or the model string; empty for the project's rule. */
    subject: text("subject").notNull().default(""),
    /** off, mask_stored, mask_upstream or block. */
    mode: text("mode").$type<"off" | "mask_stored" | "mask_upstream" | "block">().notNull(),
    /** The kinds masked (null: every built-in kind). */
    kinds: jsonb("kinds").$type<string[] | null>(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex().on(t.projectId, t.scope, t.subject)],
);

/**
 * Masking what a project stored before its rule (domain/mask-backfill): its logs (newest first),
 * then its dataset entries, then its stored Responses, then its trace spans, a batch per job step; resumable from `cursor`.
 */
export const maskingBackfills = pgTable(
  "masking_backfills",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    status: text("status").$type<"QUEUED" | "RUNNING" | "DONE" | "ERROR">().notNull(),
    /** logs, entries, responses or spans: what it is going through now. */
    phase: text("phase").$type<"logs" | "entries" | "responses" | "spans">().notNull().default("logs"),
    /** The last id done in the phase. */
    cursor: text("cursor"),
    /** The kinds masked (null: every built-in kind). */
    kinds: jsonb("kinds").$type<string[] | null>(),
    /** Rows there were when it started (logs, entries, Responses, spans), rows read so far, and of those the ones that held something to mask. */
    total: integer("total").notNull().default(0),
    done: integer("done").notNull().default(0),
    changed: integer("changed").notNull().default(0),
    errorMessage: text("error_message"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [index().on(t.projectId, t.id)],
);

/** A project's own recognizer (domain/masking): a kind's name and a regular expression shown safe from ReDoS when saved. */
export const maskingRecognizers = pgTable(
  "masking_recognizers",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    /** The placeholder's name: <KIND_1>. */
    kind: text("kind").notNull(),
    pattern: text("pattern").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex().on(t.projectId, t.kind)],
);
