import { sql, type SQL } from "drizzle-orm";
import { type BaseCtx, type Ctx, dbOf } from "../../context";
import type { Queryable } from "../../../db/client";
import { CLASS_SUM_KEYS } from "../../pricing";
import { logIdAt, logMsOf, resultRows } from "../internal";

// Usage rollups: per project and closed UTC hour, the requests, errors, tokens, cost and a latency
// histogram of the logs, per model / provider / source / status class (usage_hourly) and per value
// of one metadata key (usage_hourly_tags, HONE_USAGE_TAG_KEY). A periodic job closes hours some
// minutes after they end (closeUsageHours); whatever changes logs of a closed hour afterwards (tag
// updates, deletes, a writer's late batch) sums those hours again from the logs, so the rollups
// always equal the logs. The usage API reads them for closed hours and the logs only after.

export const HOUR_MS = 3_600_000;
/** pg_advisory_xact_lock key: one process at a time closes hours. */
const ROLLUP_LOCK = 72_610_023;
/** Hours closed per run at most, so a first run over months of logs is done in short steps. */
const MAX_HOURS_PER_RUN = 48;
/** Closed hours checked again on each run against the logs (a batch that came in late). */
const RECHECK_HOURS = 6;

export type RollupState = { closedUntil: Date | null; tagKey: string };

/** 4 bins per doubling of duration_ms (about ±9% around a bin's middle). */
export const LATENCY_BIN = sql`case when duration_ms is null then null else floor(ln(duration_ms::float8 + 1) / ln(2) * 4)::int end`;
export const binBounds = (bin: number): [number, number] => [2 ** (bin / 4) - 1, 2 ** ((bin + 1) / 4) - 1];
const STATUS_CLASS = sql`case when status_code is null or status_code = 0 then 'none' else (status_code / 100)::text || 'xx' end`;
const IS_ERROR = sql`(status_code is null or status_code = 0 or status_code >= 400)`;

// A log keeps its tokens and cost by class as a small map (request_logs.classes); the rollups keep
// their sums as a column per figure (class_input_tokens, class_input_usd, ...), so summing them is
// plain column arithmetic.
const CLASS_COLUMNS = CLASS_SUM_KEYS.map((k) => `class_${k}`);
/** The rollups' class columns, comma-separated (for insert column lists). */
export const CLASS_COLUMN_LIST = sql.raw(CLASS_COLUMNS.join(", "));

/** The class sums of the logs of a group, `class_<key>` each (`alias`: the logs' table alias, with its dot). */
export const classSumsFromLogs = (alias = "") =>
  sql.raw(CLASS_SUM_KEYS.map((k) => `coalesce(sum((${alias}classes ->> '${k}')::float8), 0)::float8 as class_${k}`).join(", "));

/** The class sums of rollup rows (or of a select with the same columns), `class_<key>` each. */
export const classSumsOfColumns = () => sql.raw(CLASS_COLUMNS.map((c) => `coalesce(sum(${c}), 0)::float8 as ${c}`).join(", "));

/**
 * The class sums of a group as one small map of the figures that are not zero: a reader of many
 * groups (usage by hour and tag: tens of thousands) then parses one JSON value per row, not 18 columns.
 */
const classMap = (term: (k: string) => string) =>
  sql.raw(`jsonb_strip_nulls(jsonb_build_object(${CLASS_SUM_KEYS.map((k) => `'${k}', nullif(${term(k)}, 0)`).join(", ")}))`);
/** classMap over rollup rows. */
export const classMapOfColumns = () => classMap((k) => `sum(class_${k})`);
/** classMap over logs (`alias`: the logs' table alias, with its dot). */
export const classMapFromLogs = (alias = "") => classMap((k) => `sum((${alias}classes ->> '${k}')::float8)`);

/** A classes map as the driver hands it (an object, or its JSON text), numbers only. */
export function numberMap(v: unknown): Record<string, number> {
  const o = typeof v === "string" ? (JSON.parse(v) as unknown) : v;
  const out: Record<string, number> = {};
  if (o && typeof o === "object") for (const [k, n] of Object.entries(o)) out[k] = Number(n);
  return out;
}

