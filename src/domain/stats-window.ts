import { z } from "zod";
import { parseInput } from "../core/errors";
import { FilterDate } from "./filter-date";

// The window and the buckets of a figure over time (a route's versions, an online evaluation's pass
// rate): one rule for every area that charts its logs.

/** The longest window figures are computed over (a percentile over every call in it). */
export const MAX_STATS_DAYS = 31;
const DAY_MS = 86_400_000;

export const windowFields = {
  /** The window (default: the last 24 hours). */
  from: FilterDate.nullish(),
  to: FilterDate.nullish(),
};
export const checkWindow = (v: { from?: Date | null; to?: Date | null }, c: z.RefinementCtx) => {
  if (v.from && v.to && v.to.getTime() < v.from.getTime()) c.addIssue({ code: "custom", path: ["to"], message: "to must not be before from" });
  const end = v.to?.getTime() ?? Date.now();
  if (v.from && end - v.from.getTime() > MAX_STATS_DAYS * DAY_MS) {
    c.addIssue({ code: "custom", path: ["from"], message: `the window may span at most ${MAX_STATS_DAYS} days` });
  }
};

/** A window of figures: at most MAX_STATS_DAYS. */
export const StatsWindowInput = z.strictObject(windowFields).superRefine(checkWindow);
export type StatsWindowInput = z.input<typeof StatsWindowInput>;

/** The window of a stats question, checked (at most MAX_STATS_DAYS): `to` (default now) and `from` (default a day before it). */
export function statsWindow(ctx: { deps: { clock(): Date } }, raw: StatsWindowInput): { from: Date; to: Date } {
  const { from, to } = parseInput(StatsWindowInput, raw);
  const end = to ?? ctx.deps.clock();
  return { from: from ?? new Date(end.getTime() - DAY_MS), to: end };
}

/** The bucket sizes a series may use, smallest first: the smallest giving at most MAX_SERIES_BUCKETS is chosen. */
const BUCKETS_MS = [60_000, 300_000, 900_000, 3_600_000, 6 * 3_600_000, DAY_MS];
export const MAX_SERIES_BUCKETS = 60;

/** The bucket a series over this window is cut into: 1 minute over an hour, 1 hour over two days, a day over a month. */
export function seriesBucketMs(window: { from: Date; to: Date }): number {
  const span = Math.max(1, window.to.getTime() - window.from.getTime());
  // A little slack, so "the last hour" asked a few ms late still gets minutes (61 bucket starts at most).
  return BUCKETS_MS.find((b) => span / b <= MAX_SERIES_BUCKETS * 1.01) ?? DAY_MS;
}
