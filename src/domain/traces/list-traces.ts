import { sql } from "drizzle-orm";
import { z } from "zod";
import { type Ctx, dbOf } from "../context";
import { DomainError, parseInput } from "../../core/errors";
import { checkPageSize, MAX_ID_LENGTH, MAX_TRACE_ID_LENGTH } from "../../core/limits";
import { logIdAt, resultRows } from "../logs";
import { checkWindow, statsWindow, windowFields } from "../stats-window";
import { verb } from "../verb";

// Traces and sessions listed (docs/traces.md): each trace summed from the spans the OTLP receiver
// kept and the logs that carry its id (a trace only the gateway saw has no spans), newest first,
// within a window (default the last 24 hours, at most 31 days). A session is the traces and calls
// that name it (session.id, op-session-id).

export type TraceSummary = {
  id: string;
  sessionId: string | null;
  /** The root span's name (a span without a parent), else the first span's, else the first call's model. */
  name: string | null;
  service: string | null;
  startedAt: Date;
  endedAt: Date | null;
  durationMs: number | null;
  spans: number;
  logs: number;
  errors: number;
  costUsd: number;
  inputTokens: number;
  outputTokens: number;
};

export type SessionSummary = {
  id: string;
  traces: number;
  logs: number;
  errors: number;
  costUsd: number;
  inputTokens: number;
  outputTokens: number;
  startedAt: Date;
  lastAt: Date;
};

const Cursor = z.string().min(1).max(200);

export const ListTracesInput = z
  .strictObject({
    ...windowFields,
    /** Only the traces of this session. */
    sessionId: z.string().min(1).max(MAX_ID_LENGTH).nullish(),
    /** Only the traces whose spans name this service. */
    service: z.string().min(1).max(200).nullish(),
    /** true: only traces with a failed span or call. */
    hasError: z.boolean().nullish(),
    first: z.number().int().min(1, "first must be at least 1").nullish(),
    after: Cursor.nullish(),
  })
  .superRefine(checkWindow);
export type ListTracesInput = z.input<typeof ListTracesInput>;

export const ListSessionsInput = z
  .strictObject({ ...windowFields, first: z.number().int().min(1, "first must be at least 1").nullish(), after: Cursor.nullish() })
  .superRefine(checkWindow);
export type ListSessionsInput = z.input<typeof ListSessionsInput>;

export type Page<T> = { items: T[]; endCursor: string | null; hasNextPage: boolean };

/** A keyset cursor over (time, id), newest first. */
const encode = (at: Date, id: string) => Buffer.from(JSON.stringify([at.getTime(), id])).toString("base64url");
function decode(cursor: string): { at: Date; id: string } {
  try {
    const [ms, id] = JSON.parse(Buffer.from(cursor, "base64url").toString()) as [number, string];
    if (typeof ms === "number" && typeof id === "string" && id.length <= MAX_TRACE_ID_LENGTH) return { at: new Date(ms), id };
  } catch {}
  throw new DomainError("VALIDATION", "after is not a cursor of this list", { issues: [{ message: "after is not a cursor of this list", path: ["after"] }] });
}

/** A list's page: its size (default 50, at most HONE_MAX_PAGE_SIZE), window and cursor, checked. */
function pageOf(ctx: Ctx, input: { first?: number | null; after?: string | null; from?: Date | null; to?: Date | null }) {
  checkPageSize(input.first, ctx.deps.config.maxPageSize);
  const { from, to } = statsWindow(ctx, { from: input.from, to: input.to });
  return { first: input.first ?? 50, from, to, after: input.after ? decode(input.after) : null };
}

const num = (v: unknown) => (v === null || v === undefined ? 0 : Number(v));
const date = (v: unknown) => (v instanceof Date ? v : v === null || v === undefined ? null : new Date(String(v)));

