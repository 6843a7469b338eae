// The usage page's state in the URL (range, bucket, split), parsed leniently: a hand-edited or old
// link with an unknown value falls back to the default instead of failing. No heavy imports here:
// the router loads this module with the shell.

export const RANGE_PRESETS = [
  { value: "24h", label: "24 hours", days: 1 },
  { value: "7d", label: "7 days", days: 7 },
  { value: "30d", label: "30 days", days: 30 },
  { value: "90d", label: "90 days", days: 90 },
] as const;
export type RangePreset = (typeof RANGE_PRESETS)[number]["value"];
export type UsageRange = RangePreset | "custom";
export type UsageBucket = "hour" | "day";
export type UsageSplit = "none" | "model" | "provider" | "source" | "api" | "tag" | "route" | "routeVersion";

export type UsageSearch = {
  range?: UsageRange;
  /** Custom range, UTC days YYYY-MM-DD, both included. */
  from?: string;
  to?: string;
  bucket?: UsageBucket;
  split?: UsageSplit;
  /** The tag key to split by (split=tag). */
  tag?: string;
};

const RANGES: readonly string[] = [...RANGE_PRESETS.map((r) => r.value), "custom"];
const SPLITS: readonly string[] = ["none", "model", "provider", "source", "api", "tag", "route", "routeVersion"];
const DAY_RE = /^\d{4}-\d{2}-\d{2}$/;

export const DAY_MS = 86_400_000;
export const HOUR_MS = 3_600_000;
/** The API's limits (src/limits.ts): hourly buckets up to 31 days, daily up to 400. */
export const MAX_HOURLY_DAYS = 31;
export const MAX_DAILY_DAYS = 400;

const str = (v: unknown) => (typeof v === "string" ? v : typeof v === "number" ? String(v) : undefined);

export function parseUsageSearch(raw: Record<string, unknown>): UsageSearch {
  const out: UsageSearch = {};
  const range = str(raw.range);
  if (range && RANGES.includes(range)) out.range = range as UsageRange;
  const from = str(raw.from);
  if (from && DAY_RE.test(from)) out.from = from;
  const to = str(raw.to);
  if (to && DAY_RE.test(to)) out.to = to;
  const bucket = str(raw.bucket);
  if (bucket === "hour" || bucket === "day") out.bucket = bucket;
  const split = str(raw.split);
  if (split && SPLITS.includes(split)) out.split = split as UsageSplit;
  const tag = str(raw.tag)?.trim();
  if (tag) out.tag = tag.slice(0, 200);
  return out;
}

export const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export type ResolvedRange = {
  range: UsageRange;
  from: Date;
  to: Date;
  days: number;
  bucket: UsageBucket;
  /** Whether hourly buckets are allowed for this range. */
  hourAllowed: boolean;
  /** The custom range's days as shown in the inputs. */
  customFrom: string;
  customTo: string;
  /** Why the range cannot be asked for (custom ranges typed by hand), or null. */
  problem: string | null;
};

/**
 * The range to ask for. Presets end at the next full hour after `now` (so calls made a moment ago
 * are in) and reach back their length; a custom range is whole UTC days, both ends included.
 */
export function resolveRange(search: UsageSearch, now: number): ResolvedRange {
  const range = search.range ?? "7d";
  const today = utcDay(now);
  const customTo = search.to ?? today;
  const customFrom = search.from ?? utcDay(Date.parse(`${customTo}T00:00:00Z`) - 6 * DAY_MS);
  let from: number;
  let to: number;
  let problem: string | null = null;
  if (range === "custom") {
    from = Date.parse(`${customFrom}T00:00:00Z`);
    to = Date.parse(`${customTo}T00:00:00Z`) + DAY_MS;
    if (!Number.isFinite(from) || !Number.isFinite(to)) {
      problem = "Choose both days of the range.";
      from = now - 7 * DAY_MS;
      to = now;
    } else if (to <= from) problem = "The range must end on or after the day it starts.";
    else if (to - from > MAX_DAILY_DAYS * DAY_MS) problem = `A range may span at most ${MAX_DAILY_DAYS} days.`;
  } else {
    const preset = RANGE_PRESETS.find((r) => r.value === range)!;
    to = Math.ceil((now + 1) / HOUR_MS) * HOUR_MS;
    from = to - preset.days * DAY_MS;
  }
  const days = (to - from) / DAY_MS;
  const hourAllowed = days <= MAX_HOURLY_DAYS;
  const wanted = search.bucket ?? (days <= 2 ? "hour" : "day");
  const bucket = wanted === "hour" && !hourAllowed ? "day" : wanted;
  return { range, from: new Date(from), to: new Date(to), days, bucket, hourAllowed, customFrom, customTo, problem };
}

/** Every bucket start (UTC-aligned, as the API's) from the one holding `from` to before `to`. */
export function bucketStarts(from: Date, to: Date, bucket: UsageBucket): number[] {
  const size = bucket === "hour" ? HOUR_MS : DAY_MS;
  const out: number[] = [];
  for (let t = Math.floor(from.getTime() / size) * size; t < to.getTime() && out.length < 10_000; t += size) out.push(t);
  return out;
}

/** A bucket's label: the UTC day, or day and hour. */
export function bucketLabel(start: number, bucket: UsageBucket): string {
  const iso = new Date(start).toISOString();
  return bucket === "day" ? iso.slice(0, 10) : `${iso.slice(5, 10)} ${iso.slice(11, 16)}`;
}