const floorHour = (ms: number) => Math.floor(ms / HOUR_MS) * HOUR_MS;
const hourOfId = (id: string): number | null => (/^log_[0-9a-f]{12}/.test(id) ? floorHour(Number.parseInt(id.slice(4, 16), 16)) : null);

export async function readRollupState(db: Queryable): Promise<RollupState | null> {
  const [row] = resultRows<{ closed_until: string | Date | null; tag_key: string }>(
    await db.execute(sql`select closed_until, tag_key from usage_rollup_state where id = 1`),
  );
  if (!row) return null;
  return { closedUntil: row.closed_until ? new Date(row.closed_until) : null, tagKey: row.tag_key };
}

/** Sums the logs matching `where` into both rollup tables, per project and hour. */
async function rollUp(db: Queryable, tagKey: string, where: SQL): Promise<void> {
  const base = sql`select project_id, to_timestamp((${logMsOf(sql`id`)} / ${HOUR_MS}) * 3600) as hour, model, provider, source,
      ${STATUS_CLASS} as status_class, metadata ->> ${tagKey}::text as tag, ${LATENCY_BIN} as bin,
      ${IS_ERROR} as is_error, input_tokens, output_tokens, cost_usd, classes, cost_flag is not null as unpriced, coalesce(refusals, 0) as refused_n
    from request_logs where ${where}`;
  const measures = sql`sum(n)::int, sum(e)::int, sum(i)::float8, sum(o)::float8, sum(c)::float8,
    coalesce(jsonb_object_agg(bin, n) filter (where bin is not null), '{}'::jsonb), sum(u)::int, sum(r)::int, ${classSumsOfColumns()}`;
  const inner = (dims: SQL) => sql`select ${dims}, bin, count(*) as n, count(*) filter (where is_error) as e,
      coalesce(sum(input_tokens), 0) as i, coalesce(sum(output_tokens), 0) as o, coalesce(sum(cost_usd), 0) as c,
      count(*) filter (where unpriced) as u, sum(refused_n) as r, ${classSumsFromLogs()}
    from (${base}) x group by ${dims}, bin`;
  const dims = sql`project_id, hour, model, provider, source, status_class`;
  await db.execute(sql`insert into usage_hourly (project_id, hour, model, provider, source, status_class,
      requests, errors, input_tokens, output_tokens, cost_usd, latency, unpriced, refused, ${CLASS_COLUMN_LIST})
    select ${dims}, ${measures} from (${inner(dims)}) s group by ${dims}`);
  const tagDims = sql`project_id, hour, tag`;
  await db.execute(sql`insert into usage_hourly_tags (project_id, hour, tag, requests, errors, input_tokens, output_tokens, cost_usd, latency, unpriced, refused,
      ${CLASS_COLUMN_LIST})
    select ${tagDims}, ${measures} from (${inner(tagDims)}) s group by ${tagDims}`);
}

const DAY_MS = 86_400_000;
const floorDay = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS;

/**
 * Sums the hourly rollups of these days into the daily ones (all projects, or one), merging the
 * latency histograms: usage by day over a month then reads 24 times fewer rows.
 */
async function rollUpDays(db: Queryable, days: number[], projectId?: string): Promise<void> {
  if (!days.length) return;
  const list = sql.join(
    [...new Set(days)].map((d) => sql`${new Date(d).toISOString()}::timestamptz`),
    sql`, `,
  );
  const project = projectId ? sql` and project_id = ${projectId}` : sql``;
  const day = sql`date_trunc('day', hour at time zone 'UTC') at time zone 'UTC'`;
  for (const [hourly, daily, dims] of [
    ["usage_hourly", "usage_daily", "model, provider, source, status_class"],
    ["usage_hourly_tags", "usage_daily_tags", "tag"],
  ] as const) {
    await db.execute(sql`delete from ${sql.raw(daily)} where day in (${list})${project}`);
    await db.execute(sql`insert into ${sql.raw(daily)} (project_id, day, ${sql.raw(dims)}, requests, errors, input_tokens, output_tokens, cost_usd, latency,
        unpriced, refused, ${CLASS_COLUMN_LIST})
      select project_id, d, ${sql.raw(dims)}, sum(requests)::int, sum(errors)::int, sum(input_tokens), sum(output_tokens), sum(cost_usd),
        coalesce((select jsonb_object_agg(k, n) from (select key as k, sum(value::int) as n
          from unnest(array_agg(latency)) l, jsonb_each_text(l) group by key) b), '{}'::jsonb),
        sum(unpriced)::int, sum(refused)::int, ${classSumsOfColumns()}
      from (select *, ${day} as d from ${sql.raw(hourly)} where ${day} in (${list})${project}) h
      group by project_id, d, ${sql.raw(dims)}`);
  }
}

