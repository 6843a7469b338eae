// The logs page's URL state: every filter lives in the search params, so a shared link reproduces
// the view. Plain TypeScript (no zod): the router's shell imports this parser.
import type { RouterInputs } from "../../lib/trpc";

export type LogFilterInput = NonNullable<RouterInputs["logs"]["list"]["filter"]>;

export const STATUS_CLASSES = ["2xx", "3xx", "4xx", "5xx", "none"] as const;
export type StatusClass = (typeof STATUS_CLASSES)[number];
export const SOURCES = ["gateway", "report", "report-anthropic"] as const;
export type Source = (typeof SOURCES)[number];
export const RANGES = ["1h", "24h", "7d", "30d", "custom"] as const;
export type Range = (typeof RANGES)[number];
export const RANGE_LABELS: Record<Range, string> = { "1h": "Last hour", "24h": "Last 24 hours", "7d": "Last 7 days", "30d": "Last 30 days", custom: "Custom" };
const RANGE_MS: Record<Exclude<Range, "custom">, number> = { "1h": 3_600_000, "24h": 86_400_000, "7d": 7 * 86_400_000, "30d": 30 * 86_400_000 };

export type LogsSearch = {
  model?: string;
  status?: number;
  statusClass?: StatusClass;
  source?: Source;
  provider?: string;
  cache?: "hit" | "miss";
  range?: Range;
  /** Custom range bounds, ISO 8601. */
  from?: string;
  to?: string;
  /** Tag filters, each "key=value". */
  tag?: string[];
  completionId?: string;
  q?: string;
};

const MAX_TEXT = 500;
const text = (v: unknown): string | undefined => {
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  if (typeof v !== "string") return undefined;
  const s = v.slice(0, MAX_TEXT);
  return s.length ? s : undefined;
};
const oneOf = <T extends string>(values: readonly T[], v: unknown): T | undefined =>
  typeof v === "string" && (values as readonly string[]).includes(v) ? (v as T) : undefined;
const isoDate = (v: unknown): string | undefined => {
  const s = text(v);
  if (!s) return undefined;
  const d = new Date(s);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
};

/** The route's `validateSearch`: anything unknown or malformed is dropped, never an error. */
export function parseLogsSearch(raw: Record<string, unknown>): LogsSearch {
  const out: LogsSearch = {};
  const model = text(raw.model);
  if (model) out.model = model;
  const status = typeof raw.status === "string" ? Number(raw.status) : raw.status;
  if (typeof status === "number" && Number.isInteger(status) && status >= 0 && status <= 999) out.status = status;
  const statusClass = oneOf(STATUS_CLASSES, raw.statusClass);
  if (statusClass) out.statusClass = statusClass;
  const source = oneOf(SOURCES, raw.source);
  if (source) out.source = source;
  const provider = text(raw.provider);
  if (provider) out.provider = provider.slice(0, 100);
  const cache = oneOf(["hit", "miss"] as const, raw.cache);
  if (cache) out.cache = cache;
  const range = oneOf(RANGES, raw.range);
  if (range) out.range = range;
  const from = isoDate(raw.from);
  const to = isoDate(raw.to);
  if (range === "custom") {
    if (from) out.from = from;
    if (to) out.to = to;
  }
  const tags = (Array.isArray(raw.tag) ? raw.tag : raw.tag === undefined ? [] : [raw.tag])
    .map(text)
    .filter((t): t is string => !!t && t.includes("=") && t.indexOf("=") > 0)
    .slice(0, 20);
  if (tags.length) out.tag = [...new Set(tags)];
  const completionId = text(raw.completionId);
  if (completionId) out.completionId = completionId;
  const q = text(raw.q);
  if (q) out.q = q;
  return out;
}

export function splitTag(tag: string): { key: string; value: string } {
  const i = tag.indexOf("=");
  return { key: tag.slice(0, i), value: tag.slice(i + 1) };
}

export const hasFilters = (s: LogsSearch) => Object.keys(s).length > 0;

/** The API filter for a search; relative ranges end at `now`. */
export function toLogFilter(s: LogsSearch, now: number = Date.now()): LogFilterInput {
  const f: LogFilterInput = {};
  if (s.model) f.model = s.model;
  if (s.status !== undefined) f.statusCode = s.status;
  if (s.statusClass) f.statusClass = s.statusClass;
  if (s.source) f.source = s.source;
  if (s.provider) f.provider = s.provider;
  if (s.cache) f.cacheHit = s.cache === "hit";
  if (s.range && s.range !== "custom") f.from = new Date(now - RANGE_MS[s.range]).toISOString();
  if (s.range === "custom") {
    if (s.from) f.from = s.from;
    if (s.to) f.to = s.to;
  }
  if (s.tag?.length) f.metadata = s.tag.map(splitTag).map(({ key, value }) => ({ key, equals: value }));
  if (s.completionId) f.completionId = s.completionId;
  if (s.q) f.search = s.q;
  return f;
}
