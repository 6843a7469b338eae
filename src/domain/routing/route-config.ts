import { z } from "zod";
import { MAX_ID_LENGTH, MAX_TAG_KEY_LENGTH } from "../../core/limits";
import { modelName } from "../chat";

// What a route is made of, as it is stored and as the verbs accept it.

export const ROUTE_LIMITS = { groups: 5, targets: 10 } as const;

export const RouteTarget = z.strictObject({
  /** Any model string Hone accepts (not another route). */
  model: modelName("model"),
  /** Percent of the group's calls (a group's weights sum to 100; a target at 0 is not called). */
  weight: z.number().int().min(0).max(100),
  /** Longest wait for this target's answer (a stream's first byte); absent: HONE_UPSTREAM_TIMEOUT_MS. */
  timeoutMs: z.number().int().min(100).max(3_600_000).nullish(),
  /** The rollout version this target serves (e.g. v1, v2): logs, filters and figures are split by it. */
  version: z.string().min(1).max(64).nullish(),
});

export const RouteGroup = z
  .strictObject({
    targets: z.array(RouteTarget).min(1).max(ROUTE_LIMITS.targets, `at most ${ROUTE_LIMITS.targets} targets per group`),
    /** weighted (default): a draw by weight; least-busy: the fewest calls in flight per weight on this process. */
    balance: z.enum(["weighted", "least-busy"]).default("weighted"),
  })
  .superRefine((g, c) => {
    const sum = g.targets.reduce((s, t) => s + t.weight, 0);
    if (sum !== 100) c.addIssue({ code: "custom", path: ["targets"], message: `the weights of a group must sum to 100 (these sum to ${sum})` });
  });

export const RouteConfig = z.strictObject({
  /** Tried in order: the next group only when every target of this one has failed. */
  groups: z.array(RouteGroup).min(1).max(ROUTE_LIMITS.groups, `at most ${ROUTE_LIMITS.groups} fallback groups`),
  /** Attempts per target, the first included (absent: HONE_RETRY_ATTEMPTS). */
  attempts: z.number().int().min(1).max(10).nullish(),
  /** A tag key (e.g. user): calls with the same value of it keep the same target. */
  stickyTag: z.string().min(1).max(MAX_TAG_KEY_LENGTH).nullish(),
  /** A sample of the answers judged by these criteria (off the answer's path): each version's pass rate. */
  judge: z
    .strictObject({
      criteria: z.array(z.string().min(1).max(MAX_ID_LENGTH)).min(1).max(3, "at most 3 criteria"),
      /** The share of answers judged, 0 to 1 (each judged answer costs a judge call per criterion). */
      sampleRate: z.number().min(0).max(1),
      /** Alert (the project's webhook) when the last hour's pass rate falls below this share. */
      alertBelow: z.number().gt(0).max(1).nullish(),
      /** Judged answers in that hour before an alert is raised (default 20). */
      alertMinJudged: z.number().int().min(1).max(10_000).nullish(),
    })
    .nullish(),
});
export type RouteConfig = z.output<typeof RouteConfig>;
