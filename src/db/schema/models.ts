import { bigint, boolean, doublePrecision, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { apiKeys } from "./projects";
import { datasets } from "./datasets";
import { projects } from "./projects";
import { customProviders } from "./provider-settings";

/** A file of a model's weights or checkpoint kept by Hone: its path under the model's folder, digest and size. */
export type ArtifactFile = { path: string; sha256: string; bytes: number };

/** Fine-tuned models of a project, addressed as hone:<slug>. */
/** One point of a training curve: the step and its losses (null where the backend gave none). */
export type TrainingPoint = { step: number; trainLoss: number | null; validLoss: number | null };
/** A checkpoint the backend kept: its id or model name, the step, and the losses there. */
export type TrainingCheckpoint = { id: string; step: number; model: string | null; trainLoss: number | null; validLoss: number | null; at: string | null };

export const models = pgTable(
  "models",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    slug: text("slug").notNull(),
    description: text("description"),
    /** Kept when the dataset is deleted later: the model stays usable. */
    datasetId: text("dataset_id").references(() => datasets.id, { onDelete: "set null" }),
    baseModel: text("base_model").notNull(),
    backend: text("backend").$type<"openai" | "together" | "fireworks" | "trainer">().notNull(),
    hyperparameters: jsonb("hyperparameters").$type<Record<string, unknown>>().notNull().default({}),
    /** sft: trained on the TRAIN entries; dpo: on their preference pairs (each rejected output against the entry's own). */
    method: text("method").$type<"sft" | "dpo">().notNull().default("sft"),
    /** DPO's beta (null: the backend's default). */
    dpoBeta: doublePrecision("dpo_beta"),
    status: text("status").notNull(),
    errorMessage: text("error_message"),
    trainingFileId: text("training_file_id"),
    upstreamJobId: text("upstream_job_id"),
    /** The model id the backend serves once training succeeded. */
    upstreamModelId: text("upstream_model_id"),
    trainingEntries: integer("training_entries"),
    /** Criteria whose latest FAIL verdict keeps an entry out of the training data. */
    excludeFailing: jsonb("exclude_failing").$type<string[]>().notNull().default([]),
    /** Every status the model went through, oldest first, with the backend's message on failure. */
    events: jsonb("events").$type<{ status: string; at: string; message: string | null }[]>().notNull().default([]),
    /** The dataset's pruning rules when the model was created: removed from training entries and from requests to it. */
    pruningRules: jsonb("pruning_rules").$type<string[]>().notNull().default([]),
    /** Tokens the pruning rules removed from the training file (null: not trained yet, or no rules). */
    prunedTokens: integer("pruned_tokens"),
    /** The tokens of each pruning rule's text (as pruningRules lists them), counted at training: what serving saves per occurrence. */
    pruningRuleTokens: jsonb("pruning_rule_tokens").$type<number[]>(),
    /** Loss over training steps, from the backend's events (at most 2,000 points, by step). */
    trainingCurve: jsonb("training_curve").$type<TrainingPoint[]>().notNull().default([]),
    /** The backend's checkpoints, by step. */
    checkpoints: jsonb("checkpoints").$type<TrainingCheckpoint[]>().notNull().default([]),
    /** Hone's own trainers (backend `trainer`): the lease a trainer holds on the training, and until when (leasedBy stays once it ends: who trained it). */
    leaseId: text("lease_id"),
    leasedBy: text("leased_by"),
    leaseExpiresAt: timestamp("lease_expires_at", { withTimezone: true, mode: "date" }),
    /** Asked to stop: the trainer holding the lease is told at its next heartbeat. */
    cancelRequested: boolean("cancel_requested").notNull().default(false),
    /** The last checkpoint a trainer uploaded: a new lease resumes from it. */
    resumeFrom: jsonb("resume_from").$type<{ step: number; files: ArtifactFile[] } | null>(),
    /** The trained weights (adapter or merged model) kept under HONE_ARTIFACTS_DIR, with a sha256 per file. */
    resultFiles: jsonb("result_files").$type<ArtifactFile[] | null>(),
    /** Entries left out because they were longer than maxSeqLength, by split. */
    droppedEntries: jsonb("dropped_entries").$type<{ train: number; test: number } | null>(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex().on(t.projectId, t.slug), index().on(t.datasetId)],
);

/**
 * A small job queue in Postgres. Workers claim due jobs with FOR UPDATE SKIP LOCKED and hold a
 * lease; a job whose worker died is claimed again once its lease runs out.
 */
export const jobs = pgTable(
  "jobs",
  {
    id: text("id").primaryKey(),
    kind: text("kind").notNull(),
    payload: jsonb("payload").notNull(),
    status: text("status").$type<"queued" | "running" | "done" | "failed">().notNull(),
    runAt: timestamp("run_at", { withTimezone: true, mode: "date" }).notNull(),
    attempts: integer("attempts").notNull().default(0),
    maxAttempts: integer("max_attempts").notNull().default(5),
    lockedBy: text("locked_by"),
    lockedUntil: timestamp("locked_until", { withTimezone: true, mode: "date" }),
    lastError: text("last_error"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [index().on(t.status, t.runAt)],
);

/** Hone's own trainers (`hone-trainer work`) as they last said: who they are, what they run on, what they train. */
export const trainers = pgTable(
  "trainers",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    /** The trainer token it works with. */
    keyId: text("key_id").references(() => apiKeys.id, { onDelete: "set null" }),
    name: text("name").notNull(),
    host: text("host").notNull(),
    gpus: jsonb("gpus").$type<{ name: string; memoryBytes: number | null }[]>().notNull().default([]),
    versions: jsonb("versions").$type<Record<string, string>>().notNull().default({}),
    currentModelId: text("current_model_id"),
    lastSeenAt: timestamp("last_seen_at", { withTimezone: true, mode: "date" }).notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex().on(t.projectId, t.name)],
);

/** The progress a trainer reports, a row per step reported: what the model page draws. */
export const trainingEvents = pgTable(
  "training_events",
  {
    modelId: text("model_id")
      .notNull()
      .references(() => models.id, { onDelete: "cascade" }),
    step: integer("step").notNull(),
    totalSteps: integer("total_steps").notNull(),
    loss: doublePrecision("loss"),
    evalLoss: doublePrecision("eval_loss"),
    learningRate: doublePrecision("learning_rate"),
    tokensPerSecond: doublePrecision("tokens_per_second"),
    etaSeconds: doublePrecision("eta_seconds"),
    gpuMemoryBytes: bigint("gpu_memory_bytes", { mode: "number" }),
    at: timestamp("at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (t) => [uniqueIndex().on(t.modelId, t.step)],
);

/**
 * What `hone-trainer sync` last reported of the vLLM server behind a custom provider (kind vllm):
 * the adapters loaded there (Hone's model ids), and the error of its last round. The gateway sends
 * `hone:<slug>` of a trainer model to a server whose fresh report lists it.
 */
export const adapterServings = pgTable("adapter_servings", {
  providerId: text("provider_id")
    .primaryKey()
    .references(() => customProviders.id, { onDelete: "cascade" }),
  projectId: text("project_id")
    .notNull()
    .references(() => projects.id, { onDelete: "cascade" }),
  keyId: text("key_id").references(() => apiKeys.id, { onDelete: "set null" }),
  host: text("host"),
  vllmUrl: text("vllm_url").notNull(),
  loaded: jsonb("loaded").$type<string[]>().notNull().default([]),
  error: text("error"),
  reportedAt: timestamp("reported_at", { withTimezone: true, mode: "date" }).notNull(),
});
