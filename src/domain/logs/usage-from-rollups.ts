import { sql, type SQL } from "drizzle-orm";
import type { z } from "zod";
import { dbOf, type Ctx } from "../context";
import { MAX_USAGE_GROUPS } from "../../core/limits";
import { inTopGroups, logConditions, logIdAt, resultRows, whereAll } from "./internal";
import type { OTHER_GROUP as OtherGroup, Usage, UsageFigures, UsageInput } from "./usage-types";
import { binBounds, classMapFromLogs, classMapOfColumns, HOUR_MS, LATENCY_BIN, numberMap, readRollupState } from "./store/rollups";

type Input = z.output<typeof UsageInput>;
type Cell = {
  bucket: number;
  g: string | null;
  /** Folded into "other" (not among the top groups). */
  other: boolean;
  requests: number;
  errors: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  classes: Record<string, number>;
  unpriced: number;
  refused: number;
  hist: Map<number, number>;
};

/** A boolean column as the drivers return it (PGlite and postgres.js: a boolean; text protocol: "t"). */
const isTrue = (v: unknown) => v === true || v === "t" || v === "true";

/** Groups by requests, most first; ties by name, no group (null) last: as the log path ranks them. */
function rankGroups(perGroup: Map<string | null, number>): [string | null, number][] {
  return [...perGroup].sort((a, b) => b[1] - a[1] || (a[0] === null ? 1 : b[0] === null ? -1 : a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

function addMap(into: Record<string, number>, from: Record<string, number>): void {
  for (const [k, n] of Object.entries(from)) into[k] = (into[k] ?? 0) + n;
}

const OTHER: typeof OtherGroup = "other";
const DAY_MS = 86_400_000;
// `internal` is a condition on the source (internal or not), which the main rollups are split by.
const MAIN_FILTERS = new Set(["model", "provider", "source", "statusClass", "internal"]);

/**
 * Which rollup table can answer this usage question: the main one (usage_hourly) when the split
 * and every filter are model, provider, source, status class or internal (Hone's own calls or
 * not); the tag one when the split or the only filter is the configured tag key. Anything else (text, completion id, other tags, cache
 * hits, an exact status) needs the logs themselves: null.
 */
function servable(input: Input, tagKey: string): "main" | "tags" | null {
  // The rollups are not split by protocol or route: those splits read the logs.
  if (input.groupBy === "api" || input.groupBy === "route" || input.groupBy === "routeVersion") return null;
  const f = Object.entries(input.filter ?? {}).filter(([, v]) => v !== null && v !== undefined && !(Array.isArray(v) && v.length === 0));
  const meta = (input.filter?.tags ?? []) as { key: string; equals: string }[];
  const onlyTagFilter = f.length === 1 && f[0]![0] === "tags" && meta.length === 1 && meta[0]!.key === tagKey;
  if (input.groupBy === "tag") return input.tagKey === tagKey && (f.length === 0 || onlyTagFilter) ? "tags" : null;
  if (onlyTagFilter && input.groupBy === "none") return "tags";
  return f.every(([k]) => MAIN_FILTERS.has(k)) ? "main" : null;
}

/** percentile_cont over a histogram: the value at rank q·(n-1), interpolated inside its bin. */
function percentile(hist: Map<number, number>, q: number): number | null {
  const bins = [...hist].filter(([, n]) => n > 0).sort((a, b) => a[0] - b[0]);
  const total = bins.reduce((s, [, n]) => s + n, 0);
  if (!total) return null;
  const rank = q * (total - 1);
  let seen = 0;
  for (const [bin, n] of bins) {
    if (rank < seen + n) {
      const [lo, hi] = binBounds(bin);
      return Math.round((lo + ((hi - lo) * (rank - seen + 0.5)) / n) * 10) / 10;
    }
    seen += n;
  }
  return null;
}

/**
 * The usage of a range from the rollups for its whole closed hours and from the logs for the rest
 * (the partial hours at its edges and whatever is not closed yet, at most about an hour): the same
 * answer as summing the logs, except that p50/p95 come from the rollups' latency histograms
 * (within about ±9%). null when the rollups cannot answer (see servable) or cover no whole hour
 * of the range.
 */
export async function usageFromRollups(ctx: Ctx, input: Input): Promise<Usage | null> {
  const db = dbOf(ctx);
  const state = await readRollupState(db);
  if (!state?.closedUntil || state.tagKey !== ctx.deps.config.usageTagKey) return null;
  const table = servable(input, state.tagKey);
  if (!table) return null;
  const from = input.from.getTime();
  const to = input.to.getTime();
  const rs = Math.ceil(from / HOUR_MS) * HOUR_MS;
  const re = Math.min(Math.floor(to / HOUR_MS) * HOUR_MS, state.closedUntil.getTime());
  if (rs >= re) return null;
  const size = input.bucket === "hour" ? HOUR_MS : 86_400_000;

  // The rollup side: its dimensions and filters. By day, the whole days come from the daily rollups
  // and the hours at the edges from the hourly ones.
  const f = input.filter ?? {};
  const dims: SQL[] = [sql`project_id = ${ctx.projectId}`];
  let rollGroup: SQL = sql`null::text`;
  if (table === "main") {
    if (f.model != null) dims.push(sql`model = ${f.model}`);
    if (f.provider != null) dims.push(sql`provider = ${f.provider}`);
    if (f.source != null) dims.push(sql`source = ${f.source}`);
    if (f.statusClass != null) dims.push(sql`status_class = ${f.statusClass}`);
    if (f.internal === true) dims.push(sql`source = 'internal'`);
    if (f.internal === false) dims.push(sql`source <> 'internal'`);
    if (input.groupBy === "model" || input.groupBy === "provider" || input.groupBy === "source") rollGroup = sql.raw(input.groupBy);
  } else {
    const meta = (f.tags ?? []) as { key: string; equals: string }[];
    if (meta[0]) dims.push(sql`tag = ${meta[0].equals}`);
    if (input.groupBy === "tag") rollGroup = sql`tag`;
  }
  const iso = (ms: number) => sql`${new Date(ms).toISOString()}::timestamptz`;
  const [hourly, daily] = table === "main" ? ["usage_hourly", "usage_daily"] : ["usage_hourly_tags", "usage_daily_tags"];
  const d1 = input.bucket === "day" ? Math.ceil(rs / DAY_MS) * DAY_MS : re;
  const d2 = input.bucket === "day" ? Math.max(d1, Math.floor(re / DAY_MS) * DAY_MS) : re;
  const parts: SQL[] = [];
  const hours = (a: number, b: number) =>
    a < b && parts.push(sql`select hour as t, * from ${sql.raw(hourly)} where ${whereAll(dims)} and hour >= ${iso(a)} and hour < ${iso(b)}`);
  hours(rs, Math.min(d1, re));
  if (d1 < d2) parts.push(sql`select day as t, * from ${sql.raw(daily)} where ${whereAll(dims)} and day >= ${iso(d1)} and day < ${iso(d2)}`);
  hours(Math.max(d2, rs), re);
  const rollSource = sql`(${sql.join(parts, sql` union all `)}) r`;
  const rollBucket = sql`((extract(epoch from t) * 1000)::bigint / ${size} * ${size})::float8`;

  // The log side: the same project and filter, outside the rolled-up hours.
  const logWhere = logConditions(ctx.projectId, input.filter);
  logWhere.push(sql`((id >= ${logIdAt(input.from)} and id < ${logIdAt(new Date(rs))}) or (id >= ${logIdAt(new Date(re))} and id < ${logIdAt(input.to)}))`);
  const ms = sql`('x' || lpad(substr(id, 5, 12), 16, '0'))::bit(64)::bigint`;
  const logGroup =
    input.groupBy === "none" ? sql`null::text` : input.groupBy === "tag" ? sql`(metadata ->> ${input.tagKey ?? ""}::text)` : sql.raw(input.groupBy);

  // Split by something with more values than MAX_USAGE_GROUPS kept (a tag): the groups are ranked
  // over the whole range first (one small query), as the log path ranks them, and the rest
  // are folded into one group inside the queries, so a month by hour and tag returns a row per hour
  // and kept group, not one per hour and value (282,000 rows and 680,000 bins at 1,000,000 logs,
  // 5.5 s). A row's `other` says it was folded.
  // Only for the tag rollups: a model, provider or source split rarely has more than 20 values, and
  // ranking first would read its rows twice (80 to 170 ms for a month by day and model); those fold
  // below, from the cells.
  const grouped = input.groupBy !== "none";
  let rollOther: SQL = sql`false`;
  let logOther: SQL = sql`false`;
  if (grouped && table === "tags") {
    // Both sides summed per group in one statement, ranked as the log path ranks (by requests, then
    // by value, no value last), and only the first MAX_USAGE_GROUPS + 1 read: a tag with a million
    // values costs no memory here.
    const ranked = resultRows<{ g: string | null }>(
      await db.execute(sql`select g, sum(n) as n from (
          select ${rollGroup} as g, sum(requests)::float8 as n from ${rollSource} group by 1
          union all
          select ${logGroup} as g, count(*)::float8 as n from request_logs where ${whereAll(logWhere)} group by 1
        ) x group by g order by n desc, g asc nulls last limit ${MAX_USAGE_GROUPS + 1}`),
    );
    if (ranked.length > MAX_USAGE_GROUPS) {
      const top = ranked.slice(0, MAX_USAGE_GROUPS).map((r) => r.g);
      rollOther = sql`not ${inTopGroups(rollGroup, top)}`;
      logOther = sql`not ${inTopGroups(logGroup, top)}`;
    }
  }
  // The group as kept: null for the folded rows (their `other` is true).
  const kept = (expr: SQL, other: SQL) => sql`(case when ${other} then null else ${expr} end)`;

  type Sums = {
    bucket: number;
    g: string | null;
    other: boolean;
    requests: number;
    errors: number;
    i: number;
    o: number;
    c: number;
    u: number;
    r: number;
    cl: unknown;
  };
  type Bins = { bucket: number; g: string | null; other: boolean; bin: number; n: number };
  const [rolled, rolledBins, logged, loggedBins] = await Promise.all([
    db.execute(sql`select ${rollBucket} as bucket, ${kept(rollGroup, rollOther)} as g, ${rollOther} as other, sum(requests)::float8 as requests, sum(errors)::float8 as errors,
        sum(input_tokens)::float8 as i, sum(output_tokens)::float8 as o, sum(cost_usd)::float8 as c,
        sum(unpriced)::float8 as u, sum(refused)::float8 as r, ${input.classes ? classMapOfColumns() : sql`null`} as cl
      from ${rollSource} group by 1, 2, 3`),
    db.execute(sql`select ${rollBucket} as bucket, ${kept(rollGroup, rollOther)} as g, ${rollOther} as other, b.key::int as bin, sum(b.value::int)::float8 as n
      from ${rollSource}, jsonb_each_text(latency) b group by 1, 2, 3, 4`),
    db.execute(sql`select (${ms} / ${size} * ${size})::float8 as bucket, ${kept(logGroup, logOther)} as g, ${logOther} as other, count(*)::float8 as requests,
        (count(*) filter (where status_code is null or status_code = 0 or status_code >= 400))::float8 as errors,
        coalesce(sum(input_tokens), 0)::float8 as i, coalesce(sum(output_tokens), 0)::float8 as o, coalesce(sum(cost_usd), 0)::float8 as c,
        (count(*) filter (where cost_flag is not null))::float8 as u, coalesce(sum(refusals), 0)::float8 as r, ${input.classes ? classMapFromLogs() : sql`null`} as cl
      from request_logs where ${whereAll(logWhere)} group by 1, 2, 3`),
    db.execute(sql`select (${ms} / ${size} * ${size})::float8 as bucket, ${kept(logGroup, logOther)} as g, ${logOther} as other, ${LATENCY_BIN} as bin, count(*)::float8 as n
      from request_logs where ${whereAll(logWhere)} and duration_ms is not null group by 1, 2, 3, 4`),
  ]);

  const cells = new Map<string, Cell>();
  const cellOf = (bucket: number, g: string | null, other: boolean) => {
    const key = `${bucket}\u0000${other}\u0000${g === null ? "\u0001" : g}`;
    let c = cells.get(key);
    if (!c) {
      c = { bucket, g, other, requests: 0, errors: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, classes: {}, unpriced: 0, refused: 0, hist: new Map() };
      cells.set(key, c);
    }
    return c;
  };
  for (const r of [...resultRows<Sums>(rolled), ...resultRows<Sums>(logged)]) {
    const c = cellOf(Number(r.bucket), r.g, isTrue(r.other));
    c.requests += Number(r.requests);
    c.errors += Number(r.errors);
    c.inputTokens += Number(r.i);
    c.outputTokens += Number(r.o);
    c.costUsd += Number(r.c);
    if (r.cl) addMap(c.classes, numberMap(r.cl));
    c.unpriced += Number(r.u);
    c.refused += Number(r.r);
  }
  for (const r of [...resultRows<Bins>(rolledBins), ...resultRows<Bins>(loggedBins)]) {
    const c = cellOf(Number(r.bucket), r.g, isTrue(r.other));
    c.hist.set(Number(r.bin), (c.hist.get(Number(r.bin)) ?? 0) + Number(r.n));
  }

  // The top groups by requests over the range, as the log path ranks them; the rest fold into "other"
  // (what the queries did not fold already).
  const perGroup = new Map<string | null, number>();
  for (const c of cells.values()) if (!c.other) perGroup.set(c.g, (perGroup.get(c.g) ?? 0) + c.requests);
  const ranked = rankGroups(perGroup);
  const top = new Set(ranked.slice(0, MAX_USAGE_GROUPS).map(([g]) => g));
  const folded = grouped && ranked.length > MAX_USAGE_GROUPS;

  type Acc = Omit<Cell, "bucket" | "g" | "other">;
  const empty = (): Acc => ({ requests: 0, errors: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, classes: {}, unpriced: 0, refused: 0, hist: new Map() });
  const add = (a: Acc, c: Acc) => {
    a.requests += c.requests;
    a.errors += c.errors;
    a.inputTokens += c.inputTokens;
    a.outputTokens += c.outputTokens;
    a.costUsd += c.costUsd;
    addMap(a.classes, c.classes);
    a.unpriced += c.unpriced;
    a.refused += c.refused;
    for (const [b, n] of c.hist) a.hist.set(b, (a.hist.get(b) ?? 0) + n);
  };
  const figures = (a: Acc): UsageFigures => ({
    requests: a.requests,
    errors: a.errors,
    inputTokens: a.inputTokens,
    outputTokens: a.outputTokens,
    costUsd: a.costUsd,
    classes: { ...a.classes },
    unpriced: a.unpriced,
    refused: a.refused,
    p50Ms: percentile(a.hist, 0.5),
    p95Ms: percentile(a.hist, 0.95),
  });
  const series = new Map<string, Acc & { start: number; group: string | null; other: boolean }>();
  const groups = new Map<string, Acc & { group: string | null; other: boolean }>();
  const totals = empty();
  for (const c of cells.values()) {
    if (!c.requests) continue;
    const other = c.other || (folded && !top.has(c.g));
    const group = other ? OTHER : c.g;
    const gk = `${other}\u0000${group ?? "\u0001"}`;
    const sk = `${c.bucket}\u0000${gk}`;
    if (!series.has(sk)) series.set(sk, { ...empty(), start: c.bucket, group, other });
    add(series.get(sk)!, c);
    if (!groups.has(gk)) groups.set(gk, { ...empty(), group, other });
    add(groups.get(gk)!, c);
    add(totals, c);
  }
  const byGroup = (a: { group: string | null; requests: number }, b: { group: string | null; requests: number }) =>
    b.requests - a.requests || String(a.group).localeCompare(String(b.group));
  return {
    bucket: input.bucket,
    from: input.from,
    to: input.to,
    series: [...series.values()]
      .map((s) => ({ start: new Date(s.start), group: grouped ? s.group : null, other: s.other, ...figures(s) }))
      .sort((a, b) => a.start.getTime() - b.start.getTime() || byGroup(a, b)),
    groups: grouped
      ? [...groups.values()].map((g) => ({ group: g.group, other: g.other, ...figures(g) })).sort((a, b) => Number(a.other) - Number(b.other) || byGroup(a, b))
      : [],
    totals: figures(totals),
  };
}
