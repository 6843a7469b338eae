import { z } from "zod";
import { MAX_TAG_KEY_LENGTH, MAX_USAGE_DAYS_DAILY, MAX_USAGE_DAYS_HOURLY } from "../../core/limits";
import { FilterDate, LogFilter } from "./inputs";

// What the usage verbs take and answer: shared by logUsage (from the logs) and usageFromRollups
// (from the hourly rollups) without either importing the other's code.

export const DAY_MS = 86_400_000;
const MAX_DAYS = { hour: MAX_USAGE_DAYS_HOURLY, day: MAX_USAGE_DAYS_DAILY } as const;

export const UsageInput = z
  .strictObject({
    /** The range, from (inclusive) to (exclusive), ISO 8601 times. */
    from: FilterDate,
    to: FilterDate,
    bucket: z.enum(["hour", "day"], { error: "bucket must be hour or day" }),
    groupBy: z
      .enum(["none", "model", "provider", "source", "api", "tag", "route", "routeVersion"], {
        error: "groupBy must be none, model, provider, source, api, tag, route or routeVersion",
      })
      .default("none"),
    /** The tag key to split by, with groupBy: "tag" (e.g. prompt_id). */
    tagKey: z.string().min(1).max(MAX_TAG_KEY_LENGTH).nullish(),
    filter: LogFilter.nullish(),
    /**
     * Also sum the token classes of every figure (`classes`; tokens and cost per class). Off by
     * default: over tens of thousands of buckets and groups it is most of the answer's work.
     */
    classes: z.boolean().default(false),
  })
  .superRefine((v, c) => {
    if (v.to.getTime() <= v.from.getTime()) c.addIssue({ code: "custom", path: ["to"], message: "to must be after from" });
    else if (v.to.getTime() - v.from.getTime() > MAX_DAYS[v.bucket] * DAY_MS) {
      c.addIssue({ code: "custom", path: ["to"], message: `a range by ${v.bucket} may span at most ${MAX_DAYS[v.bucket]} days` });
    }
    if (v.groupBy === "tag" && !v.tagKey) c.addIssue({ code: "custom", path: ["tagKey"], message: 'tagKey is required with groupBy: "tag"' });
  });
export type UsageInput = z.input<typeof UsageInput>;

export type UsageFigures = {
  requests: number;
  /** Calls with no status (null or 0) or a status of 400 and above. */
  errors: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  /**
   * Tokens and cost per billed class, summed: `<class>_tokens` and `<class>_usd` (pricing/token-classes.ts),
   * when asked for (`classes: true`; else {}). Logs written before classes were kept add to costUsd but to no class.
   */
  classes: Record<string, number>;
  /** Answered calls with no plain cost (no token counts, or no price for their model). */
  unpriced: number;
  /** Calls Hone refused before any upstream (limits, budgets, allowed models, scopes); they are in `requests` and `errors` too, a folded row of many refusals as one request. */
  refused: number;
  /** Latency percentiles (interpolated) over the calls with a duration; null when none has one. */
  p50Ms: number | null;
  p95Ms: number | null;
};
/** `group` is the model/provider/source/tag value (null: none recorded); `other` marks the fold of the groups past the top 20. */
export type UsageGroup = UsageFigures & { group: string | null; other: boolean };
export type UsagePoint = UsageGroup & { start: Date };
export type Usage = {
  bucket: "hour" | "day";
  from: Date;
  to: Date;
  /** One point per (bucket, group) with at least one call, oldest first; buckets start on UTC hours/days. */
  series: UsagePoint[];
  /** Per group over the whole range, most requests first (none with groupBy: "none"). */
  groups: UsageGroup[];
  totals: UsageFigures;
};

/** The name of the group holding everything past the top MAX_USAGE_GROUPS. */
export const OTHER_GROUP = "other";
