import { z } from "zod";
import { MAX_ID_LENGTH, MAX_TAG_KEY_LENGTH, MAX_TAG_VALUE_LENGTH, MAX_TAGS } from "../../limits";
import { AssistantMessage, ChatMessage, Tool, ToolChoice, modelName } from "../chat/schemas";

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

export const CreateCriterionInput = z.object({
  name: z.string().trim().min(1, "name must not be empty").max(200),
  judgeModel: JudgeModel,
  prompt: CriterionPrompt,
});
export type CreateCriterionInput = z.input<typeof CreateCriterionInput>;

export const CreateCriterionVersionInput = z.object({
  criterionId: z.string().min(1).max(MAX_ID_LENGTH),
  judgeModel: JudgeModel.nullish(),
  prompt: CriterionPrompt.nullish(),
});
export type CreateCriterionVersionInput = z.input<typeof CreateCriterionVersionInput>;

export const CriterionIdInput = z.object({ criterionId: z.string().min(1).max(120) });
export type CriterionIdInput = z.input<typeof CriterionIdInput>;

const JudgeInputSchema = z.object({
  messages: z.array(ChatMessage).default([]),
  tools: z.array(Tool).nullish(),
  tool_choice: ToolChoice.nullish(),
});

/** POST /criteria/judge */
export const JudgeRequest = z.object({
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

export const ImportAlignmentSetInput = z.object({ criterionId: z.string().min(1).max(MAX_ID_LENGTH), jsonl: z.string() });
export type ImportAlignmentSetInput = z.input<typeof ImportAlignmentSetInput>;

export const LabelAlignmentRowInput = z.object({ rowId: z.string().min(1).max(MAX_ID_LENGTH), judgement: z.enum(["PASS", "FAIL"]).nullable() });
export type LabelAlignmentRowInput = z.input<typeof LabelAlignmentRowInput>;

export const RunAlignmentInput = z.object({ criterionId: z.string().min(1).max(MAX_ID_LENGTH), version: z.number().int().min(1).max(2_147_483_647).nullish() });
export type RunAlignmentInput = z.input<typeof RunAlignmentInput>;

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
