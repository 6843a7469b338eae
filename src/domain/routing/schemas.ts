import { z } from "zod";
import { MAX_ID_LENGTH } from "../../core/limits";
import { checkWindow, windowFields } from "../stats-window";
import { RouteConfig } from "./route-config";

export { MAX_STATS_DAYS, StatsWindowInput } from "../stats-window";

export const RouteSlug = z
  .string()
  .regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, "slug must be 1-64 lowercase letters, digits, dots, dashes or underscores, starting with a letter or digit");

export const CreateRouteInput = RouteConfig.extend({ slug: RouteSlug });
export type CreateRouteInput = z.input<typeof CreateRouteInput>;

/** The route named by slug gets this whole configuration (what it had is kept for rollback). */
export const UpdateRouteInput = RouteConfig.extend({ slug: z.string().min(1).max(MAX_ID_LENGTH) });
export type UpdateRouteInput = z.input<typeof UpdateRouteInput>;

export const RouteSlugInput = z.strictObject({ slug: z.string().min(1).max(MAX_ID_LENGTH) });
export type RouteSlugInput = z.input<typeof RouteSlugInput>;

export const RouteStatsInput = z.strictObject({ slug: z.string().min(1).max(MAX_ID_LENGTH), ...windowFields }).superRefine(checkWindow);
export type RouteStatsInput = z.input<typeof RouteStatsInput>;

export type Route = RouteConfig & {
  id: string;
  slug: string;
  revision: number;
  /** What the last change replaced: rollback restores it. */
  previous: RouteConfig | null;
  createdAt: Date;
  updatedAt: Date;
};

/** One rollout version's figures over a window, from the route's logs. */
export type RouteVersionStats = {
  version: string | null;
  requests: number;
  errors: number;
  errorRate: number;
  latencyP50Ms: number | null;
  latencyP95Ms: number | null;
  /** The priced calls' cost; null when none had a price (unknown, never $0). */
  costUsd: number | null;
  /** Answered calls with no price for their model: not in costUsd. */
  unpricedCalls: number;
  /** Of the route's judged sample (its `judge`): answers judged, and the share that passed every criterion (null: none judged). */
  judged: number;
  passRate: number | null;
};

/** A route's figures per version and time bucket over a window. */
export type RouteSeries = {
  from: Date;
  to: Date;
  /** The length of each bucket (1 minute to 1 day, so a window has at most 60). */
  bucketMs: number;
  /** Ordered by bucket, then version; buckets with neither calls nor verdicts are left out. */
  points: (RouteVersionStats & { start: Date })[];
};
