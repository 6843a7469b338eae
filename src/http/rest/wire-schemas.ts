import { z } from "zod";

// The REST responses of SPEC.md as zod schemas, for the OpenAPI document (requests are documented
// from the very schemas the domain validates them with).

export const ErrorEnvelope = z.object({
  message: z.string(),
  code: z.string(),
  issues: z.array(z.object({ message: z.string(), path: z.array(z.union([z.string(), z.number()])).optional() })),
});
export const ChatErrorEnvelope = ErrorEnvelope.extend({
  error: z.object({ message: z.string(), type: z.string(), code: z.unknown(), param: z.unknown() }),
});

export const DatasetWire = z.object({
  object: z.literal("dataset"),
  id: z.string(),
  name: z.string(),
  created: z.string().describe("ISO 8601"),
  updated: z.string().describe("ISO 8601"),
  dataset_entry_count: z.number().int(),
  fine_tune_count: z.number().int(),
});
export const listOf = <T extends z.ZodType>(item: T) => z.object({ object: z.literal("list"), data: z.array(item) });
/** A paged list: `has_more` when the page is full (ask again with `after` = its last id). */
export const pageOf = <T extends z.ZodType>(item: T) => z.object({ object: z.literal("list"), data: z.array(item), has_more: z.boolean() });
export const DeletionWire = z.object({ id: z.string(), object: z.enum(["dataset", "model"]), deleted: z.literal(true) });
export const EntriesCreationWire = z.object({
  object: z.literal("dataset.entries.creation"),
  entries_created: z.number().int(),
  errors: listOf(z.object({ object: z.literal("dataset.entries.creation.error"), entry_index: z.number().int(), message: z.string() })),
});
export const ImportWire = z.object({
  object: z.literal("dataset.import"),
  entries_created: z.number().int(),
  error_count: z.number().int(),
  errors: listOf(z.object({ object: z.literal("dataset.import.error"), line: z.number().int(), message: z.string() })),
});
export const ExportRowWire = z.object({
  messages: z.array(z.unknown()),
  tools: z.array(z.unknown()).nullable(),
  tool_choice: z.unknown(),
  split: z.enum(["TRAIN", "TEST"]),
  metadata: z.record(z.string(), z.string()),
  response_format: z.unknown().optional(),
  verdicts: z
    .array(
      z.object({
        criterion_id: z.string(),
        version: z.number().int(),
        judgement: z.enum(["PASS", "FAIL"]).nullable(),
        score: z.number().nullable(),
        explanation: z.string().nullable(),
        error: z.string().nullable(),
        judged_at: z.string(),
      }),
    )
    .optional()
    .describe("only with includeVerdicts=true"),
});
export const StatusOk = z.object({ status: z.literal("ok") });
export const MatchedLogs = z.object({ matchedLogs: z.number().int() });
/** One line of a log export (JSONL): the log's columns and payloads, as tRPC logs.exportPage gives them. */
export const LogExportRowWire = z.union([
  z.looseObject({ id: z.string(), model: z.string().nullable(), statusCode: z.number().int().nullable(), createdAt: z.string() }),
  // The last line when reading failed midway: the file says it is incomplete.
  z.object({ error: z.object({ message: z.string() }) }),
]);
export const LogsDeletionWire = z.object({ deleted: z.number().int(), done: z.boolean() });
export const CheckCacheWire = z.object({ respPayload: z.null() });
export const LatestLoggedCall = z
  .object({
    createdAt: z.string(),
    cacheHit: z.boolean(),
    statusCode: z.number().nullable(),
    errorMessage: z.string().nullable(),
    reqPayload: z.unknown(),
    respPayload: z.unknown(),
    tags: z.record(z.string(), z.string()),
    metadata: z.record(z.string(), z.string()),
  })
  .nullable();
export const JudgeWire = z.object({
  score: z.number(),
  explanation: z.string(),
  usage: z.object({ prompt_tokens: z.number(), completion_tokens: z.number(), total_tokens: z.number() }),
});
/** op-criteria's results, keyed by criterion id (without @vN): a chat choice's, a Message's, a Response's. */
export const CriteriaResultsWire = z.record(
  z.string(),
  z.union([
    z.object({ status: z.literal("success"), score: z.number(), explanation: z.string() }),
    z.object({ status: z.literal("error"), errorCode: z.string(), errorMessage: z.string() }),
  ]),
);

