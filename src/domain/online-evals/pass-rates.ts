import { sql } from "drizzle-orm";
import { dbOf, type Ctx } from "../context";
import { routeVerdicts } from "../../db/schema";
import { parseInput } from "../../core/errors";
import { resultRows } from "../logs";
import { seriesBucketMs, statsWindow } from "../stats-window";
import { type PassRateGroup, type PassRates, PassRatesInput } from "./schemas";

/** Groups kept apart in the answer, at most (the most judged); the rest are left out of series and groups. */
const MAX_GROUPS = 50;

const GROUP_SQL = {
  none: sql`null::text`,
  model: sql`model`,
  route: sql`route`,
  routeVersion: sql`case when version is null then route else route || '@' || version end`,
} as const;

/**
 * Online evaluation's pass rates over a window (default: the last 24 hours), over time and per
 * model, route or route version: from every judged sample, routes' and models' alike (by route
 * and version: only routes' samples).
 */
export async function passRates(ctx: Ctx, raw?: PassRatesInput): Promise<PassRates> {
  const input = parseInput(PassRatesInput, raw) ?? { groupBy: "model" as const };
  const window = statsWindow(ctx, { from: input.from, to: input.to });
  const bucketMs = seriesBucketMs(window);
  const groupBy = input.groupBy ?? "model";
  const routesOnly = groupBy === "route" || groupBy === "routeVersion" ? sql`and route is not null` : sql``;
  const rows = resultRows<{ grp: string | null; start: string | number; judged: number; passed: number; errors: number }>(
    await dbOf(ctx).execute(sql`
      select ${GROUP_SQL[groupBy]} as grp, (floor(extract(epoch from created_at) * 1000 / ${bucketMs}) * ${bucketMs})::bigint as start,
        (count(*) filter (where passed is not null))::int as judged, (count(*) filter (where passed))::int as passed,
        (count(*) filter (where passed is null))::int as errors
      from ${routeVerdicts}
      where project_id = ${ctx.projectId} and created_at >= ${window.from.toISOString()}::timestamptz and created_at < ${window.to.toISOString()}::timestamptz ${routesOnly}
      group by 1, 2 order by 2, 1 nulls first`),
  );
  const figures = (judged: number, passed: number, errors: number) => ({ judged, passed, errors, passRate: judged ? passed / judged : null });
  const totals = new Map<string | null, { judged: number; passed: number; errors: number }>();
  for (const r of rows) {
    const t = totals.get(r.grp) ?? { judged: 0, passed: 0, errors: 0 };
    t.judged += Number(r.judged);
    t.passed += Number(r.passed);
    t.errors += Number(r.errors);
    totals.set(r.grp, t);
  }
  const groups: PassRateGroup[] = [...totals]
    .map(([group, t]) => ({ group, ...figures(t.judged, t.passed, t.errors) }))
    .sort((a, b) => b.judged - a.judged || b.errors - a.errors || String(a.group).localeCompare(String(b.group)))
    .slice(0, MAX_GROUPS);
  const kept = new Set(groups.map((g) => g.group));
  return {
    from: window.from,
    to: window.to,
    bucketMs,
    series: rows
      .filter((r) => kept.has(r.grp))
      .map((r) => ({ start: new Date(Number(r.start)), group: r.grp, ...figures(Number(r.judged), Number(r.passed), Number(r.errors)) })),
    groups,
  };
}
