import { z } from "zod";
import { MAX_ID_LENGTH } from "../../core/limits";
import { modelName } from "../chat";

/** The pseudo-model that answers with the dataset's own reference output. */
export const DATASET_MODEL = "dataset";

export const CreateEvaluationInput = z.strictObject({
  /** A name to find it by; default "<models> on <dataset>". */
  name: z
    .string()
    .trim()
    .min(1, "name must not be empty")
    .max(200, "name may be at most 200 characters")
    .regex(/^[^\p{Cc}]*$/u, "name must not hold control characters")
    .nullish(),
  datasetId: z.string().min(1),
  models: z.array(modelName("model")).min(1, "models must name at least one model").max(10),
  criterionIds: z.array(z.string().min(1)).min(1, "criterionIds must name at least one criterion").max(10),
});
export type CreateEvaluationInput = z.input<typeof CreateEvaluationInput>;

export const EvaluationIdInput = z.strictObject({ id: z.string().min(1).max(MAX_ID_LENGTH) });
export type EvaluationIdInput = z.input<typeof EvaluationIdInput>;

export const ListEvaluationResultsInput = EvaluationIdInput.extend({
  model: z.string().nullish(),
  /** Results per page (default and ceiling HONE_MAX_PAGE_SIZE), by entry then model. */
  first: z.number().int().min(1, "first must be at least 1").nullish(),
  /** The cursor of the previous page's last result: `<entryId>/<model>` (its endCursor). */
  after: z
    .string()
    .min(1)
    .max(MAX_ID_LENGTH * 2)
    .nullish(),
});
export type ListEvaluationResultsInput = z.input<typeof ListEvaluationResultsInput>;

/** The evaluation entry by entry, a keyset page of entries at a time. */
export const ListEvaluationEntriesInput = EvaluationIdInput.extend({
  first: z.number().int().min(1).max(100).optional(),
  after: z.string().max(200).nullish(),
  /** Only entries where some model's output or verdict differs in pass/fail, or some error occurred. */
  onlyDifferent: z.boolean().optional(),
});
export type ListEvaluationEntriesInput = z.input<typeof ListEvaluationEntriesInput>;

/** One dataset entry of an evaluation: its input and reference (when the entry still exists) and every model's result. */
export type EvaluationEntry = {
  entryId: string;
  input: unknown[] | null;
  reference: Record<string, unknown> | null;
  results: EvaluationResult[];
};

/** Two models of the evaluation to compare. */
export const HeadToHeadInput = EvaluationIdInput.extend({ modelA: z.string(), modelB: z.string() });
export type HeadToHeadInput = z.input<typeof HeadToHeadInput>;

export type EvaluationStatus = "QUEUED" | "RUNNING" | "DONE" | "CANCELLED" | "ERROR";

export type Evaluation = {
  id: string;
  name: string;
  datasetId: string | null;
  models: string[];
  criteria: { criterionId: string; version: number }[];
  status: EvaluationStatus;
  progress: { done: number; total: number };
  errorMessage: string | null;
  createdAt: Date;
  updatedAt: Date;
};

export type Verdicts = Record<string, { status: "success"; score: number; explanation: string } | { status: "error"; errorCode: string; errorMessage: string }>;

export type EvaluationResult = {
  entryId: string;
  model: string;
  output: Record<string, unknown> | null;
  error: string | null;
  inputTokens: number | null;
  outputTokens: number | null;
  costUsd: number | null;
  latencyMs: number | null;
  verdicts: Verdicts;
};

/** Per model and criterion. */
export type EvaluationSummaryRow = {
  model: string;
  criterionId: string;
  /** Share of successful verdicts that passed (null when none succeeded). */
  passRate: number | null;
  meanScore: number | null;
  judged: number;
  judgeErrors: number;
  outputErrors: number;
  inputTokens: number;
  outputTokens: number;
  /** The priced answers' cost; null when none had a price (unknown, never $0). */
  costUsd: number | null;
  /** Answers with no price (their model has none): left out of costUsd, which is then a lower bound. */
  unpricedCalls: number;
  meanLatencyMs: number | null;
};

export type HeadToHead = {
  modelA: string;
  modelB: string;
  aWins: number;
  bWins: number;
  ties: number;
  /** Entries where the two differ: one passes a criterion the other fails. */
  entries: { entryId: string; a: EvaluationResult; b: EvaluationResult; scoreA: number; scoreB: number }[];
};