const idRange = (from: number, to: number) => sql`id >= ${logIdAt(new Date(from))} and id < ${logIdAt(new Date(to))}`;

/** Sums these hours of one project again from its logs (they changed). */
async function recomputeHours(db: Queryable, state: RollupState, projectId: string, hours: number[]): Promise<void> {
  if (!hours.length) return;
  const list = sql.join(
    hours.map((h) => sql`${new Date(h).toISOString()}::timestamptz`),
    sql`, `,
  );
  await db.execute(sql`delete from usage_hourly where project_id = ${projectId} and hour in (${list})`);
  await db.execute(sql`delete from usage_hourly_tags where project_id = ${projectId} and hour in (${list})`);
  const ranges = sql.join(
    hours.map((h) => sql`(${idRange(h, h + HOUR_MS)})`),
    sql` or `,
  );
  await rollUp(db, state.tagKey, sql`project_id = ${projectId} and (${ranges})`);
  await rollUpDays(
    db,
    hours.map((h) => floorDay(h)),
    projectId,
  );
}

/**
 * Keeps the usage rollups equal to the logs after logs of a project changed or went away (tags
 * rewritten, logs deleted by a filter): the closed hours these logs fall in are summed again from
 * what is stored. Call it in the same transaction as the change, after it.
 */
export async function refreshRollupsForLogs(db: Queryable, projectId: string, logIds: readonly string[]): Promise<void> {
  if (!logIds.length) return;
  const state = await readRollupState(db);
  if (!state?.closedUntil) return;
  const closed = state.closedUntil.getTime();
  const hours = [...new Set(logIds.map(hourOfId).filter((h): h is number => h !== null && h < closed))];
  await recomputeHours(db, state, projectId, hours);
}

/**
 * Deleting logs and keeping the rollups equal to what is left, in three steps of one transaction:
 * `prepareGone` (the rollup state, and the session's temporary table of deleted logs' dimensions),
 * then any number of deleting statements that add `noteGone(state, "gone")` as a data-modifying
 * CTE over their `returning` rows (columns of request_logs), then `subtractGone` with the closed
 * hours of the logs deleted (`closedHours`): their counts, sums and latency bins are subtracted
 * from the rollups of those hours (and days), rows left with no call go. Proportional to the logs deleted, where summing
 * their hours again would read every log of those hours.
 */
export async function prepareGone(db: Queryable): Promise<RollupState | null> {
  const state = await readRollupState(db);
  if (!state?.closedUntil) return null;
  await db.execute(sql`create temp table if not exists hone_gone (hour timestamptz, model text, provider text, source text,
    status_class text, tag text, bin int, is_error boolean, i float8, o float8, c float8, u boolean, r int,
    ${sql.raw(CLASS_COLUMNS.map((c) => `${c} float8`).join(", "))}) on commit delete rows`);
  return state;
}

/** The CTE body that notes the rollup dimensions of `source`'s rows in closed hours (see prepareGone). */
export function noteGone(state: RollupState, source: string): SQL {
  return sql`insert into hone_gone select to_timestamp((${logMsOf(sql`id`)} / ${HOUR_MS}) * 3600), model, provider, source,
      ${STATUS_CLASS}, metadata ->> ${state.tagKey}::text, ${LATENCY_BIN}, ${IS_ERROR},
      coalesce(input_tokens, 0), coalesce(output_tokens, 0), coalesce(cost_usd, 0), cost_flag is not null, coalesce(refusals, 0),
      ${sql.raw(CLASS_SUM_KEYS.map((k) => `coalesce((classes ->> '${k}')::float8, 0)`).join(", "))}
    from ${sql.raw(source)} where id < ${logIdAt(state.closedUntil!)}`;
}

