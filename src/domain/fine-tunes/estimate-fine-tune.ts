import { z } from "zod";
import type { Ctx } from "../context";
import { DomainError, parseInput } from "../../core/errors";
import { MAX_ID_LENGTH } from "../../core/limits";
import { resolveCriterion } from "../criteria";
import { findDataset, trainingEntries } from "../datasets";
import { findBaseModel } from "../models";
import { modelName } from "../chat";
import { tokenCounter } from "../token-counter";

export const EstimateFineTuneInput = z.strictObject({
  datasetId: z.string().min(1).max(MAX_ID_LENGTH),
  baseModel: modelName("baseModel"),
  /** Only n_epochs matters to the estimate; the rest are accepted and ignored. */
  hyperparameters: z.looseObject({ n_epochs: z.union([z.number().int().min(1).max(50), z.literal("auto")]).optional() }).nullish(),
  excludeFailing: z.array(z.string().min(1).max(MAX_ID_LENGTH)).max(10).nullish(),
});
export type EstimateFineTuneInput = z.input<typeof EstimateFineTuneInput>;

export type FineTuneEstimate = {
  /** Training examples: TRAIN entries less those excluded by a criterion's FAIL. */
  entries: number;
  tokensPerEpoch: number;
  epochs: number;
  /** tokensPerEpoch x epochs, what the backend bills. */
  trainingTokens: number;
  trainingPerMillion: number;
  estimatedCostUsd: number;
  /** How the numbers were made, for the person reading them. */
  method: string;
};

// OpenAI's "auto" usually trains 3 epochs on small and medium datasets; Together defaults to 1.
const DEFAULT_EPOCHS = { openai: 3, together: 1, fireworks: 1 } as const;
// Each message costs a few tokens of framing (role, separators) besides its text.
const TOKENS_PER_MESSAGE = 4;

function tokensOf(countTokens: (text: string) => number, example: { messages: unknown[]; tools?: unknown[] }): number {
  let n = example.tools?.length ? countTokens(JSON.stringify(example.tools)) : 0;
  for (const raw of example.messages) {
    const m = raw as { content?: unknown; tool_calls?: unknown };
    n += TOKENS_PER_MESSAGE;
    if (typeof m.content === "string") n += countTokens(m.content);
    else if (Array.isArray(m.content)) {
      for (const part of m.content as { type?: string; text?: string }[])
        if (part?.type === "text" && typeof part.text === "string") n += countTokens(part.text);
    }
    if (m.tool_calls) n += countTokens(JSON.stringify(m.tool_calls));
  }
  return n;
}

/**
 * What a fine-tune would cost before it is started: the training examples it would use, their
 * tokens (counted with the o200k_base tokenizer of OpenAI's current models, close for others), the
 * epochs, and the backend's list price per training token.
 */
export async function estimateFineTune(ctx: Ctx, raw: EstimateFineTuneInput): Promise<FineTuneEstimate> {
  const input = parseInput(EstimateFineTuneInput, raw);
  const base = findBaseModel(input.baseModel);
  if (!base) {
    throw new DomainError("VALIDATION", `Unknown base model ${input.baseModel}`, { issues: [{ message: "not in the catalogue", path: ["baseModel"] }] });
  }
  await findDataset(ctx, input.datasetId);
  const exclude: string[] = [];
  for (const ref of input.excludeFailing ?? []) exclude.push((await resolveCriterion(ctx, ref)).criterionId);
  let entries = 0;
  let tokensPerEpoch = 0;
  const countTokens = await tokenCounter();
  for await (const example of trainingEntries(ctx, input.datasetId, exclude)) {
    entries++;
    tokensPerEpoch += tokensOf(countTokens, example);
  }
  const asked = input.hyperparameters?.n_epochs ?? input.hyperparameters?.epochs;
  const epochs = typeof asked === "number" ? asked : DEFAULT_EPOCHS[base.backend];
  const trainingTokens = tokensPerEpoch * epochs;
  return {
    entries,
    tokensPerEpoch,
    epochs,
    trainingTokens,
    trainingPerMillion: base.pricing.training,
    estimatedCostUsd: (trainingTokens * base.pricing.training) / 1e6,
    method: `o200k_base token count plus ${TOKENS_PER_MESSAGE} tokens a message; ${epochs} epoch${epochs === 1 ? "" : "s"}${typeof asked === "number" ? "" : ` (the ${base.backend} default)`}; ${base.backend}'s list price`,
  };
}
