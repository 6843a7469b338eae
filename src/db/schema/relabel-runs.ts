import { index, integer, jsonb, pgTable, primaryKey, text, timestamp, doublePrecision } from "drizzle-orm/pg-core";
import { datasetEntries, datasets } from "./datasets";
import { projects } from "./projects";

/** A verdict on one output, as a relabel run stores it (for the proposed and for the current output). */
export type RunVerdict = { criterionId: string; version: number; judgement: "PASS" | "FAIL" | null; explanation: string | null; error: string | null };

/**
 * A named relabelling of a dataset's entries (or of those a monitor added) by one model, judged by
 * optional criteria: its outputs are proposals, applied to the entries only when accepted.
 */
export const relabelRuns = pgTable(
  "relabel_runs",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    datasetId: text("dataset_id")
      .notNull()
      .references(() => datasets.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    model: text("model").notNull(),
    /** The criteria, each pinned to the version it had when the run was created (`<id>@v<N>`). */
    criteria: jsonb("criteria").$type<string[]>().notNull().default([]),
    /** Only the entries this monitor added; null: the dataset's entries. */
    monitorId: text("monitor_id"),
    status: text("status").$type<"QUEUED" | "RUNNING" | "DONE" | "ERROR" | "CANCELLED">().notNull(),
    total: integer("total").notNull().default(0),
    done: integer("done").notNull().default(0),
    costUsd: doublePrecision("cost_usd").notNull().default(0),
    errorMessage: text("error_message"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [index().on(t.projectId, t.id), index().on(t.datasetId)],
);

/** One entry of a run: the output the run proposes, both outputs' verdicts, and the decision on it. */
export const relabelOutputs = pgTable(
  "relabel_outputs",
  {
    runId: text("run_id")
      .notNull()
      .references(() => relabelRuns.id, { onDelete: "cascade" }),
    entryId: text("entry_id")
      .notNull()
      .references(() => datasetEntries.id, { onDelete: "cascade" }),
    /** The entry's content hash when the run read it: a later edit makes the proposal stale. */
    baseHash: text("base_hash"),
    /** The entry's output when the run read it, for the comparison. */
    current: jsonb("current").$type<Record<string, unknown> | null>(),
    /** The proposed assistant message; null until generated (or when generating failed: `error`). */
    output: jsonb("output").$type<Record<string, unknown> | null>(),
    error: text("error"),
    verdicts: jsonb("verdicts").$type<RunVerdict[]>().notNull().default([]),
    currentVerdicts: jsonb("current_verdicts").$type<RunVerdict[]>().notNull().default([]),
    /** ACCEPTED (the entry's output was replaced) or REJECTED; null: undecided. */
    decision: text("decision").$type<"ACCEPTED" | "REJECTED" | null>(),
    decidedAt: timestamp("decided_at", { withTimezone: true, mode: "date" }),
    generatedAt: timestamp("generated_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [primaryKey({ columns: [t.runId, t.entryId] }), index().on(t.entryId)],
);
