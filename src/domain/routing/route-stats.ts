import { sql } from "drizzle-orm";
import { dbOf, type Ctx } from "../../context";
import { routeVerdicts } from "../../db/schema";
import { parseInput } from "../../errors";
import { logIdAt } from "../logs";
import { resultRows } from "../logs/internal";
import { findRouteRow, routeNotFound } from "./internal";
import { type RouteStatsInput, RouteStatsInput as Input, type RouteVersionStats, StatsWindowInput } from "./schemas";

const DAY_MS = 86_400_000;

/** The window of a stats question, checked (at most MAX_STATS_DAYS): `to` (default now) and `from` (default a day before it). */
export function statsWindow(ctx: Ctx, raw: StatsWindowInput): { from: Date; to: Date } {
  const { from, to } = parseInput(StatsWindowInput, raw);
  const end = to ?? ctx.deps.clock();
  return { from: from ?? new Date(end.getTime() - DAY_MS), to: end };
}

/**
 * Each rollout version's figures over a window (default: the last 24 hours), from the logs of the
 * calls to the route: requests, errors (any status of 400 or more, or none), latency p50 and p95,
 * cost; and its judged sample's pass rate. Calls whose log was not kept (op-log-request: false)
 * are not counted.
 */
export async function routeStats(ctx: Ctx, raw: RouteStatsInput): Promise<RouteVersionStats[]> {
  const input = parseInput(Input, raw);
  const row = await findRouteRow(ctx, input.slug);
  if (!row) throw routeNotFound(input.slug);
  return (await loadRouteStats(ctx, [input.slug], statsWindow(ctx, { from: input.from, to: input.to }))).get(input.slug) ?? [];
}

/** The same for several routes of the project at once (two queries, whatever their number): by slug. */
export async function loadRouteStats(ctx: Ctx, slugs: readonly string[], window: { from: Date; to: Date }): Promise<Map<string, RouteVersionStats[]>> {
  const out = new Map<string, RouteVersionStats[]>();
  if (!slugs.length) return out;
  const { from, to } = window;
  const routes = sql.join(
    slugs.map((s) => sql`${s}`),
    sql`, `,
  );
  // The id range walks the primary key (and prunes day partitions); the routes narrow within it.
  const rows = resultRows<{
    route: string;
    version: string | null;
    requests: number;
    errors: number;
    p50: number | null;
    p95: number | null;
    cost: number | null;
  }>(
    await dbOf(ctx).execute(sql`
      select route, route_version as version, count(*)::int as requests,
        (count(*) filter (where status_code is null or status_code >= 400))::int as errors,
        percentile_cont(0.5) within group (order by duration_ms) as p50,
        percentile_cont(0.95) within group (order by duration_ms) as p95,
        sum(cost_usd) as cost
      from request_logs
      where project_id = ${ctx.projectId} and id >= ${logIdAt(from)} and id < ${logIdAt(new Date(to.getTime() + 1))} and route in (${routes})
      group by route, route_version order by route, route_version nulls first`),
  );
  // The judged samples' verdicts over the same window (judgements that could not be made left out).
  const judged = resultRows<{ route: string; version: string | null; judged: number; passed: number }>(
    await dbOf(ctx).execute(sql`
      select route, version, count(*)::int as judged, (count(*) filter (where passed))::int as passed
      from ${routeVerdicts}
      where project_id = ${ctx.projectId} and route in (${routes}) and passed is not null
        and created_at >= ${from.toISOString()}::timestamptz and created_at <= ${to.toISOString()}::timestamptz
      group by route, version`),
  );
  const key = (route: string, version: string | null) => `${route}\u0000${version ?? ""}\u0000${version === null ? "null" : "v"}`;
  const verdicts = new Map(judged.map((j) => [key(j.route, j.version), j]));
  const push = (route: string, s: RouteVersionStats) => out.set(route, [...(out.get(route) ?? []), s]);
  for (const r of rows) {
    const v = verdicts.get(key(r.route, r.version));
    verdicts.delete(key(r.route, r.version));
    push(r.route, {
      version: r.version,
      requests: Number(r.requests),
      errors: Number(r.errors),
      errorRate: Number(r.requests) ? Number(r.errors) / Number(r.requests) : 0,
      latencyP50Ms: r.p50 === null ? null : Math.round(Number(r.p50)),
      latencyP95Ms: r.p95 === null ? null : Math.round(Number(r.p95)),
      costUsd: Number(r.cost ?? 0),
      judged: Number(v?.judged ?? 0),
      passRate: v && Number(v.judged) ? Number(v.passed) / Number(v.judged) : null,
    });
  }
  // Versions judged whose calls were not logged (op-log-request: false) still show their pass rate.
  for (const v of verdicts.values()) {
    push(v.route, {
      version: v.version,
      requests: 0,
      errors: 0,
      errorRate: 0,
      latencyP50Ms: null,
      latencyP95Ms: null,
      costUsd: 0,
      judged: Number(v.judged),
      passRate: Number(v.passed) / Number(v.judged),
    });
  }
  return out;
}
