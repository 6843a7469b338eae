// The logs page's URL state: every filter lives in the search params, so a shared link reproduces
// the view. Plain TypeScript (no zod): the router's shell imports this parser.
import type { RouterInputs } from "../../lib/trpc";

export type LogFilterInput = NonNullable<RouterInputs["logs"]["list"]["filter"]>;

export const STATUS_CLASSES = ["2xx", "3xx", "4xx", "5xx", "none"] as const;
export type StatusClass = (typeof STATUS_CLASSES)[number];
export const SOURCES = ["gateway", "report", "report-anthropic", "otel", "internal"] as const;
export type Source = (typeof SOURCES)[number];
export const SOURCE_LABELS: Record<string, string> = {
  gateway: "gateway",
  report: "report",
  "report-anthropic": "report (Anthropic)",
  otel: "OpenTelemetry",
  internal: "internal (Hone's own)",
};
export const APIS = ["chat", "responses", "messages", "embeddings"] as const;
export type Api = (typeof APIS)[number];
export const API_LABELS: Record<string, string> = {
  chat: "chat completions",
  responses: "responses",
  messages: "messages (Anthropic)",
  embeddings: "embeddings",
};
export const RANGES = ["1h", "24h", "7d", "30d", "custom"] as const;
export type Range = (typeof RANGES)[number];
export const RANGE_LABELS: Record<Range, string> = { "1h": "Last hour", "24h": "Last 24 hours", "7d": "Last 7 days", "30d": "Last 30 days", custom: "Custom" };
const RANGE_MS: Record<Exclude<Range, "custom">, number> = { "1h": 3_600_000, "24h": 86_400_000, "7d": 7 * 86_400_000, "30d": 30 * 86_400_000 };

export type LogsSearch = {
  model?: string;
  status?: number;
  statusClass?: StatusClass;
  source?: Source;
  /** The protocol the client spoke. */
  api?: Api;
  provider?: string;
  cache?: "hit" | "miss";
  range?: Range;
  /** Custom range bounds, ISO 8601. */
  from?: string;
  to?: string;
  /** Tag filters, each "key=value". */
  tag?: string[];
  completionId?: string;
  /** Calls to this route (its slug), and of them those this rollout version answered. */
  route?: string;
  routeVersion?: string;
  q?: string;
  /** 1: Hone's own calls (judges, evaluations, playground...) are listed too; absent: only the application's. */
  internal?: 1;
  /** 1: only the calls Hone refused before any upstream (limits, budgets, allowed models, scopes). */
  refused?: 1;
  /** 1: only the logs in which masking replaced something (docs/masking.md). */
  masked?: 1;
  /** "Is not" filters (one value each, as the API takes them). */
  notModel?: string;
  notStatus?: number;
  notStatusClass?: StatusClass;
  notSource?: Source;
  notApi?: Api;
  notProvider?: string;
  /** Tag pairs a log must not have, each "key=value". */
  notTag?: string[];
  /** Tag keys a log must not have at all. */
  noTag?: string[];
};

/** The fields a value in a row can filter by (and exclude). */
export type FilterField = "model" | "status" | "source" | "api" | "provider" | "tag";

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
const statusCode = (v: unknown): number | undefined => {
  const n = typeof v === "string" ? Number(v) : v;
  return typeof n === "number" && Number.isInteger(n) && n >= 0 && n <= 999 ? n : undefined;
};
const list = (v: unknown): string[] => (Array.isArray(v) ? v : v === undefined ? [] : [v]).map(text).filter((t): t is string => !!t);
/** "key=value" pairs with a non-empty key, at most 20, each once. */
const pairs = (v: unknown): string[] | undefined => {
  const out = [...new Set(list(v).filter((t) => t.indexOf("=") > 0))].slice(0, 20);
  return out.length ? out : undefined;
};

const capped = (n: number) => (v: unknown) => text(v)?.slice(0, n);
const among =
  <T extends string>(values: readonly T[]) =>
  (v: unknown) =>
    oneOf(values, v);
const flag = (v: unknown): 1 | undefined => (v === 1 || v === "1" || v === true || v === "true" ? 1 : undefined);
const tagKeys = (v: unknown): string[] | undefined => {
  const keys = [...new Set(list(v).map((k) => k.slice(0, 200)))].slice(0, 20);
  return keys.length ? keys : undefined;
};

/** How each search param is read, in the order a link writes them. */
const PARAMS: { [K in keyof LogsSearch]-?: (v: unknown) => LogsSearch[K] } = {
  model: text,
  status: statusCode,
  statusClass: among(STATUS_CLASSES),
  source: among(SOURCES),
  api: among(APIS),
  provider: capped(100),
  cache: among(["hit", "miss"] as const),
  range: among(RANGES),
  from: isoDate,
  to: isoDate,
  tag: pairs,
  completionId: text,
  route: capped(100),
  routeVersion: capped(64),
  q: text,
  internal: flag,
  refused: flag,
  masked: flag,
  notModel: text,
  notStatus: statusCode,
  notStatusClass: among(STATUS_CLASSES),
  notSource: among(SOURCES),
  notApi: among(APIS),
  notProvider: capped(100),
  notTag: pairs,
  noTag: tagKeys,
};

