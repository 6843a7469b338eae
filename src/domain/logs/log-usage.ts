import { sql, type SQL } from "drizzle-orm";
import type { z } from "zod";
import { dbOf, type Ctx } from "../context";
import { requestLogs } from "../../db/schema";
import { parseInput } from "../../core/errors";
import { MAX_USAGE_GROUPS } from "../../core/limits";
import { inTopGroups, logConditions, logIdAt, resultRows, whereAll } from "./internal";
import { classMapFromLogs, numberMap } from "./store/rollups";
import { usageFromRollups } from "./usage-from-rollups";
import { DAY_MS, OTHER_GROUP, type Usage, type UsageFigures, type UsageGroup, type UsagePoint, UsageInput } from "./usage-types";

export { OTHER_GROUP, type Usage, type UsageFigures, type UsageGroup, type UsagePoint, UsageInput };

const BUCKET_MS = { hour: 3_600_000, day: DAY_MS } as const;

type Row = Record<string, unknown> & {
  bucket: number | null;
  g: string | null;
  in_top: boolean | null;
  grp: number;
  requests: number;
  errors: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
  unpriced: number;
  refused: number;
  p50: number | null;
  p95: number | null;
};

/**
 * Requests, errors, tokens, cost and latency percentiles of the project's calls over a range, per
 * hour or day (UTC) and optionally per model, provider, source or tag value. A call's time is the
 * time of its id (when it was logged), so the range walks the primary key. Every figure is summed
 * from the logs themselves in one pass (GROUPING SETS: series, groups and totals together), so
 * they equal the logs exactly; groups past the top 20 by requests are summed into one `other`
 * group. An error is a call with no status (null, or 0 = no response) or a status >= 400.
 */
