import { z } from "zod";
import { MAX_ID_LENGTH } from "../../core/limits";
import { modelName } from "../chat";

export const MODEL_STATUSES = ["PENDING", "QUEUED", "TRAINING", "DEPLOYED", "ERROR"] as const;
export type ModelStatus = (typeof MODEL_STATUSES)[number];

const ModelSlug = z
  .string()
  .regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, "slug must be 1-64 lowercase letters, digits, dots, dashes or underscores, starting with a letter or digit");

/**
 * A model named by its slug in a lookup: any string an older slug rule may have allowed, so a
 * name that is not stored is NOT_FOUND rather than a validation error.
 */
export const ModelSlugInput = z.strictObject({ slug: z.string().min(1).max(MAX_ID_LENGTH) });
export type ModelSlugInput = z.input<typeof ModelSlugInput>;

export const ListModelsInput = z.strictObject({
  datasetId: z.string().min(1).max(MAX_ID_LENGTH).optional(),
  /** A page (list-page.ts): at most HONE_MAX_PAGE_SIZE, newest first, after the last id of the previous one. */
  first: z.number().int().min(1, "first must be at least 1").nullish(),
  after: z.string().min(1).max(MAX_ID_LENGTH).nullish(),
});
export type ListModelsInput = z.input<typeof ListModelsInput>;

const auto = <T extends z.ZodType>(t: T) => z.union([t, z.literal("auto")]);

/** OpenAI's supervised fine-tuning hyperparameters. */
export const OpenAiHyperparameters = z.strictObject({
  n_epochs: auto(z.number().int().min(1).max(50)).optional(),
  batch_size: auto(z.number().int().min(1).max(256)).optional(),
  learning_rate_multiplier: auto(z.number().positive().max(10)).optional(),
});

/** Together's LoRA fine-tuning hyperparameters. */
export const TogetherHyperparameters = z.strictObject({
  n_epochs: z.number().int().min(1).max(20).optional(),
  learning_rate: z.number().positive().max(0.01).optional(),
  batch_size: z.union([z.number().int().min(1).max(256), z.literal("max")]).optional(),
  lora_r: z.number().int().min(1).max(64).optional(),
  lora_alpha: z.number().int().min(1).max(128).optional(),
  warmup_ratio: z.number().min(0).max(1).optional(),
});

/** Fireworks' LoRA fine-tuning settings (its own names), and the account to train in when the key sees several. */
export const FireworksHyperparameters = z.strictObject({
  epochs: z.number().int().min(1).max(100).optional(),
  learningRate: z.number().positive().max(0.1).optional(),
  loraRank: z.number().int().min(1).max(64).optional(),
  maxContextLength: z.number().int().min(256).max(131_072).optional(),
  batchSize: z.number().int().min(1).max(1_048_576).optional(),
  gradientAccumulationSteps: z.number().int().min(1).max(1024).optional(),
  learningRateWarmupSteps: z.number().int().min(0).max(100_000).optional(),
  accountId: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, "accountId is a Fireworks account id")
    .optional(),
});

/**
 * Hone's own trainers (`trainingConfig.provider: "trainer"`): what `hone-trainer work` trains with.
 * LoRA by default; `lora: null` is a full fine-tune. Checked here so a bad value is a 400 naming the
 * field when the model is created, not a failure on the trainer later.
 */