export const listTraces = verb({
  name: "traces",
  description: "The project's traces in a window (default the last 24 hours, at most 31 days), newest first: each summed from its spans and calls",
  kind: "query",
  role: "viewer",
  input: ListTracesInput,
  run: async (ctx: Ctx, raw: ListTracesInput): Promise<Page<TraceSummary>> => {
    const input = parseInput(ListTracesInput, raw);
    const { first, from, to, after } = pageOf(ctx, input);
    const fromIso = from.toISOString();
    const toIso = to.toISOString();
    const rows = resultRows<Record<string, unknown>>(
      await dbOf(ctx).execute(sql`
      with s as (
        select trace_id, min(started_at) as started, max(ended_at) as ended, count(*)::int as spans,
          (count(*) filter (where status = 2))::int as errors, max(session_id) as session, max(service) as service,
          (array_agg(name order by (parent_span_id is null) desc, started_at nulls last))[1] as name,
          bool_or(service = ${input.service ?? ""}) as has_service
        from trace_spans
        where project_id = ${ctx.projectId} and started_at >= ${fromIso}::timestamptz and started_at <= ${toIso}::timestamptz
        group by trace_id
      ), l as (
        select trace_id, min(coalesce(requested_at, created_at)) as started,
          max(coalesce(requested_at, created_at) + coalesce(duration_ms, 0) * interval '1 millisecond') as ended,
          count(*)::int as logs, (count(*) filter (where status_code is null or status_code >= 400))::int as errors,
          coalesce(sum(cost_usd), 0) as cost, coalesce(sum(input_tokens), 0) as input_tokens, coalesce(sum(output_tokens), 0) as output_tokens,
          max(session_id) as session, min(model) as model, bool_or(metadata->>'service' = ${input.service ?? ""}) as has_service
        from request_logs
        where project_id = ${ctx.projectId} and trace_id is not null and id >= ${logIdAt(from)} and id < ${logIdAt(new Date(to.getTime() + 1))}
        group by trace_id
      ), t as (
        select coalesce(s.trace_id, l.trace_id) as id, least(s.started, l.started) as started, greatest(s.ended, l.ended) as ended,
          coalesce(s.spans, 0) as spans, coalesce(l.logs, 0) as logs, coalesce(s.errors, 0) + coalesce(l.errors, 0) as errors,
          coalesce(l.cost, 0) as cost, coalesce(l.input_tokens, 0) as input_tokens, coalesce(l.output_tokens, 0) as output_tokens,
          coalesce(s.session, l.session) as session, s.service, coalesce(s.name, l.model) as name,
          coalesce(s.has_service, false) or coalesce(l.has_service, false) as has_service
        from s full outer join l on l.trace_id = s.trace_id
      )
      select * from t
      where true
        ${input.sessionId ? sql` and session = ${input.sessionId}` : sql``}
        ${input.service ? sql` and has_service` : sql``}
        ${input.hasError === true ? sql` and errors > 0` : input.hasError === false ? sql` and errors = 0` : sql``}
        ${after ? sql` and (started, id) < (${after.at.toISOString()}::timestamptz, ${after.id})` : sql``}
      order by started desc, id desc
      limit ${first + 1}`),
    );
    const items = rows.slice(0, first).map((r): TraceSummary => {
      const startedAt = date(r.started)!;
      const endedAt = date(r.ended);
      return {
        id: String(r.id),
        sessionId: (r.session as string | null) ?? null,
        name: (r.name as string | null) ?? null,
        service: (r.service as string | null) ?? null,
        startedAt,
        endedAt,
        durationMs: endedAt ? Math.max(0, endedAt.getTime() - startedAt.getTime()) : null,
        spans: num(r.spans),
        logs: num(r.logs),
        errors: num(r.errors),
        costUsd: num(r.cost),
        inputTokens: num(r.input_tokens),
        outputTokens: num(r.output_tokens),
      };
    });
    const last = items.at(-1);
    return { items, hasNextPage: rows.length > first, endCursor: last ? encode(last.startedAt, last.id) : null };
  },
});

export const listSessions = verb({
  name: "sessions",
  description: "The project's sessions (conversations, agents' runs) active in a window, the latest first: their traces, calls, errors and cost",
  kind: "query",
  role: "viewer",
  input: ListSessionsInput,
  run: async (ctx: Ctx, raw: ListSessionsInput): Promise<Page<SessionSummary>> => {
    const input = parseInput(ListSessionsInput, raw);
    const { first, from, to, after } = pageOf(ctx, input);
    const rows = resultRows<Record<string, unknown>>(
      await dbOf(ctx).execute(sql`
      with l as (
        select session_id as id, count(distinct trace_id)::int as traces, count(*)::int as logs,
          (count(*) filter (where status_code is null or status_code >= 400))::int as errors,
          coalesce(sum(cost_usd), 0) as cost, coalesce(sum(input_tokens), 0) as input_tokens, coalesce(sum(output_tokens), 0) as output_tokens,
          min(coalesce(requested_at, created_at)) as started, max(coalesce(requested_at, created_at)) as last
        from request_logs
        where project_id = ${ctx.projectId} and session_id is not null and id >= ${logIdAt(from)} and id < ${logIdAt(new Date(to.getTime() + 1))}
        group by session_id
      ), s as (
        select session_id as id, count(distinct trace_id)::int as traces, min(started_at) as started, max(started_at) as last
        from trace_spans
        where project_id = ${ctx.projectId} and session_id is not null and started_at >= ${from.toISOString()}::timestamptz and started_at <= ${to.toISOString()}::timestamptz
        group by session_id
      ), t as (
        select coalesce(l.id, s.id) as id, greatest(coalesce(l.traces, 0), coalesce(s.traces, 0)) as traces, coalesce(l.logs, 0) as logs,
          coalesce(l.errors, 0) as errors, coalesce(l.cost, 0) as cost, coalesce(l.input_tokens, 0) as input_tokens, coalesce(l.output_tokens, 0) as output_tokens,
          least(l.started, s.started) as started, greatest(l.last, s.last) as last
        from l full outer join s on s.id = l.id
      )
      select * from t
      where true ${after ? sql` and (last, id) < (${after.at.toISOString()}::timestamptz, ${after.id})` : sql``}
      order by last desc, id desc
      limit ${first + 1}`),
    );
    const items = rows.slice(0, first).map(
      (r): SessionSummary => ({
        id: String(r.id),
        traces: num(r.traces),
        logs: num(r.logs),
        errors: num(r.errors),
        costUsd: num(r.cost),
        inputTokens: num(r.input_tokens),
        outputTokens: num(r.output_tokens),
        startedAt: date(r.started)!,
        lastAt: date(r.last)!,
      }),
    );
    const last = items.at(-1);
    return { items, hasNextPage: rows.length > first, endCursor: last ? encode(last.lastAt, last.id) : null };
  },
});
