import { sql } from "drizzle-orm";
import { dbOf, type Ctx } from "../../context";
import { parseInput } from "../../errors";
import { logIdAt } from "../logs";
import { resultRows } from "../logs/internal";
import { routeVerdicts } from "../../db/schema";
import { findRouteRow, routeNotFound } from "./internal";
import { type RouteStatsInput, RouteStatsInput as Input, type RouteVersionStats } from "./schemas";

const DAY_MS = 86_400_000;

/**
 * Each rollout version's figures over a window (default: the last 24 hours), from the logs of the
 * calls to the route: requests, errors (any status of 400 or more, or none), latency p50 and p95,
 * cost. Calls whose log was not kept (op-log-request: false) are not counted.
 */
export async function routeStats(ctx: Ctx, raw: RouteStatsInput): Promise<RouteVersionStats[]> {
  const input = parseInput(Input, raw);
  const row = await findRouteRow(ctx, input.slug);
  if (!row) throw routeNotFound(input.slug);
  const to = input.to ?? ctx.deps.clock();
  const from = input.from ?? new Date(to.getTime() - DAY_MS);
  // The id range walks the primary key (and prunes day partitions); the route narrows within it.
  const rows = resultRows<{ version: string | null; requests: number; errors: number; p50: number | null; p95: number | null; cost: number | null }>(
    await dbOf(ctx).execute(sql`
      select route_version as version, count(*)::int as requests,
        (count(*) filter (where status_code is null or status_code >= 400))::int as errors,
        percentile_cont(0.5) within group (order by duration_ms) as p50,
        percentile_cont(0.95) within group (order by duration_ms) as p95,
        sum(cost_usd) as cost
      from request_logs
      where project_id = ${ctx.projectId} and id >= ${logIdAt(from)} and id < ${logIdAt(new Date(to.getTime() + 1))} and route = ${input.slug}
      group by route_version order by route_version nulls first`),
  );
  // The judged sample's verdicts over the same window (judgements that could not be made left out).
  const judged = resultRows<{ version: string | null; judged: number; passed: number }>(
    await dbOf(ctx).execute(sql`
      select version, count(*)::int as judged, (count(*) filter (where passed))::int as passed
      from ${routeVerdicts}
      where project_id = ${ctx.projectId} and route = ${input.slug} and passed is not null
        and created_at >= ${from.toISOString()}::timestamptz and created_at <= ${to.toISOString()}::timestamptz
      group by version`),
  );
  const verdictsOf = new Map(judged.map((j) => [j.version, j]));
  const stats: RouteVersionStats[] = rows.map((r) => {
    const v = verdictsOf.get(r.version);
    verdictsOf.delete(r.version);
    return {
      version: r.version,
      requests: Number(r.requests),
      errors: Number(r.errors),
      errorRate: Number(r.requests) ? Number(r.errors) / Number(r.requests) : 0,
      latencyP50Ms: r.p50 === null ? null : Math.round(Number(r.p50)),
      latencyP95Ms: r.p95 === null ? null : Math.round(Number(r.p95)),
      costUsd: Number(r.cost ?? 0),
      judged: Number(v?.judged ?? 0),
      passRate: v && Number(v.judged) ? Number(v.passed) / Number(v.judged) : null,
    };
  });
  // Versions judged whose calls were not logged (op-log-request: false) still show their pass rate.
  for (const v of verdictsOf.values()) {
    stats.push({
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
  return stats;
}