export const TrainerSettings = z.strictObject({
  epochs: z.number().int().min(1, "epochs must be at least 1").max(100, "epochs must be at most 100").default(3),
  learningRate: z.number().gt(0, "learningRate must be above 0").max(1, "learningRate must be at most 1").default(2e-4),
  batchSize: z.number().int().min(1, "batchSize must be at least 1").max(1024, "batchSize must be at most 1024").default(4),
  gradientAccumulationSteps: z.number().int().min(1).max(1024).default(1),
  /** Entries longer than this (in the base tokenizer's tokens, chat template included) are left out and counted. */
  maxSeqLength: z.number().int().min(16, "maxSeqLength must be at least 16").max(131_072, "maxSeqLength must be at most 131072").default(2048),
  seed: z
    .number()
    .int()
    .min(0)
    .max(2 ** 31 - 1)
    .default(42),
  /** Steps between uploaded checkpoints: a trainer that dies loses at most these. */
  checkpointEvery: z.number().int().min(1).max(1_000_000).default(50),
  lora: z
    .strictObject({
      r: z.number().int().min(1, "lora.r must be at least 1").max(512, "lora.r must be at most 512").default(16),
      alpha: z.number().int().min(1).max(4096).default(32),
      dropout: z.number().min(0).max(0.9, "lora.dropout must be at most 0.9").default(0.05),
      targetModules: z
        .array(z.string().regex(/^[A-Za-z0-9_.]{1,64}$/, "a target module is a module name such as q_proj"))
        .min(1)
        .max(32)
        .default(["q_proj", "k_proj", "v_proj", "o_proj"]),
    })
    .nullable()
    .default({ r: 16, alpha: 32, dropout: 0.05, targetModules: ["q_proj", "k_proj", "v_proj", "o_proj"] }),
  /** The result: a LoRA adapter (default), or the adapter merged into the base (a full model). */
  export: z.enum(["adapter", "merged"], { error: "export must be adapter or merged" }).default("adapter"),
});
export type TrainerSettings = z.output<typeof TrainerSettings>;

/** A base model for Hone's trainers: a Hugging Face id the trainer finds in its cache, or a path on the trainer's machine. */
export const OpenBaseModel = z
  .string()
  .min(1)
  .max(300)
  .regex(/^[^\s\p{Cc}]+$/u, "baseModel is a Hugging Face id (org/name) or a path, without spaces");

/** POST /models: `trainingConfig` names the provider, the base model and the hyperparameters. */
export const CreateModelInput = z.strictObject({
  datasetId: z.string().min(1),
  slug: ModelSlug,
  description: z.string().max(1000).nullish(),
  /** Leave out entries whose latest verdict of any of these criteria is FAIL. */
  excludeFailing: z.array(z.string().min(1)).max(10).nullish(),
  /** sft (default): train on the TRAIN entries; dpo: on their preference pairs (each rejected output against the entry's own). */
  method: z.enum(["sft", "dpo"], { error: "method must be sft or dpo" }).nullish(),
  /** DPO's beta, above 0 and at most 2 (absent: the backend's default). */
  beta: z.number().gt(0, "beta must be above 0").max(2, "beta must be at most 2").nullish(),
  trainingConfig: z.looseObject({
    provider: z.enum(["openai", "together", "fireworks", "openpipe", "trainer"], {
      error: "trainingConfig.provider must be openai, together, fireworks, openpipe (the operator's open-model backend) or trainer",
    }),
    baseModel: modelName("baseModel"),
  }),
});
export type CreateModelInput = z.input<typeof CreateModelInput>;

/** POST /unstable/finetune/create */
export const CreateFineTuneInput = z.strictObject({
  datasetId: z.string().min(1),
  slug: ModelSlug,
  baseModel: modelName("baseModel"),
  overrides: z.record(z.string(), z.unknown()).nullish(),
});
export type CreateFineTuneInput = z.input<typeof CreateFineTuneInput>;

export type Model = {
  id: string;
  slug: string;
  description: string | null;
  datasetId: string | null;
  baseModel: string;
  backend: "openai" | "together" | "fireworks" | "trainer";
  hyperparameters: Record<string, unknown>;
  /** sft or dpo (trained on preference pairs), with DPO's beta. */
  method: "sft" | "dpo";
  dpoBeta: number | null;
  /** The pruning rules it trained and serves with, and the tokens they removed from its training file. */
  pruningRules: string[];
  prunedTokens: number | null;
  /** Loss over training steps (the backend's metrics), and its checkpoints. */
  trainingCurve: { step: number; trainLoss: number | null; validLoss: number | null }[];
  checkpoints: { id: string; step: number; model: string | null; trainLoss: number | null; validLoss: number | null; at: string | null }[];
  status: ModelStatus;
  errorMessage: string | null;
  /** A failed model's kind of failure and what to check (null unless ERROR). */
  failure: { kind: "key" | "base_url" | "backend" | "data" | "trainer" | "cancelled" | "unknown"; hint: string } | null;
  upstreamModelId: string | null;
  trainingEntries: number | null;
  excludeFailing: string[];
  /** Each status the model went through, oldest first; a failure carries the backend's message. */
  events: { status: ModelStatus; at: Date; message: string | null }[];
  createdAt: Date;
  updatedAt: Date;
};