/** The route's `validateSearch`: anything unknown or malformed is dropped, never an error. */
export function parseLogsSearch(raw: Record<string, unknown>): LogsSearch {
  const out: Record<string, unknown> = {};
  for (const [key, read] of Object.entries(PARAMS) as [string, (v: unknown) => unknown][]) {
    const value = read(raw[key]);
    if (value !== undefined) out[key] = value;
  }
  // A custom range's bounds only.
  if (out.range !== "custom") {
    delete out.from;
    delete out.to;
  }
  return out as LogsSearch;
}

export function splitTag(tag: string): { key: string; value: string } {
  const i = tag.indexOf("=");
  return { key: tag.slice(0, i), value: tag.slice(i + 1) };
}

/** Whether anything narrows the list (showing Hone's own calls widens it: not a filter). */
export const hasFilters = (s: LogsSearch) => Object.keys(s).some((k) => k !== "internal");

/** Whether Hone's own calls are listed: asked for, or a filter that can only match them. */
export const showsInternal = (s: LogsSearch) => s.internal === 1 || s.source === "internal";

/** The API filter for a search; relative ranges end at `now`. */
export function toLogFilter(s: LogsSearch, now: number = Date.now()): LogFilterInput {
  const f: LogFilterInput = {};
  if (s.model) f.model = s.model;
  if (s.status !== undefined) f.statusCode = s.status;
  if (s.statusClass) f.statusClass = s.statusClass;
  if (s.source) f.source = s.source;
  if (s.api) f.api = s.api;
  if (s.provider) f.provider = s.provider;
  if (s.cache) f.cacheHit = s.cache === "hit";
  if (s.range && s.range !== "custom") f.from = new Date(now - RANGE_MS[s.range]).toISOString();
  if (s.range === "custom") {
    if (s.from) f.from = s.from;
    if (s.to) f.to = s.to;
  }
  if (s.tag?.length) f.tags = s.tag.map(splitTag).map(({ key, value }) => ({ key, equals: value }));
  if (s.completionId) f.completionId = s.completionId;
  if (s.route) f.route = s.route;
  if (s.routeVersion) f.routeVersion = s.routeVersion;
  if (s.q) f.search = s.q;
  if (s.refused) f.refused = true;
  if (s.masked) f.masked = true;
  // The application's calls only, unless Hone's own are asked for.
  if (!showsInternal(s)) f.internal = false;
  const not: NonNullable<LogFilterInput["not"]> = {};
  if (s.notModel) not.model = s.notModel;
  if (s.notStatus !== undefined) not.statusCode = s.notStatus;
  if (s.notStatusClass) not.statusClass = s.notStatusClass;
  if (s.notSource) not.source = s.notSource;
  if (s.notApi) not.api = s.notApi;
  if (s.notProvider) not.provider = s.notProvider;
  if (Object.keys(not).length) f.not = not;
  if (s.notTag?.length) f.tagsNot = s.notTag.map(splitTag).map(({ key, value }) => ({ key, equals: value }));
  if (s.noTag?.length) f.tagsAbsent = s.noTag;
  return f;
}

/** The search patch that filters by a value ("is"), or excludes it ("is not"). */
export function filterPatch(s: LogsSearch, field: FilterField, value: string, exclude: boolean): Partial<LogsSearch> {
  switch (field) {
    case "model":
      return exclude ? { notModel: value, model: s.model === value ? undefined : s.model } : { model: value, notModel: undefined };
    case "status": {
      const code = statusCode(value);
      if (code === undefined) return exclude ? { notStatusClass: "none" } : { statusClass: "none", status: undefined };
      return exclude ? { notStatus: code, status: s.status === code ? undefined : s.status } : { status: code, notStatus: undefined };
    }
    case "source": {
      const src = oneOf(SOURCES, value);
      if (!src) return {};
      return exclude ? { notSource: src, source: s.source === src ? undefined : s.source } : { source: src, notSource: undefined };
    }
    case "api": {
      const api = oneOf(APIS, value);
      if (!api) return {};
      return exclude ? { notApi: api, api: s.api === api ? undefined : s.api } : { api, notApi: undefined };
    }
    case "provider":
      return exclude ? { notProvider: value, provider: s.provider === value ? undefined : s.provider } : { provider: value, notProvider: undefined };
    case "tag": {
      const tags = s.tag ?? [];
      const notTags = s.notTag ?? [];
      if (exclude) {
        const rest = tags.filter((t) => t !== value);
        return { notTag: [...new Set([...notTags, value])].slice(0, 20), tag: rest.length ? rest : undefined };
      }
      const rest = notTags.filter((t) => t !== value);
      return { tag: [...new Set([...tags, value])].slice(0, 20), notTag: rest.length ? rest : undefined };
    }
  }
}

/** A search with a patch applied: undefined values are dropped (they leave the URL). */
export function patchSearch(prev: LogsSearch, patch: Partial<LogsSearch>): LogsSearch {
  const next: Record<string, unknown> = { ...prev, ...patch };
  for (const k of Object.keys(next)) if (next[k] === undefined) delete next[k];
  return next as LogsSearch;
}