export async function logUsage(ctx: Ctx, raw: UsageInput): Promise<Usage> {
  const input = parseInput(UsageInput, raw);
  // Closed hours come from the rollups when they can answer; the logs only for the rest.
  const fromRollups = await usageFromRollups(ctx, input);
  if (fromRollups) return fromRollups;
  const db = dbOf(ctx);
  const where = logConditions(ctx.projectId, input.filter);
  where.push(sql`${requestLogs.id} >= ${logIdAt(input.from)}`, sql`${requestLogs.id} < ${logIdAt(input.to)}`);
  const groupExpr = groupExpression(input);
  // The id's first 12 hex digits are the creation time in ms.
  const ms = sql`('x' || lpad(substr(${requestLogs.id}, 5, 12), 16, '0'))::bit(64)::bigint`;
  const size = BUCKET_MS[input.bucket];

  let inTop: SQL = sql`true`;
  if (groupExpr) {
    const ranked = resultRows<{ g: string | null }>(
      await db.execute(sql`select ${groupExpr} as g, count(*) as n from ${requestLogs} where ${whereAll(where)}
        group by 1 order by n desc, g asc nulls last limit ${MAX_USAGE_GROUPS + 1}`),
    );
    if (ranked.length > MAX_USAGE_GROUPS)
      inTop = inTopGroups(
        groupExpr,
        ranked.slice(0, MAX_USAGE_GROUPS).map((r) => r.g),
      );
  }
  const cellsOf = (columns: SQL) => sql`
        select (x.ms - x.ms % ${size}) as bucket, x.in_top, case when x.in_top then x.g end as g, ${columns}
        from (
          select ${ms} as ms, ${groupExpr ?? sql`null::text`} as g, ${inTop} as in_top, ${requestLogs.statusCode} as status_code,
            ${requestLogs.inputTokens} as input_tokens, ${requestLogs.outputTokens} as output_tokens,
            ${requestLogs.costUsd} as cost_usd, ${requestLogs.classes} as classes, ${requestLogs.costFlag} as cost_flag, ${requestLogs.refusals} as refusals,
            ${requestLogs.durationMs} as duration_ms
          from ${requestLogs} where ${whereAll(where)}
        ) x`;
  // The token classes are summed per bucket and group in a query of their own (a hash aggregate):
  // carried through the percentiles' sorts of every grouping set, they made that query twice as slow.
  const [rows, classCells] = await Promise.all([
    db
      .execute(sql`
      select x.bucket::float8 as bucket, x.g, x.in_top, grouping(x.bucket, x.in_top, x.g)::int as grp,
        count(*)::int as requests,
        (count(*) filter (where x.status_code is null or x.status_code = 0 or x.status_code >= 400))::int as errors,
        coalesce(sum(x.input_tokens), 0)::float8 as input_tokens,
        coalesce(sum(x.output_tokens), 0)::float8 as output_tokens,
        coalesce(sum(x.cost_usd), 0)::float8 as cost_usd,
        (count(*) filter (where x.cost_flag is not null))::int as unpriced,
        coalesce(sum(x.refusals), 0)::int as refused,
        percentile_cont(0.5) within group (order by x.duration_ms) as p50,
        percentile_cont(0.95) within group (order by x.duration_ms) as p95
      from (${cellsOf(sql`x.status_code, x.input_tokens, x.output_tokens, x.cost_usd, x.cost_flag, x.refusals, x.duration_ms`)}) x
      group by grouping sets ((x.bucket, x.in_top, x.g), (x.in_top, x.g), ())`)
      .then((r) => resultRows<Row>(r)),
    input.classes
      ? db
          .execute(sql`select x.bucket::float8 as bucket, x.g, x.in_top, ${classMapFromLogs("x.")} as cl
        from (${cellsOf(sql`x.classes`)}) x group by 1, 2, 3`)
          .then((r) => resultRows<Row>(r))
      : [],
  ]);
  // Each cell's classes, then summed per group and in all (as the grouping sets sum the rest).
  const groupKey = (r: Row) => `${r.in_top}\u0000${r.g ?? "\u0001"}`;
  const byCell = new Map<string, Record<string, number>>();
  const byGroup = new Map<string, Record<string, number>>();
  const allClasses: Record<string, number> = {};
  for (const r of classCells) {
    const c = numberMap(r.cl);
    byCell.set(`${Number(r.bucket)}\u0000${groupKey(r)}`, c);
    const g = byGroup.get(groupKey(r)) ?? {};
    for (const [k, v] of Object.entries(c)) {
      g[k] = (g[k] ?? 0) + v;
      allClasses[k] = (allClasses[k] ?? 0) + v;
    }
    byGroup.set(groupKey(r), g);
  }
  const classesOf = (r: Row): Record<string, number> => {
    const grp = Number(r.grp);
    if (grp === 0) return byCell.get(`${Number(r.bucket)}\u0000${groupKey(r)}`) ?? {};
    if (grp === 4) return byGroup.get(groupKey(r)) ?? {};
    return allClasses;
  };

  const figures = (r: Row): UsageFigures => ({
    requests: Number(r.requests),
    errors: Number(r.errors),
    inputTokens: Number(r.input_tokens),
    outputTokens: Number(r.output_tokens),
    costUsd: Number(r.cost_usd),
    classes: { ...classesOf(r) },
    unpriced: Number(r.unpriced),
    refused: Number(r.refused),
    p50Ms: r.p50 == null ? null : Number(r.p50),
    p95Ms: r.p95 == null ? null : Number(r.p95),
  });
  const group = (r: Row) => ({ group: r.in_top === false ? OTHER_GROUP : r.g, other: r.in_top === false });
  // grouping(): a bit per argument set when it is aggregated away: 0 = per bucket and group, 4 = per group, 7 = totals.
  const series = rows
    .filter((r) => Number(r.grp) === 0)
    .map((r) => ({ start: new Date(Number(r.bucket)), ...group(r), ...figures(r) }))
    .sort((a, b) => a.start.getTime() - b.start.getTime() || b.requests - a.requests || String(a.group).localeCompare(String(b.group)));
  const groups = groupExpr
    ? rows
        .filter((r) => Number(r.grp) === 4)
        .map((r) => ({ ...group(r), ...figures(r) }))
        .sort((a, b) => Number(a.other) - Number(b.other) || b.requests - a.requests || String(a.group).localeCompare(String(b.group)))
    : [];
  const total = rows.find((r) => Number(r.grp) === 7);
  const totals: UsageFigures = total
    ? figures(total)
    : { requests: 0, errors: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, classes: {}, unpriced: 0, refused: 0, p50Ms: null, p95Ms: null };
  return { bucket: input.bucket, from: input.from, to: input.to, series, groups, totals };
}

function groupExpression(input: z.output<typeof UsageInput>): SQL | null {
  switch (input.groupBy) {
    case "model":
      return sql`${requestLogs.model}`;
    case "provider":
      return sql`${requestLogs.provider}`;
    case "source":
      return sql`${requestLogs.source}`;
    case "api":
      return sql`${requestLogs.api}`;
    case "tag":
      return sql`(${requestLogs.tags} ->> ${input.tagKey ?? ""}::text)`;
    case "route":
      return sql`${requestLogs.route}`;
    case "routeVersion":
      // "support v2": a version is named within its route. Calls to no route are no group.
      return sql`(${requestLogs.route} || ' ' || coalesce(${requestLogs.routeVersion}, '(no version)'))`;
    default:
      return null;
  }
}