/** What `noteGone` needs of each deleted row, for a `returning` clause. */
export const GONE_COLUMNS = sql.raw(
  "id, model, provider, source, status_code, duration_ms, metadata, input_tokens, output_tokens, cost_usd, classes, cost_flag, refusals",
);

/** The closed hours (ms, each once) among these log ids: the rollup rows a delete changes. */
export function closedHours(state: RollupState, ids: Iterable<string>): number[] {
  const closed = state.closedUntil?.getTime() ?? Number.NEGATIVE_INFINITY;
  const hours = new Set<number>();
  for (const id of ids) {
    const h = hourOfId(id);
    if (h !== null && h < closed) hours.add(h);
  }
  return [...hours];
}

/** Subtracts the noted logs from the rollups of these hours and their days (see prepareGone). */
export async function subtractGone(db: Queryable, projectId: string, hours: readonly number[]): Promise<void> {
  if (!hours.length) return;
  // Each hour (day) by the (project_id, hour) index: a sparse delete touches a few hours of a month.
  const instants = (ms: number[]) => sql`any(string_to_array(${[...new Set(ms)].map((h) => new Date(h).toISOString()).join(",")}, ',')::timestamptz[])`;
  // An equality the planner can hash on (nulls as ''), then the exact test: is not distinct from
  // alone is a join filter tried against every rollup row of the hour.
  const same = (dims: readonly string[]) =>
    sql.raw(dims.map((d) => `coalesce(u.${d}, '') = coalesce(a.${d}, '') and u.${d} is not distinct from a.${d}`).join(" and "));
  const tables = [
    { table: "usage_hourly", time: "hour", dims: ["model", "provider", "source", "status_class"] },
    { table: "usage_hourly_tags", time: "hour", dims: ["tag"] },
    { table: "usage_daily", time: "day", dims: ["model", "provider", "source", "status_class"] },
    { table: "usage_daily_tags", time: "day", dims: ["tag"] },
  ] as const;
  const update = (k: number): SQL => {
    const { table, time, dims } = tables[k]!;
    const t = sql.raw(time === "hour" ? "hour" : "date_trunc('day', hour at time zone 'UTC') at time zone 'UTC'");
    const cols = sql.raw(dims.join(", "));
    // The hourly tables are updated row by row through their (project, hour, model or tag) index;
    // the daily ones, smaller, by their days' rows.
    const span = sql`u.project_id = ${projectId} and u.${sql.raw(time)} = ${instants(time === "hour" ? [...hours] : hours.map(floorDay))}`;
    const [b, a, u] = [`b${k}`, `a${k}`, `u${k}`].map((n) => sql.raw(n)) as [SQL, SQL, SQL];
    // Per bin first, then per row with the bins as the histogram to take away: two aggregations,
    // no lookup per group. The rows it empties come back (their ctid: this transaction holds
    // their locks until it ends, so the ctid stays theirs) to be deleted by it.
    return sql`${b} as (select ${t} as t, ${cols}, bin, count(*) as n, count(*) filter (where is_error) as e, sum(i) as i, sum(o) as o, sum(c) as c,
          count(*) filter (where u) as pu, sum(r) as pr, ${classSumsOfColumns()}
          from hone_gone group by 1, ${cols}, bin),
      ${a} as (select t, ${cols}, sum(n)::int as n, sum(e)::int as e, sum(i) as i, sum(o) as o, sum(c) as c,
          coalesce(jsonb_object_agg(bin, n) filter (where bin is not null), '{}'::jsonb) as h, sum(pu)::int as pu, sum(pr)::int as pr, ${classSumsOfColumns()}
        from ${b} group by t, ${cols}),
      ${u} as (update ${sql.raw(table)} u set requests = u.requests - a.n, errors = u.errors - a.e, input_tokens = u.input_tokens - a.i,
        output_tokens = u.output_tokens - a.o, cost_usd = u.cost_usd - a.c, latency = hone_hist_sub(u.latency, a.h),
        unpriced = u.unpriced - a.pu, refused = u.refused - a.pr, ${sql.raw(CLASS_COLUMNS.map((c) => `${c} = u.${c} - a.${c}`).join(", "))}
      from ${a} a where ${time === "hour" ? sql`u.project_id = ${projectId}` : span} and u.${sql.raw(time)} = a.t and ${same(dims)}
      returning u.ctid, u.requests)`;
  };
  const run = async (ks: number[]) => {
    const emptied = resultRows<{ k: number; tid: string }>(
      await db.execute(
        sql`with ${sql.join(
          ks.map((k) => update(k)),
          sql`, `,
        )} ${sql.join(
          ks.map((k) => sql`select ${k}::int as k, ctid::text as tid from ${sql.raw(`u${k}`)} where requests <= 0`),
          sql` union all `,
        )}`,
      ),
    );
    for (const k of ks) {
      const tids = emptied.filter((r) => Number(r.k) === k).map((r) => r.tid);
      if (tids.length) await db.execute(sql`delete from ${sql.raw(tables[k]!.table)} where ctid = any(${`{${tids.map((t) => `"${t}"`).join(",")}}`}::tid[])`);
    }
  };
  // The daily tables first, as the planner likes (a hash over the days' rows). Then the hourly ones
  // row by row through their index, always: with statistics a little behind the rollups (hours
  // closed since the last analyze) the planner would sort or hash every hourly row of the project
  // instead (37,000 at 300,000 logs: 150 ms a batch of 1,000, two thirds of the delete). The
  // settings are this transaction's (gone with it if it fails), and back to their defaults after.
  await run([2, 3]);
  await db.execute(sql`set local enable_hashjoin = off`);
  await db.execute(sql`set local enable_mergejoin = off`);
  await run([0, 1]);
  await db.execute(sql`set local enable_hashjoin to default`);
  await db.execute(sql`set local enable_mergejoin to default`);
}

