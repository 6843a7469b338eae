import { type AnyColumn, and, between, eq, gte, inArray, isNull, lt, ne, or, sql, type SQL } from "drizzle-orm";
import { requestLogBodies, requestLogs } from "../../db/schema";
import { DomainError } from "../../core/errors";
import type { LogFilter, StatusClass } from "./inputs";

// Log ids are `log_` + a UUIDv7 in hex, whose first 12 hex digits are the creation time in ms.
// A time is turned into an id bound, so time filters and retention walk the primary key.
export function logIdAt(time: Date): string {
  return `log_${Math.max(0, time.getTime()).toString(16).padStart(12, "0")}`;
}

/** A log's time in ms as SQL, from its id column (UUIDv7: the 12 hex digits after "log_"). */
export const logMsOf = (col: SQL) => sql`('x' || lpad(substr(${col}, 5, 12), 16, '0'))::bit(64)::bigint`;

export const logColumns = {
  id: requestLogs.id,
  source: requestLogs.source,
  internalKind: requestLogs.internalKind,
  api: requestLogs.api,
  provider: requestLogs.provider,
  model: requestLogs.model,
  completionId: requestLogs.completionId,
  statusCode: requestLogs.statusCode,
  errorMessage: requestLogs.errorMessage,
  requestedAt: requestLogs.requestedAt,
  receivedAt: requestLogs.receivedAt,
  durationMs: requestLogs.durationMs,
  inputTokens: requestLogs.inputTokens,
  outputTokens: requestLogs.outputTokens,
  cachedInputTokens: requestLogs.cachedInputTokens,
  cacheWriteTokens: requestLogs.cacheWriteTokens,
  reasoningTokens: requestLogs.reasoningTokens,
  costUsd: requestLogs.costUsd,
  classes: requestLogs.classes,
  priceVersion: requestLogs.priceVersion,
  costFlag: requestLogs.costFlag,
  cacheHit: requestLogs.cacheHit,
  tags: requestLogs.tags,
  createdAt: requestLogs.createdAt,
  warning: requestLogs.warning,
  inputPreview: requestLogs.inputPreview,
  outputPreview: requestLogs.outputPreview,
  reqBytes: requestLogs.reqBytes,
  respBytes: requestLogs.respBytes,
  attempts: requestLogs.attempts,
  route: requestLogs.route,
  routeVersion: requestLogs.routeVersion,
  refusal: requestLogs.refusal,
  refusals: requestLogs.refusals,
  masked: requestLogs.masked,
  masking: requestLogs.masking,
  traceId: requestLogs.traceId,
  spanId: requestLogs.spanId,
  parentSpanId: requestLogs.parentSpanId,
  sessionId: requestLogs.sessionId,
};

/**
 * ` and <column> >= lo and <column> < hi` for a slice of the log ids (a day partition's bounds,
 * from the catalog), added to a statement on either log table: the planner reads that one
 * partition instead of probing every partition for every id.
 */
export function sliceBounds(column: string, slice: { lo: string | null; hi: string | null }): SQL {
  const col = sql.raw(column);
  return sql`${slice.lo !== null ? sql` and ${col} >= ${slice.lo}` : sql``}${slice.hi !== null ? sql` and ${col} < ${slice.hi}` : sql``}`;
}

/**
 * The WHERE conditions of a log filter, always scoped to the project. `within` narrows to an id
 * range (a day partition): it is applied to the bodies' search as well, so both tables are pruned
 * to the same partition.
 */
