import { sql } from "drizzle-orm";
import { check, index, integer, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { projects } from "./projects";

/** An output worse than the entry's own, and where that judgement came from. */
export type RejectedOutput = { message: Record<string, unknown>; source: "relabel" | "edit" | "best-of-n"; ref: string | null; at: string };

export const datasets = pgTable(
  "datasets",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [index().on(t.projectId, t.id)],
);

export const datasetEntries = pgTable(
  "dataset_entries",
  {
    id: text("id").primaryKey(),
    datasetId: text("dataset_id")
      .notNull()
      .references(() => datasets.id, { onDelete: "cascade" }),
    // Denormalised so every entry query can be scoped by project without a join.
    projectId: text("project_id").notNull(),
    messages: jsonb("messages").$type<unknown[]>().notNull(),
    tools: jsonb("tools").$type<unknown[] | null>(),
    toolChoice: jsonb("tool_choice").$type<unknown>(),
    responseFormat: jsonb("response_format").$type<Record<string, unknown> | null>(),
    metadata: jsonb("metadata").$type<Record<string, string>>().notNull().default({}),
    split: text("split").$type<"TRAIN" | "TEST">().notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    /**
     * The log the entry was imported from. Not a foreign key: request_logs is partitioned by time and
     * retention drops whole partitions; whatever removes logs sets this to null first.
     */
    sourceLogId: text("source_log_id"),
    /** SHA-256 of the entry's content (messages, tools, tool_choice, response_format), for duplicates. */
    contentHash: text("content_hash"),
    /** Before the first relabelling: the messages as they were, kept for audit. */
    originalMessages: jsonb("original_messages").$type<unknown[] | null>(),
    relabeledBy: text("relabeled_by"),
    relabeledAt: timestamp("relabeled_at", { withTimezone: true, mode: "date" }),
    /** How the entry came in: "log" (imported from a log), "upload" (JSONL import), "manual" (added by hand or API). */
    source: text("source").$type<"log" | "upload" | "manual">().notNull().default("manual"),
    /** Bytes of JSON text of the entry's content (messages, tools, ...): known before loading it. Null on older entries. */
    bytes: integer("bytes"),
    /** The JSONL upload that stored the entry: a failed upload deletes what it stored. */
    importId: text("import_id"),
    /** The monitor that added the entry from a live call (or a backfill). */
    monitorId: text("monitor_id"),
    /**
     * Preference data: outputs judged worse than the entry's own, newest last (at most 10): the
     * output a relabel replaced, one a person edited away, the losers of a judged best-of-N call.
     */
    rejectedOutputs: jsonb("rejected_outputs").$type<RejectedOutput[]>().notNull().default([]),
  },
  (t) => [
    index().on(t.datasetId, t.id),
    index().on(t.datasetId, t.contentHash),
    index().on(t.sourceLogId),
    // Counting a dataset's TEST entries (trainCount/testCount on every dataset read) reads the index only.
    index().on(t.datasetId, t.split),
    index().on(t.importId),
    index().on(t.monitorId),
    check("dataset_entries_split_check", sql`${t.split} in ('TRAIN', 'TEST')`),
    check("dataset_entries_source_check", sql`${t.source} in ('log', 'upload', 'manual')`),
  ],
);

/**
 * A dataset's pruning rule: text removed from its entries' prompts when training, and from the
 * requests made to the fine-tunes trained with it (each model keeps the rules it was trained with).
 */
export const pruningRules = pgTable(
  "pruning_rules",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id").notNull(),
    datasetId: text("dataset_id")
      .notNull()
      .references(() => datasets.id, { onDelete: "cascade" }),
    text: text("text").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [index().on(t.datasetId)],
);
