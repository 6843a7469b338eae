import { doublePrecision, index, integer, jsonb, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import { datasetEntries, datasets } from "./datasets";
import { projects } from "./projects";

export type PinnedCriterion = { criterionId: string; version: number };

/** Models run over a dataset's TEST entries, each output judged by criteria pinned at creation. */
export const evaluations = pgTable(
  "evaluations",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    datasetId: text("dataset_id").references(() => datasets.id, { onDelete: "set null" }),
    /** What the person who started it called it (or "<models> on <dataset>"). */
    name: text("name"),
    models: jsonb("models").$type<string[]>().notNull(),
    criteria: jsonb("criteria").$type<PinnedCriterion[]>().notNull(),
    status: text("status").$type<"QUEUED" | "RUNNING" | "DONE" | "CANCELLED" | "ERROR">().notNull(),
    total: integer("total").notNull(),
    errorMessage: text("error_message"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [index().on(t.projectId, t.id)],
);

/** One model's output on one entry, with its verdicts. Existing rows are never redone. */
export const evaluationResults = pgTable(
  "evaluation_results",
  {
    evaluationId: text("evaluation_id")
      .notNull()
      .references(() => evaluations.id, { onDelete: "cascade" }),
    entryId: text("entry_id").notNull(),
    model: text("model").notNull(),
    output: jsonb("output").$type<Record<string, unknown> | null>(),
    error: text("error"),
    inputTokens: integer("input_tokens"),
    outputTokens: integer("output_tokens"),
    costUsd: doublePrecision("cost_usd"),
    latencyMs: integer("latency_ms"),
    verdicts: jsonb("verdicts").$type<Record<string, unknown>>().notNull(),
    /** Bytes of JSON text of the output and verdicts. Null on older rows. */
    bytes: integer("bytes"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.evaluationId, t.entryId, t.model] })],
);

/** Background work on a dataset's quality: judging its entries, or relabelling failing ones. */
export const datasetTasks = pgTable("dataset_tasks", {
  id: text("id").primaryKey(),
  projectId: text("project_id")
    .notNull()
    .references(() => projects.id, { onDelete: "cascade" }),
  datasetId: text("dataset_id")
    .notNull()
    .references(() => datasets.id, { onDelete: "cascade" }),
  kind: text("kind").$type<"judge" | "relabel">().notNull(),
  criterionId: text("criterion_id").notNull(),
  criterionVersion: integer("criterion_version").notNull(),
  model: text("model"),
  status: text("status").$type<"QUEUED" | "RUNNING" | "DONE" | "ERROR">().notNull(),
  total: integer("total").notNull().default(0),
  done: integer("done").notNull().default(0),
  errorMessage: text("error_message"),
  createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
});

/** The latest verdict of a criterion on a dataset entry. */
export const entryVerdicts = pgTable(
  "entry_verdicts",
  {
    entryId: text("entry_id")
      .notNull()
      .references(() => datasetEntries.id, { onDelete: "cascade" }),
    criterionId: text("criterion_id").notNull(),
    version: integer("version").notNull(),
    judgement: text("judgement").$type<"PASS" | "FAIL" | null>(),
    explanation: text("explanation"),
    error: text("error"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.entryId, t.criterionId] }), index().on(t.criterionId, t.judgement)],
);