/**
 * Closes the hours that ended at least HONE_USAGE_CLOSE_GRACE_MS before `now` (at most 48 per
 * call, oldest first) into the rollups, and checks the last few closed hours again against the
 * logs (recounting a project's hour whose number of calls changed). When the configured tag key
 * changed, the rollups are rebuilt from the start. Returns the hours closed. One process at a
 * time: another that finds the lock held does nothing.
 */
export async function closeUsageHours(ctx: BaseCtx, now: Date): Promise<number> {
  const { tagKey, grace } = { tagKey: ctx.deps.config.usageTagKey, grace: ctx.deps.config.usageCloseGraceMs };
  return dbOf(ctx).transaction(async (tx) => {
    const [lock] = resultRows<{ ok: boolean }>(await tx.execute(sql`select pg_try_advisory_xact_lock(${ROLLUP_LOCK}) as ok`));
    if (!lock?.ok) return 0;
    let state = await readRollupState(tx);
    if (!state || state.tagKey !== tagKey) {
      for (const table of ["usage_hourly", "usage_hourly_tags", "usage_daily", "usage_daily_tags"]) await tx.execute(sql.raw(`delete from ${table}`));
      await tx.execute(sql`insert into usage_rollup_state (id, closed_until, tag_key) values (1, null, ${tagKey})
        on conflict (id) do update set closed_until = null, tag_key = excluded.tag_key`);
      state = { closedUntil: null, tagKey };
    }
    const target = floorHour(now.getTime() - grace);
    let start = state.closedUntil?.getTime() ?? null;
    if (start === null) {
      const [oldest] = resultRows<{ id: string }>(await tx.execute(sql`select id from request_logs order by id limit 1`));
      start = (oldest && hourOfId(oldest.id)) ?? target;
    }
    const upto = Math.min(target, start + MAX_HOURS_PER_RUN * HOUR_MS);
    let closed = 0;
    if (upto > start) {
      await tx.execute(sql`delete from usage_hourly where hour >= ${new Date(start).toISOString()}::timestamptz`);
      await tx.execute(sql`delete from usage_hourly_tags where hour >= ${new Date(start).toISOString()}::timestamptz`);
      await rollUp(tx, tagKey, idRange(start, upto));
      const days: number[] = [];
      for (let d = floorDay(start); d < upto; d += DAY_MS) days.push(d);
      await rollUpDays(tx, days);
      await tx.execute(sql`update usage_rollup_state set closed_until = ${new Date(upto).toISOString()}::timestamptz where id = 1`);
      closed = (upto - start) / HOUR_MS;
      state = { closedUntil: new Date(upto), tagKey };
    }
    if (state.closedUntil) {
      // A writer's batch that committed after its hour closed: its project-hour is recounted.
      const end = state.closedUntil.getTime();
      const from = Math.max(end - RECHECK_HOURS * HOUR_MS, 0);
      const stale = resultRows<{ project_id: string; hour: string | Date }>(
        await tx.execute(sql`
          with raw as (
            select project_id, to_timestamp((${logMsOf(sql`id`)} / ${HOUR_MS}) * 3600) as hour, count(*)::int as n
            from request_logs where ${idRange(from, end)} group by 1, 2
          ), rolled as (
            select project_id, hour, sum(requests)::int as n from usage_hourly
            where hour >= ${new Date(from).toISOString()}::timestamptz and hour < ${new Date(end).toISOString()}::timestamptz group by 1, 2
          )
          select coalesce(raw.project_id, rolled.project_id) as project_id, coalesce(raw.hour, rolled.hour) as hour
          from raw full join rolled on raw.project_id = rolled.project_id and raw.hour = rolled.hour
          where raw.n is distinct from rolled.n`),
      );
      // And the hours marked stale by logs written for a time long past (markUsageHourStale).
      const marked = resultRows<{ project_id: string; hour: string | Date }>(
        await tx.execute(sql`delete from usage_stale_hours where hour < ${state.closedUntil.toISOString()}::timestamptz returning project_id, hour`),
      );
      const byProject = new Map<string, number[]>();
      for (const s of [...stale, ...marked]) {
        const hours = byProject.get(s.project_id) ?? [];
        const h = new Date(s.hour).getTime();
        if (!hours.includes(h)) hours.push(h);
        byProject.set(s.project_id, hours);
      }
      for (const [projectId, hours] of byProject) await recomputeHours(tx, state, projectId, hours);
    }
    return closed;
  });
}

