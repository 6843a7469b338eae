import { sql } from "drizzle-orm";
import { dbOf, type Ctx } from "../context";
import { routeVerdicts } from "../../db/schema";
import { parseInput } from "../../core/errors";
import { seriesBucketMs, statsWindow } from "../stats-window";
import { logIdAt, logMsOf, resultRows } from "../logs";
import { findRouteRow, routeNotFound } from "./internal";
import { type RouteSeries, type RouteStatsInput, RouteStatsInput as Input, type RouteVersionStats } from "./schemas";

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

/**
 * Each version's figures per time bucket over a window (default: the last 24 hours; the bucket
 * size from seriesBucketMs): the same figures as routeStats, so a rollout's pass rate, error rate
 * and latency can be watched as they move. Buckets without calls or verdicts are left out.
 */
export async function routeSeries(ctx: Ctx, raw: RouteStatsInput): Promise<RouteSeries> {
  const input = parseInput(Input, raw);
  const row = await findRouteRow(ctx, input.slug);
  if (!row) throw routeNotFound(input.slug);
  return (await loadRouteSeries(ctx, [input.slug], statsWindow(ctx, { from: input.from, to: input.to }))).get(input.slug)!;
}

/** The same for several routes of the project at once (two queries): by slug. */
export async function loadRouteSeries(ctx: Ctx, slugs: readonly string[], window: { from: Date; to: Date }): Promise<Map<string, RouteSeries>> {
  const bucketMs = seriesBucketMs(window);
  const figures = await versionFigures(ctx, slugs, window, bucketMs);
  return new Map(
    slugs.map((slug) => [
      slug,
      {
        from: window.from,
        to: window.to,
        bucketMs,
        points: (figures.get(slug) ?? [])
          .map(({ start, ...s }) => ({ ...s, start: new Date(start ?? 0) }))
          .sort((a, b) => a.start.getTime() - b.start.getTime() || (a.version ?? "").localeCompare(b.version ?? "")),
      },
    ]),
  );
}

/** The same for several routes of the project at once (two queries, whatever their number): by slug. */
export async function loadRouteStats(ctx: Ctx, slugs: readonly string[], window: { from: Date; to: Date }): Promise<Map<string, RouteVersionStats[]>> {
  const figures = await versionFigures(ctx, slugs, window, null);
  return new Map([...figures].map(([slug, list]) => [slug, list.map(({ start: _, ...s }) => s)]));
}

const LOG_MS = logMsOf(sql`id`);

/**
 * Per route and version (and per bucket of `bucketMs` when given: its start in ms), the logged
 * calls' figures and the judged sample's verdicts over the window.
 */
async function versionFigures(
  ctx: Ctx,
  slugs: readonly string[],
  window: { from: Date; to: Date },
  bucketMs: number | null,
): Promise<Map<string, (RouteVersionStats & { start: number | null })[]>> {
  const out = new Map<string, (RouteVersionStats & { start: number | null })[]>();
  if (!slugs.length) return out;
  const { from, to } = window;
  const routes = sql.join(
    slugs.map((s) => sql`${s}`),
    sql`, `,
  );
  const logBucket = bucketMs ? sql`(${LOG_MS} / ${bucketMs}) * ${bucketMs}` : sql`null::bigint`;
  const verdictBucket = bucketMs ? sql`(floor(extract(epoch from created_at) * 1000 / ${bucketMs}) * ${bucketMs})::bigint` : sql`null::bigint`;
  // The id range walks the primary key (and prunes day partitions); the routes narrow within it.
  const rows = resultRows<{
    route: string;
    version: string | null;
    start: string | number | null;
    requests: number;
    errors: number;
    p50: number | null;
    p95: number | null;
    cost: number | null;
    unpriced: number;
  }>(
    await dbOf(ctx).execute(sql`
      select route, route_version as version, ${logBucket} as start, count(*)::int as requests,
        (count(*) filter (where status_code is null or status_code >= 400))::int as errors,
        percentile_cont(0.5) within group (order by duration_ms) as p50,
        percentile_cont(0.95) within group (order by duration_ms) as p95,
        sum(cost_usd) as cost,
        (count(*) filter (where cost_flag is not null))::int as unpriced
      from request_logs
      where project_id = ${ctx.projectId} and id >= ${logIdAt(from)} and id < ${logIdAt(new Date(to.getTime() + 1))} and route in (${routes})
      group by 1, 2, 3 order by 1, 2 nulls first, 3`),
  );
  // The judged samples' verdicts over the same window (judgements that could not be made left out).
  const judged = resultRows<{ route: string; version: string | null; start: string | number | null; judged: number; passed: number }>(
    await dbOf(ctx).execute(sql`
      select route, version, ${verdictBucket} as start, count(*)::int as judged, (count(*) filter (where passed))::int as passed
      from ${routeVerdicts}
      where project_id = ${ctx.projectId} and route in (${routes}) and passed is not null
        and created_at >= ${from.toISOString()}::timestamptz and created_at <= ${to.toISOString()}::timestamptz
      group by 1, 2, 3`),
  );
  const startOf = (v: string | number | null) => (v === null ? null : Number(v));
  const key = (route: string, version: string | null, start: number | null) => JSON.stringify([route, version, start]);
  const verdicts = new Map(judged.map((j) => [key(j.route, j.version, startOf(j.start)), j]));
  const push = (route: string, s: RouteVersionStats & { start: number | null }) => out.set(route, [...(out.get(route) ?? []), s]);
  for (const r of rows) {
    const start = startOf(r.start);
    const v = verdicts.get(key(r.route, r.version, start));
    verdicts.delete(key(r.route, r.version, start));
    push(r.route, {
      start,
      version: r.version,
      requests: Number(r.requests),
      errors: Number(r.errors),
      errorRate: Number(r.requests) ? Number(r.errors) / Number(r.requests) : 0,
      latencyP50Ms: r.p50 === null ? null : Math.round(Number(r.p50)),
      latencyP95Ms: r.p95 === null ? null : Math.round(Number(r.p95)),
      costUsd: r.cost === null ? null : Number(r.cost),
      unpricedCalls: Number(r.unpriced),
      judged: Number(v?.judged ?? 0),
      passRate: v && Number(v.judged) ? Number(v.passed) / Number(v.judged) : null,
    });
  }
  // Versions (or buckets) judged whose calls were not logged (op-log-request: false, or a verdict
  // made after its call's bucket ended) still show their pass rate.
  for (const v of verdicts.values()) {
    push(v.route, {
      start: startOf(v.start),
      version: v.version,
      requests: 0,
      errors: 0,
      errorRate: 0,
      latencyP50Ms: null,
      latencyP95Ms: null,
      costUsd: null,
      unpricedCalls: 0,
      judged: Number(v.judged),
      passRate: Number(v.passed) / Number(v.judged),
    });
  }
  return out;
}
