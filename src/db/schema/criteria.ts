import { index, integer, jsonb, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import { projects } from "./projects";

export const criteria = pgTable(
  "criteria",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [index().on(t.projectId, t.id)],
);

/** Versions are immutable: a change makes version N+1, so `<id>@vN` always means the same judge. */
export const criterionVersions = pgTable(
  "criterion_versions",
  {
    criterionId: text("criterion_id")
      .notNull()
      .references(() => criteria.id, { onDelete: "cascade" }),
    version: integer("version").notNull(),
    judgeModel: text("judge_model").notNull(),
    prompt: text("prompt").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.criterionId, t.version] })],
);

/** Human-labelled examples a criterion is aligned against. */
export const alignmentRows = pgTable(
  "alignment_rows",
  {
    id: text("id").primaryKey(),
    criterionId: text("criterion_id")
      .notNull()
      .references(() => criteria.id, { onDelete: "cascade" }),
    messages: jsonb("messages").$type<unknown[]>().notNull(),
    tools: jsonb("tools").$type<unknown[] | null>(),
    toolChoice: jsonb("tool_choice").$type<unknown>(),
    output: jsonb("output").$type<Record<string, unknown>>().notNull(),
    /** The human label: PASS, FAIL, or null while unlabelled. */
    judgement: text("judgement").$type<"PASS" | "FAIL" | null>(),
    /** Bytes of JSON text of messages, tools, tool_choice and output. Null on older rows. */
    bytes: integer("bytes"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [index().on(t.criterionId, t.id)],
);

/** The judge's verdict on one row for one version (null verdict: the judge call failed). */
export const alignmentVerdicts = pgTable(
  "alignment_verdicts",
  {
    rowId: text("row_id")
      .notNull()
      .references(() => alignmentRows.id, { onDelete: "cascade" }),
    version: integer("version").notNull(),
    verdict: text("verdict").$type<"PASS" | "FAIL" | null>(),
    explanation: text("explanation"),
    error: text("error"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.rowId, t.version] })],
);

/** The statistics of the last alignment run of each version, kept so versions can be compared. */
export const alignmentRuns = pgTable(
  "alignment_runs",
  {
    criterionId: text("criterion_id")
      .notNull()
      .references(() => criteria.id, { onDelete: "cascade" }),
    version: integer("version").notNull(),
    stats: jsonb("stats").$type<Record<string, unknown>>().notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.criterionId, t.version] })],
);

/**
 * An alignment run in the background: one criterion version judging every row of the set, a chunk
 * per job step, so a large set never holds a request open. stats are set when it is DONE.
 */
export const alignmentTasks = pgTable(
  "alignment_tasks",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    criterionId: text("criterion_id")
      .notNull()
      .references(() => criteria.id, { onDelete: "cascade" }),
    version: integer("version").notNull(),
    status: text("status").$type<"QUEUED" | "RUNNING" | "DONE" | "ERROR">().notNull(),
    total: integer("total").notNull().default(0),
    done: integer("done").notNull().default(0),
    stats: jsonb("stats").$type<Record<string, unknown> | null>(),
    errorMessage: text("error_message"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [index().on(t.criterionId, t.id)],
);
