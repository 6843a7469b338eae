import { sql } from "drizzle-orm";
import { dbOf, type BaseCtx } from "../../context";
import type { Queryable } from "../../../db/client";
import { logIdAt, resultRows } from "../internal";

// request_logs and request_log_bodies are partitioned by range of id, one partition per UTC day
// (migration 20261124040306_partition_logs). Days, not months: retention then frees disk a day at
// a time (a month would keep up to 30 days too many), and a day of logs at 10M a month (~330k rows)
// is a partition that is cheap to scan, index and drop. The first partition ("legacy") holds
// whatever existed before partitioning; a default partition catches ids outside every range.

const DAY_MS = 86_400_000;
/** Days of partitions kept ready ahead of today. */
export const PARTITION_DAYS_AHEAD = 3;
/** pg_advisory_xact_lock key: one process at a time creates or drops log partitions. */
const PARTITION_LOCK = 72_610_022;

type Bound = { name: string; from: string | null; to: string | null; isDefault: boolean };

const TABLES = [
  { table: "request_logs", key: "id" },
  { table: "request_log_bodies", key: "log_id" },
] as const;

/** The partitions of a table with their bounds (null: MINVALUE / MAXVALUE), oldest first. */
export async function listLogPartitions(db: Queryable, table: "request_logs" | "request_log_bodies" = "request_logs"): Promise<Bound[]> {
  const rows = resultRows<{ name: string; bound: string }>(
    await db.execute(sql`select c.relname as name, pg_get_expr(c.relpartbound, c.oid) as bound
      from pg_inherits i join pg_class c on c.oid = i.inhrelid join pg_class p on p.oid = i.inhparent
      where p.relname = ${table} and p.relnamespace = c.relnamespace and c.relnamespace = current_schema()::regnamespace`),
  );
  const out = rows.map((r) => {
    if (r.bound === "DEFAULT") return { name: r.name, from: null, to: null, isDefault: true };
    const m = /FROM \((.+)\) TO \((.+)\)/.exec(r.bound);
    const value = (v: string | undefined) => (!v || /^(MINVALUE|MAXVALUE)$/.test(v) ? null : v.replace(/^'|'$/g, "").replace(/''/g, "'"));
    return { name: r.name, from: value(m?.[1]), to: value(m?.[2]), isDefault: false };
  });
  return out.sort((a, b) => Number(a.isDefault) - Number(b.isDefault) || (a.from ?? "").localeCompare(b.from ?? ""));
}

const dayName = (ms: number) => new Date(ms).toISOString().slice(0, 10).replaceAll("-", "");
const ident = (s: string) => `"${s.replaceAll('"', '""')}"`;
const literal = (s: string) => `'${s.replaceAll("'", "''")}'`;

/**
 * Creates the day partitions from the newest existing one (or from `since`, for a backfill) up to
 * PARTITION_DAYS_AHEAD days past `now`, for both tables; the first one created also covers any
 * gap below it. Rows that landed in the default partition for a new day (a clock that
 * ran ahead) are moved into it. Returns the partitions created; a process that finds another
 * holding the lock does nothing.
 */
export async function ensureLogPartitions(ctx: BaseCtx, now: Date, opts: { since?: Date } = {}): Promise<string[]> {
  return dbOf(ctx).transaction(async (tx) => {
    const [lock] = resultRows<{ ok: boolean }>(await tx.execute(sql`select pg_try_advisory_xact_lock(${PARTITION_LOCK}) as ok`));
    if (!lock?.ok) return [];
    const existing = await listLogPartitions(tx);
    let upper = existing
      .filter((p) => !p.isDefault && p.to)
      .map((p) => p.to!)
      .sort()
      .at(-1);
    const created: string[] = [];
    const today = Math.floor(now.getTime() / DAY_MS) * DAY_MS;
    const first = Math.min(today, Math.floor((opts.since ?? now).getTime() / DAY_MS) * DAY_MS);
    for (let day = first; day <= today + PARTITION_DAYS_AHEAD * DAY_MS; day += DAY_MS) {
      const hi = logIdAt(new Date(day + DAY_MS));
      if (upper && hi <= upper) continue;
      const lo = upper ?? logIdAt(new Date(day));
      for (const { table, key } of TABLES) {
        const name = `${table}_p${dayName(day)}`;
        const moving = resultRows(
          await tx.execute(sql.raw(`select 1 from ${ident(`${table}_default`)} where ${key} >= ${literal(lo)} and ${key} < ${literal(hi)} limit 1`)),
        ).length;
        if (moving) {
          await tx.execute(
            sql.raw(
              `create temp table hone_moving on commit drop as select * from ${ident(`${table}_default`)} where ${key} >= ${literal(lo)} and ${key} < ${literal(hi)}`,
            ),
          );
          await tx.execute(sql.raw(`delete from ${ident(`${table}_default`)} where ${key} >= ${literal(lo)} and ${key} < ${literal(hi)}`));
        }
        await tx.execute(sql.raw(`create table ${ident(name)} partition of ${ident(table)} for values from (${literal(lo)}) to (${literal(hi)})`));
        if (moving) {
          await tx.execute(sql.raw(`insert into ${ident(table)} select * from hone_moving`));
          await tx.execute(sql.raw("drop table hone_moving"));
        }
        created.push(name);
      }
      upper = hi;
    }
    return created;
  });
}

/**
 * Drops, for retention, every day partition (both tables) that holds only logs older than
 * `before`: no DELETE, the disk is freed at once. Dataset entries imported from those logs keep
 * existing, with their source log cleared first. Logs older than `before` in a partition that also
 * holds newer ones are the caller's (deleteExpiredLogs). Returns the partitions dropped.
 */
export async function dropExpiredLogPartitions(ctx: BaseCtx, before: Date): Promise<string[]> {
  const bound = logIdAt(before);
  return dbOf(ctx).transaction(async (tx) => {
    const [lock] = resultRows<{ ok: boolean }>(await tx.execute(sql`select pg_try_advisory_xact_lock(${PARTITION_LOCK}) as ok`));
    if (!lock?.ok) return [];
    const dropped: string[] = [];
    const bodies = await listLogPartitions(tx, "request_log_bodies");
    for (const p of await listLogPartitions(tx)) {
      if (p.isDefault || !p.to || p.to > bound) continue;
      await tx.execute(
        sql`update dataset_entries set source_log_id = null where source_log_id < ${p.to} and ${p.from === null ? sql`true` : sql`source_log_id >= ${p.from}`}`,
      );
      const twin = bodies.find((b) => !b.isDefault && b.from === p.from && b.to === p.to);
      if (twin) await tx.execute(sql.raw(`drop table ${ident(twin.name)}`));
      await tx.execute(sql.raw(`drop table ${ident(p.name)}`));
      dropped.push(p.name);
    }
    return dropped;
  });
}
