import { z } from "zod";
import { MAX_ID_LENGTH, MAX_MODEL_LENGTH } from "../../core/limits";
import { FilterDate } from "../logs";

export const OnlineEvalId = z.string().min(1).max(MAX_ID_LENGTH);
/** A criterion reference: its id, or `<id>@v<N>` to keep one version. */
const CriterionRef = z
  .string()
  .min(1)
  .max(MAX_ID_LENGTH + 12);
const Criteria = z.array(CriterionRef).min(1, "give at least one criterion").max(3, "at most 3 criteria");
const SampleRate = z.number().gt(0, "sampleRate must be above 0 (pause it to stop judging)").max(1, "sampleRate is a share of the calls, at most 1");
const AlertBelow = z.number().gt(0, "alertBelow is a pass rate above 0").max(1, "alertBelow is a pass rate, at most 1");
const AlertMinJudged = z.number().int().min(1).max(10_000);

export const CreateOnlineEvalInput = z.strictObject({
  /** The model judged, as a client names it (`gpt-4o-mini`, `anthropic:claude-sonnet-4-5`, `hone:my-fine-tune`). */
  model: z.string().trim().min(1, "model must not be empty").max(MAX_MODEL_LENGTH),
  criteria: Criteria,
  sampleRate: SampleRate,
  /** Alert (the project's webhook) when the last hour's pass rate falls below this share. */
  alertBelow: AlertBelow.nullish(),
  /** Judged calls in that hour before an alert is raised (default 20). */
  alertMinJudged: AlertMinJudged.nullish(),
  paused: z.boolean().nullish(),
});
export type CreateOnlineEvalInput = z.input<typeof CreateOnlineEvalInput>;

export const UpdateOnlineEvalInput = z.strictObject({
  id: OnlineEvalId,
  criteria: Criteria.nullish(),
  sampleRate: SampleRate.nullish(),
  /** A threshold, or null to stop alerting (absent: unchanged). */
  alertBelow: AlertBelow.nullish(),
  alertMinJudged: AlertMinJudged.nullish(),
  status: z.enum(["ACTIVE", "PAUSED"]).nullish(),
});
export type UpdateOnlineEvalInput = z.input<typeof UpdateOnlineEvalInput>;

export const OnlineEvalIdInput = z.strictObject({ id: OnlineEvalId });

/** What the gateway needs of an active online evaluation, by model. */
export type ActiveEval = { id: string; model: string; criteria: string[]; sampleRate: number; alertBelow: number | null; alertMinJudged: number };

export type OnlineEval = {
  id: string;
  /** As logs spell it: `openai:gpt-4o-mini`. */
  model: string;
  criteria: string[];
  sampleRate: number;
  alertBelow: number | null;
  alertMinJudged: number;
  status: "ACTIVE" | "PAUSED";
  /** Over the last 24 hours: calls judged (a verdict given), and the share that passed every criterion (null: none). */
  judged: number;
  passRate: number | null;
  createdAt: Date;
  updatedAt: Date;
};

export const PassRatesInput = z
  .strictObject({
    from: FilterDate.nullish(),
    to: FilterDate.nullish(),
    /** What the figures are split by: the model that answered, the route called, or the route's rollout version. */
    groupBy: z.enum(["none", "model", "route", "routeVersion"], { error: "groupBy must be none, model, route or routeVersion" }).default("model"),
  })
  .optional();
export type PassRatesInput = z.input<typeof PassRatesInput>;

export type PassRateFigures = {
  /** Answers with a verdict. */
  judged: number;
  passed: number;
  /** passed / judged (null: none judged). */
  passRate: number | null;
  /** Samples no judge could judge (a failed or timed-out judge call). */
  errors: number;
};
/** `group`: the model, the route, or `<route>@<version>` (null: none, e.g. groupBy none, or a route target without a version). */
export type PassRateGroup = PassRateFigures & { group: string | null };
export type PassRates = {
  from: Date;
  to: Date;
  /** The series' bucket, in ms (1 minute over an hour, 1 hour over two days, a day beyond). */
  bucketMs: number;
  /** One point per (bucket, group) with a judged sample, oldest first. */
  series: (PassRateGroup & { start: Date })[];
  /** Per group over the whole range, most judged first. */
  groups: PassRateGroup[];
};
