import { z } from "zod";
import { MAX_ID_LENGTH, MAX_IDS_PER_REQUEST, MAX_TAG_KEY_LENGTH, MAX_TAG_VALUE_LENGTH, MAX_TAGS } from "../../core/limits";
import { AssistantMessage, ChatMessage, Tool, ToolChoice, modelName } from "../chat";

const TEMPLATE_VARIABLES = ["messages", "tools", "tool_choice", "output"] as const;

const CriterionPrompt = z
  .string()
  .min(1, "prompt must not be empty")
  .max(50_000)
  .refine((p) => /\{\{\s*output\s*\}\}/.test(p), "prompt must use the {{output}} variable (the completion being judged)")
  .refine(
    (p) => {
      const vars = [...p.matchAll(/\{\{\s*([^}\s]+)\s*\}\}/g)].map((m) => m[1]!);
      return vars.every((v) => (TEMPLATE_VARIABLES as readonly string[]).includes(v));
    },
    `prompt may only use the variables ${TEMPLATE_VARIABLES.map((v) => `{{${v}}}`).join(", ")}`,
  );

const JudgeModel = modelName("judgeModel");

export const CreateCriterionInput = z.strictObject({
  name: z.string().trim().min(1, "name must not be empty").max(200),
  judgeModel: JudgeModel,
  prompt: CriterionPrompt,
});
export type CreateCriterionInput = z.input<typeof CreateCriterionInput>;

export const CreateCriterionVersionInput = z.strictObject({
  criterionId: z.string().min(1).max(MAX_ID_LENGTH),
  judgeModel: JudgeModel.nullish(),
  prompt: CriterionPrompt.nullish(),
});
export type CreateCriterionVersionInput = z.input<typeof CreateCriterionVersionInput>;

export const CriterionIdInput = z.strictObject({ criterionId: z.string().min(1).max(120) });
export type CriterionIdInput = z.input<typeof CriterionIdInput>;

const JudgeInputSchema = z.strictObject({
  messages: z.array(ChatMessage).default([]),
  tools: z.array(Tool).nullish(),
  tool_choice: ToolChoice.nullish(),
});

/** POST /criteria/judge */
export const JudgeRequest = z.strictObject({
  criterion_id: z.string({ error: "criterion_id is required" }).min(1).max(MAX_ID_LENGTH),
  input: JudgeInputSchema.optional(),
  output: AssistantMessage,
});
export type JudgeRequest = z.input<typeof JudgeRequest>;

export type CriterionVersion = { version: number; judgeModel: string; prompt: string; createdAt: Date };
export type Criterion = { id: string; name: string; latestVersion: number; createdAt: Date; versions: CriterionVersion[] };

/** A criterion reference resolved to one immutable version. */
export type ResolvedCriterion = { criterionId: string; version: number; judgeModel: string; prompt: string };

export type JudgeUsage = { prompt_tokens: number; completion_tokens: number; total_tokens: number };
export type Verdict = { judgement: "PASS" | "FAIL"; score: number; explanation: string; usage: JudgeUsage };

export const AlignmentLine = z.strictObject({
  messages: z.array(ChatMessage).min(1, "messages must hold at least the output"),
  tools: z.array(Tool).nullish(),
  tool_choice: ToolChoice.nullish(),
  response_format: z.unknown().optional(),
  split: z.enum(["TRAIN", "TEST"]).optional(),
  metadata: z
    .record(z.string().max(MAX_TAG_KEY_LENGTH), z.string().max(MAX_TAG_VALUE_LENGTH))
    .refine((m) => Object.keys(m).length <= MAX_TAGS, `at most ${MAX_TAGS} metadata keys`)
    .optional(),
  judgement: z.enum(["PASS", "FAIL"]).nullish(),
});

export const ImportAlignmentSetInput = z.strictObject({ criterionId: z.string().min(1).max(MAX_ID_LENGTH), jsonl: z.string() });
export type ImportAlignmentSetInput = z.input<typeof ImportAlignmentSetInput>;

export const LabelAlignmentRowInput = z.strictObject({ rowId: z.string().min(1).max(MAX_ID_LENGTH), judgement: z.enum(["PASS", "FAIL"]).nullable() });
export type LabelAlignmentRowInput = z.input<typeof LabelAlignmentRowInput>;

export const RunAlignmentInput = z.strictObject({
  criterionId: z.string().min(1).max(MAX_ID_LENGTH),
  version: z.number().int().min(1).max(2_147_483_647).nullish(),
});
export type RunAlignmentInput = z.input<typeof RunAlignmentInput>;

export const AlignmentTaskIdInput = z.strictObject({ id: z.string().min(1).max(MAX_ID_LENGTH) });
export type AlignmentTaskIdInput = z.input<typeof AlignmentTaskIdInput>;

/**
 * Adds rows to an alignment set from what the project already has: logged calls (the request's
 * messages, the response's first choice as the output to judge) and dataset entries (the last
 * assistant turn as the output). An optional label applies to all of them.
 */
export const ImportAlignmentRowsInput = z
  .strictObject({
    criterionId: z.string().min(1).max(MAX_ID_LENGTH),
    logIds: z.array(z.string().min(1).max(MAX_ID_LENGTH)).max(MAX_IDS_PER_REQUEST, `at most ${MAX_IDS_PER_REQUEST} log ids per request`).nullish(),
    entryIds: z.array(z.string().min(1).max(MAX_ID_LENGTH)).max(MAX_IDS_PER_REQUEST, `at most ${MAX_IDS_PER_REQUEST} entry ids per request`).nullish(),
    judgement: z.enum(["PASS", "FAIL"]).nullish(),
  })
  .refine((v) => (v.logIds?.length ?? 0) + (v.entryIds?.length ?? 0) > 0, { message: "give logIds or entryIds to import", path: ["logIds"] });
export type ImportAlignmentRowsInput = z.input<typeof ImportAlignmentRowsInput>;

export const DeleteAlignmentRowsInput = z.strictObject({
  criterionId: z.string().min(1).max(MAX_ID_LENGTH),
  rowIds: z
    .array(z.string().min(1).max(MAX_ID_LENGTH))
    .min(1, "rowIds must name at least one row")
    .max(MAX_IDS_PER_REQUEST, `at most ${MAX_IDS_PER_REQUEST} row ids per request`),
});
export type DeleteAlignmentRowsInput = z.input<typeof DeleteAlignmentRowsInput>;

/** The judge's verdict on a row for one version: verdict null with error when the judge call failed. */
export type AlignmentVerdict = { version: number; verdict: "PASS" | "FAIL" | null; explanation: string | null; error: string | null; judgedAt: Date };

export type AlignmentTask = {
  id: string;
  criterionId: string;
  version: number;
  status: "QUEUED" | "RUNNING" | "DONE" | "ERROR";
  progress: { done: number; total: number };
  /** Set once the run is DONE. */
  stats: AlignmentStats | null;
  errorMessage: string | null;
  createdAt: Date;
  updatedAt: Date;
};

export type AlignmentRow = {
  id: string;
  messages: unknown[];
  tools: unknown[] | null;
  toolChoice: unknown;
  output: Record<string, unknown>;
  judgement: "PASS" | "FAIL" | null;
  createdAt: Date;
};

export type AlignmentStats = {
  version: number;
  /** Rows with both a human label and a judge verdict. */
  rows: number;
  precision: number | null;
  recall: number | null;
  f1: number | null;
  truePositives: number;
  falsePositives: number;
  falseNegatives: number;
  trueNegatives: number;
  /** Rows whose judge call failed. */
  judgeErrors: number;
  warning: string | null;
};