export const ChatCompletionWire = z.looseObject({
  id: z.string(),
  object: z.literal("chat.completion"),
  created: z.number(),
  model: z.string(),
  choices: z.array(
    z.looseObject({
      index: z.number().int(),
      finish_reason: z.string().nullable(),
      message: z.looseObject({ role: z.literal("assistant"), content: z.string().nullable(), refusal: z.string().nullable().optional() }),
      logprobs: z.unknown().optional(),
      criteria_results: CriteriaResultsWire.optional(),
    }),
  ),
  usage: z.looseObject({ prompt_tokens: z.number(), completion_tokens: z.number(), total_tokens: z.number() }).nullish(),
});
export const EmbeddingListWire = z.looseObject({
  object: z.literal("list"),
  data: z.array(
    z.looseObject({
      object: z.literal("embedding"),
      index: z.number().int(),
      embedding: z.union([z.array(z.number()), z.string()]).describe("numbers, or base64 of little-endian float32 with encoding_format: base64"),
    }),
  ),
  model: z.string(),
  usage: z.looseObject({ prompt_tokens: z.number(), total_tokens: z.number() }).nullish(),
});
export const ModelWire = z.object({
  id: z.string().describe("the model's slug"),
  name: z.string(),
  object: z.literal("model"),
  description: z.string(),
  created: z.string(),
  updated: z.string(),
  hone: z.object({
    baseModel: z.string(),
    hyperparameters: z.record(z.string(), z.unknown()),
    method: z.enum(["sft", "dpo"]).describe("sft, or dpo: trained on the dataset's preference pairs"),
    dpoBeta: z.number().nullable(),
    status: z.enum(["PENDING", "QUEUED", "TRAINING", "DEPLOYED", "ERROR"]),
    datasetId: z.string().nullable(),
    errorMessage: z.string().nullable(),
  }),
  contextWindow: z.number().nullable(),
  maxCompletionTokens: z.number().nullable(),
  capabilities: z.array(z.enum(["chat", "tools", "json"])),
  pricing: z.object({ chatIn: z.number(), chatOut: z.number() }).nullable().describe("USD per million tokens"),
  owned_by: z.string(),
});
export const FineTuneCreated = z.object({ id: z.string() });

export const PriceOverrideWire = z.object({
  object: z.literal("price_override"),
  id: z.string(),
  model: z.string(),
  effective_from: z.string(),
  rates: z.record(z.string(), z.number()).nullable(),
  multiplier: z.number().nullable(),
  usd_per_hour: z.number().nullable(),
  note: z.string().nullable(),
  created: z.string(),
});
export const PriceOverrideDeletionWire = z.object({ id: z.string(), object: z.literal("price_override"), deleted: z.literal(true) });
export const CostRecalculationWire = z.object({
  object: z.literal("cost_recalculation"),
  id: z.string(),
  status: z.enum(["QUEUED", "RUNNING", "DONE", "ERROR"]),
  total: z.number().int(),
  done: z.number().int(),
  changed: z.number().int(),
  error_message: z.string().nullable(),
  created: z.string(),
  updated: z.string(),
});
export const InvoiceLineWire = z.object({
  object: z.literal("invoice_line"),
  day: z.string(),
  provider: z.string().nullable(),
  model: z.string().nullable(),
  token_class: z.string(),
  tokens: z.number(),
  cost_usd: z.number().nullable(),
  /** Pass as `after` for the lines that follow this one. */
  cursor: z.string(),
});

/** A line of the preference export (OpenAI's and Together's DPO format). */
export const PreferenceRowWire = z.object({
  input: z.object({ messages: z.array(z.unknown()), tools: z.array(z.unknown()).optional() }),
  preferred_output: z.array(z.unknown()).describe("The entry's own final answer"),
  non_preferred_output: z.array(z.unknown()).describe("One of its rejected outputs"),
});