/**
 * After a log was written for a time long past (a backfilled report): its project-hour is marked
 * to be summed again by the next run of closeUsageHours (within a minute), instead of right now
 * per report (a backfill of thousands would sum the same hour thousands of times). Hours within
 * RECHECK_HOURS of the newest closed one are rechecked on every run anyway.
 */
export async function markUsageHourStale(ctx: Ctx, logId: string): Promise<void> {
  const hour = hourOfId(logId);
  if (hour === null || hour >= ctx.deps.clock().getTime() - RECHECK_HOURS * HOUR_MS) return;
  await dbOf(ctx).execute(sql`insert into usage_stale_hours (project_id, hour) values (${ctx.projectId}, ${new Date(hour).toISOString()}::timestamptz)
    on conflict do nothing`);
}

/** Drops the rollups of hours before `before` (their logs are gone with retention); the day it falls in is summed again. */
export async function dropExpiredUsageRollups(ctx: BaseCtx, before: Date): Promise<void> {
  await dbOf(ctx).transaction(async (tx) => {
    const at = before.toISOString();
    await tx.execute(sql`delete from usage_hourly where hour < ${at}::timestamptz`);
    await tx.execute(sql`delete from usage_hourly_tags where hour < ${at}::timestamptz`);
    await tx.execute(sql`delete from usage_daily where day < ${at}::timestamptz`);
    await tx.execute(sql`delete from usage_daily_tags where day < ${at}::timestamptz`);
    await rollUpDays(tx, [floorDay(before.getTime())]);
  });
}
