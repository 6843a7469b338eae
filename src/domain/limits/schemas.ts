import { z } from "zod";
import { MAX_ID_LENGTH, MAX_TAG_KEY_LENGTH, MAX_TAG_VALUE_LENGTH } from "../../core/limits";

/** The quantities a limit caps, each counted in its own window. */
export const METRICS = ["requests", "tokens", "usd_day", "usd_month"] as const;
export type Metric = (typeof METRICS)[number];

/** The largest caps a limit may set: past them a cap is a mistake, not a limit. */
export const MAX_REQUESTS_PER_MINUTE = 10_000_000;
export const MAX_TOKENS_PER_MINUTE = 2_000_000_000;
export const MAX_COST_USD = 100_000_000;
/** What a cost cap does with a call Hone cannot price. */
export const UNPRICED_CALLS = ["refuse", "allow"] as const;
/** Limits one project may hold. */
export const MAX_LIMITS = 1_000;

const cap = (name: string, max: number, int: boolean) => {
  const n = z.number({ error: `${name} must be a number` });
  return (int ? n.int(`${name} must be a whole number`) : n)
    .gt(0, `${name} must be more than 0 (remove the limit to lift it; revoke the key to stop it)`)
    .max(max, `${name} must be at most ${max.toLocaleString("en-US")}`)
    .nullish();
};

/**
 * Sets the limits of one subject, replacing what it had: the project, a key (keyId), a tag value
 * (tagKey and tagValue), or each value of a tag on its own (tagKey alone: each `user`, each
 * `prompt_id`). A cap left out (or null) is not limited; at least one must be given.
 */
export const SetLimitInput = z
  .strictObject({
    scope: z.enum(["project", "key", "tag"], { error: "scope must be project, key or tag" }).describe("project, key or tag"),
    keyId: z.string().min(1).max(MAX_ID_LENGTH).nullish(),
    tagKey: z.string().trim().min(1, "tagKey must not be empty").max(MAX_TAG_KEY_LENGTH).nullish(),
    tagValue: z
      .string()
      .min(1, "tagValue must not be empty")
      .max(MAX_TAG_VALUE_LENGTH)
      .nullish()
      .describe("Absent: each value of tagKey has the limits on its own"),
    requestsPerMinute: cap("requestsPerMinute", MAX_REQUESTS_PER_MINUTE, true),
    tokensPerMinute: cap("tokensPerMinute", MAX_TOKENS_PER_MINUTE, true),
    costPerDayUsd: cap("costPerDayUsd", MAX_COST_USD, false),
    costPerMonthUsd: cap("costPerMonthUsd", MAX_COST_USD, false),
    /** Under a cost cap, a call to a model Hone has no price for: refused (the default), or admitted. */
    unpricedCalls: z
      .enum(UNPRICED_CALLS, { error: `unpricedCalls must be "refuse" or "allow"` })
      .nullish()
      .describe("refuse (default) or allow: what a cost cap does with a call Hone cannot price"),
  })
  .superRefine((v, c) => {
    if (v.scope === "key" && !v.keyId) c.addIssue({ code: "custom", path: ["keyId"], message: "a key limit names its key: keyId" });
    if (v.scope !== "key" && v.keyId) c.addIssue({ code: "custom", path: ["keyId"], message: `keyId only goes with scope "key"` });
    if (v.scope === "tag" && !v.tagKey) c.addIssue({ code: "custom", path: ["tagKey"], message: "a tag limit names its tag: tagKey" });
    if (v.scope !== "tag" && (v.tagKey || v.tagValue))
      c.addIssue({ code: "custom", path: ["tagKey"], message: `tagKey and tagValue only go with scope "tag"` });
    if (v.requestsPerMinute == null && v.tokensPerMinute == null && v.costPerDayUsd == null && v.costPerMonthUsd == null)
      c.addIssue({
        code: "custom",
        path: ["requestsPerMinute"],
        message: "give at least one of requestsPerMinute, tokensPerMinute, costPerDayUsd, costPerMonthUsd",
      });
  })
  .meta({ id: "SetLimitInput" });
export type SetLimitInput = z.input<typeof SetLimitInput>;

export const LimitIdInput = z.strictObject({ id: z.string().min(1, "must not be empty").max(MAX_ID_LENGTH) });

export type Limit = {
  id: string;
  scope: "project" | "key" | "tag";
  keyId: string | null;
  tagKey: string | null;
  tagValue: string | null;
  requestsPerMinute: number | null;
  tokensPerMinute: number | null;
  costPerDayUsd: number | null;
  costPerMonthUsd: number | null;
  /** Under a cost cap, a call Hone cannot price: refused, or admitted (and counted at what it turns out to cost). */
  unpricedCalls: "refuse" | "allow";
  createdAt: Date;
  updatedAt: Date;
};

/** One capped quantity of a limit in its current window, for one subject value. */
export type LimitSpend = {
  limitId: string;
  metric: Metric;
  /** The tag value of a per-value limit; null otherwise. */
  value: string | null;
  cap: number;
  /** Settled by calls that ended. */
  spent: number;
  /** Taken by the processes to admit calls with (in-flight reservations and unused slices included). */
  reserved: number;
  windowStart: Date;
  windowEnd: Date;
};

export const LimitSpendInput = z
  .strictObject({
    /** Only this limit's counters. */
    limitId: z.string().min(1).max(MAX_ID_LENGTH).nullish(),
    /** Tag values of a per-value limit: the first so many by spend. */
    first: z.number().int().min(1).max(1_000).nullish(),
  })
  .optional();

/** A project's limits arranged for the gateway: by subject. */
export type ProjectLimits = {
  project: Limit | null;
  byKey: Map<string, Limit>;
  /** By tag key: the limit on each of its values, and limits on single values. */
  byTag: Map<string, { each: Limit | null; values: Map<string, Limit> }>;
  empty: boolean;
};
