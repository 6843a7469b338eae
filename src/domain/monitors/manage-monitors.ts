import { and, asc, count, eq, type SQL, sql } from "drizzle-orm";
import { type ListPageInput, orderedPage } from "../list-page";
import { type BaseCtx, dbOf, type Ctx } from "../context";
import { monitorLogs, monitorSeen, monitors, requestLogs } from "../../db/schema";
import { DomainError, notFound, parseInput } from "../../core/errors";
import { requireScope } from "../projects";
import { resolveCriterion } from "../criteria";
import { findDataset, asksForInternal } from "../datasets";
import { LogFilter, logConditions, logIdAt, resultRows, whereAll } from "../logs";
import { sampleUnitSql } from "../sample-unit";
import { BackfillMonitorInput, CreateMonitorInput, type Monitor, MonitorIdInput, UpdateMonitorInput } from "./schemas";

/** A project's monitors, at most. */
export const MAX_MONITORS = 50;
/** Calls one backfill offers, at most (the oldest first): a longer range takes several. */
export const MAX_BACKFILL = 100_000;

type Row = typeof monitors.$inferSelect;

function toMonitor(row: Row, waiting: number, seenPending: number): Monitor {
  return {
    id: row.id,
    name: row.name,
    filter: row.filter,
    criterionId: row.criterion,
    keepOn: row.keepOn,
    sampleRate: row.sampleRate,
    datasetId: row.datasetId,
    testFraction: row.testFraction,
    status: row.status,
    lastError: row.lastError,
    counts: {
      seen: row.seen + seenPending,
      sampled: row.sampled,
      matched: row.matched,
      judged: row.judged,
      rejected: row.rejected,
      added: row.added,
      duplicates: row.duplicates,
      invalid: row.invalid,
      waiting,
    },
    judgeCostUsd: row.judgeCostUsd,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** What a monitor's calls waiting to be examined are counted by: in the statement that reads the monitor, so both are one snapshot. */
const WAITING = sql<number>`(select count(*) from ${monitorLogs} where ${monitorLogs.monitorId} = ${monitors.id} and ${monitorLogs.outcome} is null)::int`;
/** What the log writers appended to its seen count and the runner has not summed yet. */
const SEEN_PENDING = sql<number>`(select coalesce(sum(n), 0) from ${monitorSeen} where ${monitorSeen.monitorId} = ${monitors.id})::int`;

/** The project's monitors matching `where`, each with its waiting count read in the same statement as its counters. */
async function readMonitors(ctx: Ctx, where: SQL | undefined, limit: number): Promise<Monitor[]> {
  const rows = await dbOf(ctx)
    .select({ row: monitors, waiting: WAITING, seen: SEEN_PENDING })
    .from(monitors)
    .where(and(eq(monitors.projectId, ctx.projectId), where))
    .orderBy(asc(monitors.id))
    .limit(limit);
  return rows.map((r) => toMonitor(r.row, Number(r.waiting), Number(r.seen)));
}

async function findRow(ctx: Ctx, id: string): Promise<Row> {
  const [row] = await dbOf(ctx)
    .select()
    .from(monitors)
    .where(and(eq(monitors.id, id), eq(monitors.projectId, ctx.projectId)));
  if (!row) throw notFound("Monitor", id);
  return row;
}

/** A stored filter as the log queries take it (its times as Dates). */
export function storedFilter(filter: Record<string, unknown>): LogFilter {
  return LogFilter.parse(filter);
}

/** The criterion reference as stored: checked to exist in the project now. */
async function checkedCriterion(ctx: Ctx, ref: string): Promise<string> {
  await resolveCriterion(ctx, ref);
  return ref;
}

/** The project's monitors, oldest first. */
/** A page of the project's monitors, oldest first (list-page.ts). */
export async function listMonitors(ctx: Ctx, raw?: ListPageInput): Promise<Monitor[]> {
  const page = await orderedPage(ctx, raw, { table: monitors, id: monitors.id, scope: eq(monitors.projectId, ctx.projectId), what: "project's monitors" });
  return readMonitors(ctx, page.after, Math.min(page.limit, MAX_MONITORS));
}

export async function getMonitor(ctx: Ctx, raw: { id: string }): Promise<Monitor> {
  const { id } = parseInput(MonitorIdInput, raw);
  const [m] = await readMonitors(ctx, eq(monitors.id, id), 1);
  if (!m) throw notFound("Monitor", id);
  return m;
}

/**
 * Saves a monitor. From then on, each answered call of the application that falls in its sample is
 * offered to it as it is stored; the background runner (run-monitors.ts) examines it.
 */
export async function createMonitor(ctx: Ctx, raw: CreateMonitorInput): Promise<Monitor> {
  requireScope(ctx.actor, "write", "create monitors");
  const input = parseInput(CreateMonitorInput, raw);
  await findDataset(ctx, input.datasetId);
  const criterion = input.criterionId ? await checkedCriterion(ctx, input.criterionId) : null;
  const db = dbOf(ctx);
  const [{ n }] = (await db.select({ n: count() }).from(monitors).where(eq(monitors.projectId, ctx.projectId))) as [{ n: number }];
  if (Number(n) >= MAX_MONITORS) {
    throw new DomainError("VALIDATION", `A project has at most ${MAX_MONITORS} monitors; delete one first`, {
      issues: [{ message: `at most ${MAX_MONITORS} monitors`, path: ["name"] }],
    });
  }
  const filter = input.filter ?? {};
  const now = ctx.deps.clock();
  const [row] = await db
    .insert(monitors)
    .values({
      id: ctx.deps.ids("monitor"),
      projectId: ctx.projectId,
      name: input.name,
      filter: filter as Record<string, unknown>,
      includeInternal: asksForInternal({ filter }),
      criterion,
      keepOn: input.keepOn ?? "PASS",
      sampleRate: input.sampleRate ?? 1,
      datasetId: input.datasetId,
      testFraction: input.testFraction ?? 0.2,
      status: input.paused ? "PAUSED" : "ACTIVE",
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  return toMonitor(row!, 0, 0);
}

/** Changes what a monitor keeps (from the next calls it examines on), or pauses and resumes it. */
export async function updateMonitor(ctx: Ctx, raw: UpdateMonitorInput): Promise<Monitor> {
  requireScope(ctx.actor, "write", "change monitors");
  const input = parseInput(UpdateMonitorInput, raw);
  await findRow(ctx, input.id);
  const set: Partial<typeof monitors.$inferInsert> = { updatedAt: ctx.deps.clock() };
  if (input.name != null) set.name = input.name;
  if (input.filter != null) {
    set.filter = input.filter as Record<string, unknown>;
    set.includeInternal = asksForInternal({ filter: input.filter });
  }
  if (input.criterionId !== undefined) set.criterion = input.criterionId === null ? null : await checkedCriterion(ctx, input.criterionId);
  if (input.keepOn != null) set.keepOn = input.keepOn;
  if (input.sampleRate != null) set.sampleRate = input.sampleRate;
  if (input.testFraction != null) set.testFraction = input.testFraction;
  if (input.status != null) {
    set.status = input.status;
    if (input.status === "ACTIVE") set.lastError = null;
  }
  const [row] = await dbOf(ctx)
    .update(monitors)
    .set(set)
    .where(and(eq(monitors.id, input.id), eq(monitors.projectId, ctx.projectId)))
    .returning();
  if (!row) throw notFound("Monitor", input.id);
  return getMonitor(ctx, { id: row.id });
}

/** Deletes a monitor and what it was offered; the entries it added stay in their dataset. */
export async function deleteMonitor(ctx: Ctx, raw: { id: string }): Promise<{ id: string }> {
  requireScope(ctx.actor, "write", "delete monitors");
  const { id } = parseInput(MonitorIdInput, raw);
  const [gone] = await dbOf(ctx)
    .delete(monitors)
    .where(and(eq(monitors.id, id), eq(monitors.projectId, ctx.projectId)))
    .returning({ id: monitors.id });
  if (!gone) throw notFound("Monitor", id);
  return gone;
}

/**
 * Offers a monitor the calls made in a time range that its filter matches and its sample holds,
 * as if it had been running then: the runner examines them like live ones. A call it already
 * examined and kept, rejected or added is not offered again, so a backfill over a range it ran
 * live through adds nothing twice.
 */
export async function backfillMonitor(ctx: Ctx, raw: BackfillMonitorInput): Promise<{ offered: number; capped: boolean }> {
  requireScope(ctx.actor, "write", "backfill monitors");
  const input = parseInput(BackfillMonitorInput, raw);
  const row = await findRow(ctx, input.id);
  await ctx.deps.logWriter.flush();
  const to = input.to ?? ctx.deps.clock();
  const where = logConditions(ctx.projectId, storedFilter(row.filter), { lo: logIdAt(input.from), hi: logIdAt(new Date(to.getTime() + 1)) });
  where.push(eq(requestLogs.statusCode, 200), sql`${requestLogs.api} <> 'embeddings'`, sql`${sampleUnitSql(sql`${requestLogs.id}`)} < ${row.sampleRate}`);
  if (!row.includeInternal) where.push(sql`${requestLogs.source} <> 'internal'`);
  const picked = dbOf(ctx)
    .select({ monitorId: sql<string>`${row.id}::text`.as("monitor_id"), logId: sql<string>`${requestLogs.id}`.as("log_id") })
    .from(requestLogs)
    .where(whereAll(where))
    .orderBy(asc(requestLogs.id))
    .limit(MAX_BACKFILL);
  const result = await dbOf(ctx).execute(sql`with picked as (${picked}), offered as (
      insert into ${monitorLogs} (monitor_id, log_id) select monitor_id, log_id from picked on conflict do nothing returning 1)
    select (select count(*) from offered)::int as offered, (select count(*) from picked)::int as picked`);
  const r = resultRows<{ offered: number; picked: number }>(result)[0]!;
  return { offered: Number(r.offered), capped: Number(r.picked) >= MAX_BACKFILL };
}

/**
 * What the monitors remember of calls made before `before` (HONE_LOG_RETENTION_DAYS): the calls
 * themselves are gone, so is the memory that kept a backfill from examining them twice. Per monitor,
 * by its primary key's range, in batches.
 */
export async function deleteExpiredMonitorLogs(ctx: BaseCtx, input: { before: Date; batchSize?: number }): Promise<number> {
  const bound = logIdAt(input.before);
  const batch = input.batchSize ?? 5_000;
  const db = dbOf(ctx);
  let deleted = 0;
  for (const { id } of await db.select({ id: monitors.id }).from(monitors)) {
    for (;;) {
      const gone = resultRows<{ n: number }>(
        await db.execute(sql`with doomed as (
          select log_id from ${monitorLogs} where monitor_id = ${id} and log_id < ${bound} order by log_id limit ${batch})
          , gone as (delete from ${monitorLogs} where monitor_id = ${id} and log_id in (select log_id from doomed) returning 1)
          select count(*)::int as n from gone`),
      )[0]!.n;
      deleted += Number(gone);
      if (Number(gone) < batch) break;
    }
  }
  return deleted;
}
