import { z } from "zod";
import { MAX_ID_LENGTH, MAX_MODEL_LENGTH } from "../../core/limits";
import { FilterDate } from "../filter-date";

/** The rates an override may set, $ per million tokens, by the price table's keys (pricing/price-usage.ts). */
export const RATE_KEYS = [
  "input_mtok",
  "cache_read_mtok",
  "cache_write_mtok",
  "cache_write_1h_mtok",
  "input_audio_mtok",
  "output_mtok",
  "output_reasoning_mtok",
  "output_audio_mtok",
] as const;

const Rate = z.number().min(0, "a rate is at least 0").max(1_000_000, "a rate is at most 1,000,000 $ per million tokens");

export const OverrideRates = z.strictObject(
  Object.fromEntries(RATE_KEYS.map((k) => [k, Rate.optional()])) as Record<(typeof RATE_KEYS)[number], z.ZodOptional<typeof Rate>>,
  {
    error: (i) => (i.code === "unrecognized_keys" ? `rates may only set ${RATE_KEYS.join(", ")}` : undefined),
  },
);

export const CreatePriceOverrideInput = z
  .strictObject({
    /** The model as the logs name it: `openai:gpt-4o`, `anthropic:claude-sonnet-4-5`, `hone:support-v1`, `my-vllm:llama-3`. */
    model: z.string().min(1).max(MAX_MODEL_LENGTH),
    /** From when it applies (calls made at or after it); absent: to every call. */
    effectiveFrom: FilterDate.nullish(),
    /** The model's own rates ($ per million tokens by class) ... */
    rates: OverrideRates.nullish(),
    /** ... or the price table's rates times this (0.8: a 20% discount). */
    multiplier: z.number().gt(0, "multiplier must be more than 0").max(100).nullish(),
    /** A price per hour of call time (a self-hosted or serverless deployment billed by the second), alone or with rates. */
    usdPerHour: z.number().min(0, "usdPerHour is at least 0").max(1_000_000).nullish(),
    note: z.string().max(500).nullish(),
  })
  .superRefine((v, c) => {
    const hasRates = v.rates != null && Object.values(v.rates).some((r) => r !== undefined);
    const hasMultiplier = v.multiplier != null;
    if (hasMultiplier && (hasRates || v.usdPerHour != null))
      c.addIssue({ code: "custom", path: ["multiplier"], message: "a multiplier goes alone: give it, or rates and/or usdPerHour" });
    else if (!hasMultiplier && !hasRates && v.usdPerHour == null)
      c.addIssue({ code: "custom", path: ["rates"], message: "give rates, usdPerHour, or a multiplier" });
  });
export type CreatePriceOverrideInput = z.input<typeof CreatePriceOverrideInput>;

export const PriceOverrideIdInput = z.strictObject({ id: z.string().min(1).max(MAX_ID_LENGTH) });

export type PriceOverride = {
  id: string;
  model: string;
  effectiveFrom: Date;
  rates: Record<string, number> | null;
  multiplier: number | null;
  usdPerHour: number | null;
  note: string | null;
  createdAt: Date;
};