export function logConditions(
  projectId: string,
  f: Partial<Record<keyof LogFilter, unknown>> | null | undefined,
  within?: { lo: string | null; hi: string | null },
): SQL[] {
  const where: SQL[] = [eq(requestLogs.projectId, projectId)];
  if (within?.lo != null) where.push(gte(requestLogs.id, within.lo));
  if (within?.hi != null) where.push(lt(requestLogs.id, within.hi));
  if (!f) return where;
  if (Array.isArray(f.ids)) where.push(f.ids.length ? inArray(requestLogs.id, f.ids.map(String)) : sql`false`);
  if (f.model != null) where.push(inArray(requestLogs.model, modelSpellings(String(f.model))));
  if (f.statusCode != null) where.push(eq(requestLogs.statusCode, Number(f.statusCode)));
  if (typeof f.statusClass === "string") where.push(statusClassCondition(f.statusClass as StatusClass));
  if (f.completionId != null) where.push(eq(requestLogs.completionId, String(f.completionId)));
  if (f.source != null) where.push(eq(requestLogs.source, String(f.source)));
  if (f.provider != null) where.push(eq(requestLogs.provider, String(f.provider)));
  if (f.cacheHit != null) where.push(eq(requestLogs.cacheHit, Boolean(f.cacheHit)));
  if (f.internal === true) where.push(eq(requestLogs.source, "internal"));
  if (f.internal === false) where.push(ne(requestLogs.source, "internal"));
  if (f.internalKind != null) where.push(eq(requestLogs.internalKind, String(f.internalKind)));
  if (f.api != null) where.push(eq(requestLogs.api, String(f.api)));
  if (f.route != null) where.push(eq(requestLogs.route, String(f.route)));
  if (f.routeVersion != null) where.push(eq(requestLogs.routeVersion, String(f.routeVersion)));
  if (f.refused === true) where.push(sql`${requestLogs.refusal} is not null`);
  if (f.refused === false) where.push(sql`${requestLogs.refusal} is null`);
  if (f.refusal != null) where.push(sql`${requestLogs.refusal} = ${String(f.refusal)}`);
  if (f.masked === true) where.push(sql`${requestLogs.masked} is not null`);
  if (f.masked === false) where.push(sql`${requestLogs.masked} is null`);
  if (f.maskedKind != null) where.push(sql`${requestLogs.masked} ? ${String(f.maskedKind)}`);
  const not = f.not as Record<string, unknown> | null | undefined;
  if (not) {
    // "is not": a log whose column is null differs from every value.
    const differs = (col: AnyColumn, v: unknown) => sql`${col} is distinct from ${v}`;
    if (not.model != null) where.push(sql`(${requestLogs.model} is null or not (${inArray(requestLogs.model, modelSpellings(String(not.model)))}))`);
    if (not.statusCode != null) where.push(differs(requestLogs.statusCode, Number(not.statusCode)));
    if (typeof not.statusClass === "string") where.push(sql`not coalesce(${statusClassCondition(not.statusClass as StatusClass)}, false)`);
    if (not.completionId != null) where.push(differs(requestLogs.completionId, String(not.completionId)));
    if (not.source != null) where.push(differs(requestLogs.source, String(not.source)));
    if (not.provider != null) where.push(differs(requestLogs.provider, String(not.provider)));
    if (not.internalKind != null) where.push(differs(requestLogs.internalKind, String(not.internalKind)));
    if (not.api != null) where.push(differs(requestLogs.api, String(not.api)));
  }
  if (f.traceId != null) where.push(eq(requestLogs.traceId, String(f.traceId)));
  if (f.sessionId != null) where.push(eq(requestLogs.sessionId, String(f.sessionId)));
  if (f.traced === true || f.lastInTrace === true) where.push(sql`${requestLogs.traceId} is not null`);
  if (f.traced === false) where.push(sql`${requestLogs.traceId} is null`);
  // The last call of its trace: no call of the same trace that started later, or started in the
  // same instant and ended later (an SDK's clock may tell only milliseconds), the id breaking ties
  // (ids are dated when the call was made, to a fraction of the millisecond where it was known).
  if (f.lastInTrace === true) {
    where.push(
      sql`not exists (select 1 from request_logs later where later.project_id = ${requestLogs.projectId} and later.trace_id = ${requestLogs.traceId} and (coalesce(later.requested_at, 'epoch'::timestamptz), coalesce(later.received_at, later.requested_at, 'epoch'::timestamptz), later.id) > (coalesce(${requestLogs.requestedAt}, 'epoch'::timestamptz), coalesce(${requestLogs.receivedAt}, ${requestLogs.requestedAt}, 'epoch'::timestamptz), ${requestLogs.id}))`,
    );
  }
  if (f.from instanceof Date) where.push(gte(requestLogs.id, logIdAt(f.from)));
  if (f.to instanceof Date) where.push(lt(requestLogs.id, logIdAt(new Date(f.to.getTime() + 1))));
  const meta = f.tags as { key: string; equals: string }[] | null | undefined;
  if (meta?.length) {
    // One containment test, served by the GIN index on metadata.
    const wanted = Object.fromEntries(meta.map((m) => [m.key, m.equals]));
    where.push(sql`${requestLogs.tags} @> ${JSON.stringify(wanted)}::text::jsonb`);
  }
  const metaNot = f.tagsNot as { key: string; equals: string }[] | null | undefined;
  for (const m of metaNot ?? []) where.push(sql`not (${requestLogs.tags} @> ${JSON.stringify({ [m.key]: m.equals })}::text::jsonb)`);
  const absent = f.tagsAbsent as string[] | null | undefined;
  for (const key of absent ?? []) where.push(sql`not (${requestLogs.tags} ? ${key})`);
  if (typeof f.search === "string") {
    // search_text is stored lowercased: a LIKE on it is case-insensitive and cheap.
    const pattern = `%${f.search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    // search_text: the messages' text (migration 20261124040306), trigram-indexed where pg_trgm is.
    // The bodies are partitioned like the logs: the same id bounds prune them to the same days.
    const lo = [within?.lo, f.from instanceof Date ? logIdAt(f.from) : null]
      .filter((x): x is string => typeof x === "string")
      .sort()
      .at(-1);
    const hi = [within?.hi, f.to instanceof Date ? logIdAt(new Date(f.to.getTime() + 1)) : null].filter((x): x is string => typeof x === "string").sort()[0];
    const bounds = sql`${lo !== undefined ? sql` and b.log_id >= ${lo}` : sql``}${hi !== undefined ? sql` and b.log_id < ${hi}` : sql``}`;
    where.push(sql`${requestLogs.id} in (select b.log_id from ${requestLogBodies} b where b.search_text like ${pattern}${bounds})`);
  }
  return where;
}

/**
 * The spellings a model filter matches. Logs store one spelling, `provider:model` (a bare name is
 * `openai:<name>`, or `anthropic:<name>` in Anthropic reports); a filter by the bare name finds it
 * under any provider, as older logs stored it bare.
 */
export function modelSpellings(model: string): string[] {
  if (model.includes(":") && !model.startsWith("ft:")) return [model];
  return [model, `openai:${model}`, `anthropic:${model}`, `gemini:${model}`];
}

/** `none`: no HTTP status recorded (null, or 0 as some clients report a call that got no response). */
export function statusClassCondition(c: StatusClass): SQL {
  if (c === "none") return or(isNull(requestLogs.statusCode), eq(requestLogs.statusCode, 0))!;
  const base = Number(c[0]) * 100;
  return between(requestLogs.statusCode, base, base + 99);
}

export function encodeLogCursor(id: string): string {
  return Buffer.from(id).toString("base64url");
}

export function decodeLogCursor(cursor: string): string {
  const id = Buffer.from(cursor, "base64url").toString("utf8");
  if (!/^log_[0-9a-f]{32}$/.test(id)) {
    throw new DomainError("VALIDATION", "Input validation failed", { issues: [{ message: "after: not a cursor returned by this API", path: ["after"] }] });
  }
  return id;
}

export const whereAll = (conds: SQL[]) => and(...conds)!;

/**
 * Whether a usage split's group value is among the kept (top) ones, never null: the usage answers
 * keep MAX_USAGE_GROUPS groups and fold the rest into "other". `top` may hold null (no value).
 */
export function inTopGroups(expr: SQL, top: readonly (string | null)[]): SQL {
  const named = top.filter((g): g is string => g !== null);
  const inNamed = named.length
    ? sql`${expr} in (${sql.join(
        named.map((g) => sql`${g}`),
        sql`, `,
      )})`
    : sql`false`;
  return sql`(case when ${expr} is null then ${top.includes(null)} else ${inNamed} end)`;
}

/** The rows of a raw `execute` result, whichever driver ran it (postgres-js: an array; PGlite: `{rows}`). */
export function resultRows<T>(result: unknown): T[] {
  if (Array.isArray(result)) return result as T[];
  const rows = (result as { rows?: unknown } | null)?.rows;
  return Array.isArray(rows) ? (rows as T[]) : [];
}
