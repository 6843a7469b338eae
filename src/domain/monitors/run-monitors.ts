import { and, asc, eq, inArray, isNull, lt, or, sql } from "drizzle-orm";
import pLimit from "p-limit";
import type { Ctx } from "../context";
import type { Deps } from "../deps";
import { datasetEntries, datasets, monitorLogs, monitorSeen, monitors, requestLogBodies, requestLogs } from "../../db/schema";
import { toDomainError } from "../../core/errors";
import { errorFields } from "../../core/logger";
import { estimateCost } from "../calls";
import { resolveCriterion, judgeOutput } from "../criteria";
import type { ResolvedCriterion } from "../criteria";
import { byteBoundedBatches, rejectedOf, entryContentHash, insertEntries, type NewEntry } from "../datasets";
import { logToEntry, logConditions, resultRows, whereAll } from "../logs";
import type { DatasetEntryInput } from "../datasets";
import { sampleUnit } from "../sample-unit";
import { storedFilter } from "./manage-monitors";

/** Calls one runner claims from one monitor at a time, without a judge; with one, two rounds of HONE_JUDGE_CONCURRENCY. */
const BATCH = 100;
/** The advisory lock of the seen counts' compaction (any fixed number no other lock of Hone uses). */
const SEEN_LOCK = 0x4d6f6e53;
/** A claimed call whose judge failed this many times is given up on (counted invalid). */
const MAX_ATTEMPTS = 3;

type MonitorRow = typeof monitors.$inferSelect;
type Outcome = "added" | "duplicate" | "rejected" | "invalid";

/**
 * One pass of a monitor runner: for each active monitor with calls waiting (oldest monitor first),
 * claims a batch and examines it. Several runners (threads, processes) share the work: a claim is
 * a lease on the rows (FOR UPDATE SKIP LOCKED), and a batch is settled in one transaction only for
 * the rows this runner still holds, so each call is examined once and added at most once whatever
 * stops where. Returns the calls settled.
 */
export async function runMonitorsOnce(deps: Deps, opts: { runnerId: string; leaseMs?: number; signal?: AbortSignal }): Promise<number> {
  const db = deps.database.db;
  await compactMonitorSeen(deps).catch((err) => deps.logger.warn("the monitors' seen counts were not compacted", errorFields(err)));
  const now = deps.clock();
  const due = or(isNull(monitorLogs.claimedUntil), lt(monitorLogs.claimedUntil, now));
  const ready = await db
    .select()
    .from(monitors)
    .where(
      and(
        eq(monitors.status, "ACTIVE"),
        sql`exists (select 1 from ${monitorLogs} where ${monitorLogs.monitorId} = ${monitors.id} and ${monitorLogs.outcome} is null and ${due})`,
      ),
    )
    .orderBy(asc(monitors.id));
  let settled = 0;
  for (const monitor of ready) {
    if (opts.signal?.aborted) break;
    try {
      settled += await runBatch(deps, monitor, opts);
    } catch (err) {
      deps.logger.error("a monitor's batch failed", { monitorId: monitor.id, ...errorFields(err) });
    }
  }
  return settled;
}

async function claim(deps: Deps, monitorId: string, runnerId: string, leaseMs: number, size: number): Promise<string[]> {
  const db = deps.database.db;
  const now = deps.clock();
  const next = db
    .select({ logId: monitorLogs.logId })
    .from(monitorLogs)
    .where(and(eq(monitorLogs.monitorId, monitorId), isNull(monitorLogs.outcome), or(isNull(monitorLogs.claimedUntil), lt(monitorLogs.claimedUntil, now))))
    .orderBy(asc(monitorLogs.logId))
    .limit(size)
    .for("update", { skipLocked: true });
  const rows = await db
    .update(monitorLogs)
    .set({ claimedBy: runnerId, claimedUntil: new Date(now.getTime() + leaseMs), attempts: sql`${monitorLogs.attempts} + 1` })
    .where(and(eq(monitorLogs.monitorId, monitorId), inArray(monitorLogs.logId, next)))
    .returning({ logId: monitorLogs.logId, attempts: monitorLogs.attempts });
  return rows.map((r) => r.logId).sort();
}

type Examined = {
  logId: string;
  outcome: Outcome | "unmatched" | "retry";
  entry?: DatasetEntryInput;
  resp?: unknown;
  judged?: boolean;
  costUsd?: number;
};

async function runBatch(deps: Deps, monitor: MonitorRow, opts: { runnerId: string; leaseMs?: number; signal?: AbortSignal }): Promise<number> {
  // A batch is judged in at most two rounds, each within the judge's deadline: the lease outlasts both,
  // so no other runner takes a batch that is still being judged.
  const size = monitor.criterion ? deps.config.judgeConcurrency * 2 : BATCH;
  const leaseMs = opts.leaseMs ?? Math.max(10_000, deps.config.judgeTimeoutMs * 3);
  const ids = await claim(deps, monitor.id, opts.runnerId, leaseMs, size);
  if (!ids.length) return 0;
  const ctx: Ctx = {
    deps,
    actor: { type: "system", job: "monitor" },
    projectId: monitor.projectId,
    requestId: `monitor-${monitor.id}`,
    internal: "monitor",
  };
  const db = deps.database.db;

  let criterion: ResolvedCriterion | null = null;
  if (monitor.criterion) {
    try {
      criterion = await resolveCriterion(ctx, monitor.criterion);
    } catch (err) {
      const e = toDomainError(err);
      if (e.code !== "NOT_FOUND") throw err;
      // Its criterion (or that version) is gone: pause rather than keep calls unjudged.
      await db
        .update(monitors)
        .set({ status: "PAUSED", lastError: `Paused: ${e.message}. Choose another criterion and resume it.`, updatedAt: deps.clock() })
        .where(eq(monitors.id, monitor.id));
      await release(deps, monitor.id, opts.runnerId, ids);
      return 0;
    }
  }

  const matched = new Set(
    (
      await db
        .select({ id: requestLogs.id })
        .from(requestLogs)
        .where(whereAll([...logConditions(monitor.projectId, storedFilter(monitor.filter)), inArray(requestLogs.id, ids)]))
    ).map((r) => r.id),
  );
  const examined: Examined[] = ids.filter((id) => !matched.has(id)).map((logId) => ({ logId, outcome: "unmatched" }));
  const attemptsOf = new Map(
    (
      await db
        .select({ logId: monitorLogs.logId, attempts: monitorLogs.attempts })
        .from(monitorLogs)
        .where(and(eq(monitorLogs.monitorId, monitor.id), inArray(monitorLogs.logId, [...matched])))
    ).map((r) => [r.logId, r.attempts]),
  );
  const judging = pLimit(deps.config.judgeConcurrency);
  for (const batch of await byteBoundedBatches(ctx, [...matched].sort())) {
    const rows = await db
      .select({ id: requestLogs.id, tags: requestLogs.tags, req: requestLogBodies.reqPayload, resp: requestLogBodies.respPayload })
      .from(requestLogs)
      .innerJoin(requestLogBodies, eq(requestLogBodies.logId, requestLogs.id))
      .where(and(eq(requestLogs.projectId, monitor.projectId), inArray(requestLogs.id, batch)));
    const found = new Set(rows.map((r) => r.id));
    for (const id of batch) if (!found.has(id)) examined.push({ logId: id, outcome: "invalid" });
    examined.push(
      ...(await Promise.all(
        rows.map((row) =>
          judging(async (): Promise<Examined> => {
            const entry = logToEntry(row.req, row.resp, row.tags);
            if (typeof entry === "string") return { logId: row.id, outcome: "invalid" };
            if (!criterion) return { logId: row.id, outcome: "added", entry, resp: row.resp };
            const output = entry.messages.at(-1) as Record<string, unknown>;
            try {
              const verdict = await judgeOutput(
                ctx,
                criterion,
                { messages: entry.messages.slice(0, -1), tools: entry.tools, tool_choice: entry.tool_choice, output },
                opts.signal,
              );
              const costUsd = (await estimateCost(ctx, criterion.judgeModel, verdict.usage as never).catch(() => null)) ?? 0;
              const keep = verdict.judgement === monitor.keepOn;
              return { logId: row.id, outcome: keep ? "added" : "rejected", entry, resp: row.resp, judged: true, costUsd };
            } catch (err) {
              // The judge could not answer: try the call again later, then give up on it.
              deps.logger.warn("a monitor's judge failed", { monitorId: monitor.id, logId: row.id, ...errorFields(err) });
              return { logId: row.id, outcome: (attemptsOf.get(row.id) ?? 1) >= MAX_ATTEMPTS ? "invalid" : "retry" };
            }
          }),
        ),
      )),
    );
  }
  if (opts.signal?.aborted) {
    // Stopping: what this runner examined is left to the next one, without a wait.
    await release(deps, monitor.id, opts.runnerId, ids);
    return 0;
  }
  return settle(deps, ctx, monitor, opts.runnerId, examined);
}

/** Gives claimed rows back to be claimed again at once (the monitor paused, or this runner stops). */
async function release(deps: Deps, monitorId: string, runnerId: string, ids: string[]): Promise<void> {
  await deps.database.db
    .update(monitorLogs)
    .set({ claimedBy: null, claimedUntil: null, attempts: sql`greatest(${monitorLogs.attempts} - 1, 0)` })
    .where(and(eq(monitorLogs.monitorId, monitorId), inArray(monitorLogs.logId, ids), eq(monitorLogs.claimedBy, runnerId), isNull(monitorLogs.outcome)));
}

/**
 * Settles a batch in one transaction: first the rows this runner still holds (a lease lost to
 * another runner is not ours to settle), then the entries of those alone, then the counters.
 */
async function settle(deps: Deps, ctx: Ctx, monitor: MonitorRow, runnerId: string, examined: Examined[]): Promise<number> {
  const retry = examined.filter((e) => e.outcome === "retry").map((e) => e.logId);
  const done = examined.filter((e) => e.outcome !== "retry");
  const backoffMs = 30_000;
  return deps.database.db.transaction(async (tx) => {
    if (retry.length) {
      await tx
        .update(monitorLogs)
        .set({ claimedBy: null, claimedUntil: new Date(deps.clock().getTime() + backoffMs) })
        .where(and(eq(monitorLogs.monitorId, monitor.id), inArray(monitorLogs.logId, retry), eq(monitorLogs.claimedBy, runnerId)));
    }
    if (!done.length) return 0;
    const mine = and(eq(monitorLogs.monitorId, monitor.id), eq(monitorLogs.claimedBy, runnerId), isNull(monitorLogs.outcome));
    // Calls outside the filter leave no row: a backfill offers them again and finds the same.
    const unmatched = done.filter((e) => e.outcome === "unmatched").map((e) => e.logId);
    const droppedRows = unmatched.length
      ? await tx
          .delete(monitorLogs)
          .where(and(mine, inArray(monitorLogs.logId, unmatched)))
          .returning({ logId: monitorLogs.logId })
      : [];
    const matched = done.filter((e) => e.outcome !== "unmatched");
    const heldRows = matched.length
      ? await tx
          .update(monitorLogs)
          .set({ outcome: "pending", claimedBy: null, claimedUntil: null })
          .where(
            and(
              mine,
              inArray(
                monitorLogs.logId,
                matched.map((e) => e.logId),
              ),
            ),
          )
          .returning({ logId: monitorLogs.logId })
      : [];
    const held = new Set(heldRows.map((r) => r.logId));
    const ours = matched.filter((e) => held.has(e.logId));

    // Content already in the dataset (or earlier in this batch) is a duplicate. The dataset row's
    // lock orders concurrent batches, so the check sees what another runner just added.
    const [ds] = await tx
      .update(datasets)
      .set({ updatedAt: deps.clock() })
      .where(and(eq(datasets.id, monitor.datasetId), eq(datasets.projectId, monitor.projectId)))
      .returning({ id: datasets.id });
    const keep = ours.filter((e) => e.outcome === "added" && e.entry);
    const hashes = keep.map((e) => entryContentHash(e.entry!));
    const existing =
      ds && hashes.length
        ? new Set(
            (
              await tx
                .select({ hash: datasetEntries.contentHash })
                .from(datasetEntries)
                .where(and(eq(datasetEntries.datasetId, monitor.datasetId), inArray(datasetEntries.contentHash, hashes)))
            ).map((r) => r.hash),
          )
        : new Set<string | null>();
    const fresh: NewEntry[] = [];
    keep.forEach((e, i) => {
      const hash = hashes[i]!;
      if (!ds || existing.has(hash)) {
        e.outcome = ds ? "duplicate" : "invalid";
        return;
      }
      existing.add(hash);
      fresh.push({
        entry: e.entry!,
        hash,
        split: sampleUnit(`split:${e.logId}`) < monitor.testFraction ? "TEST" : "TRAIN",
        sourceLogId: e.logId,
        source: "log",
        monitorId: monitor.id,
        rejectedOutputs: rejectedOf(e.resp, e.logId, deps.clock().toISOString()),
      });
    });
    if (fresh.length) await insertEntries({ ...ctx, tx }, tx, monitor.datasetId, fresh);
    for (const outcome of ["added", "duplicate", "rejected", "invalid"] as const) {
      const ids = ours.filter((e) => e.outcome === outcome).map((e) => e.logId);
      if (ids.length) {
        await tx
          .update(monitorLogs)
          .set({ outcome })
          .where(and(eq(monitorLogs.monitorId, monitor.id), inArray(monitorLogs.logId, ids)));
      }
    }
    const count = (o: Outcome) => ours.filter((e) => e.outcome === o).length;
    const sampled = droppedRows.length + ours.length;
    await tx
      .update(monitors)
      .set({
        sampled: sql`${monitors.sampled} + ${sampled}`,
        matched: sql`${monitors.matched} + ${ours.length}`,
        judged: sql`${monitors.judged} + ${ours.filter((e) => e.judged).length}`,
        rejected: sql`${monitors.rejected} + ${count("rejected")}`,
        added: sql`${monitors.added} + ${count("added")}`,
        duplicates: sql`${monitors.duplicates} + ${count("duplicate")}`,
        invalid: sql`${monitors.invalid} + ${count("invalid")}`,
        judgeCostUsd: sql`${monitors.judgeCostUsd} + ${ours.reduce((s, e) => s + (e.costUsd ?? 0), 0)}`,
      })
      .where(eq(monitors.id, monitor.id));
    return sampled;
  });
}

/** Rows of monitor_seen summed into the monitors' counts in one pass, at most. */
const COMPACT_BATCH = 50_000;

/**
 * Sums what the log writers appended to monitor_seen into monitors.seen and deletes it, in one
 * statement (a count is never lost nor added twice). One process compacts at a time (a
 * transaction-scoped advisory lock; the others skip), so two never update the same monitors in
 * different orders.
 */
export async function compactMonitorSeen(deps: Deps): Promise<number> {
  return deps.database.db.transaction(async (tx) => {
    const [lock] = resultRows<{ ok: boolean }>(await tx.execute(sql`select pg_try_advisory_xact_lock(${SEEN_LOCK}) as ok`));
    if (!lock?.ok) return 0;
    const rows = resultRows<{ n: number }>(
      await tx.execute(sql`
        with moved as (
          delete from ${monitorSeen} where ctid = any(array(select ctid from ${monitorSeen} limit ${COMPACT_BATCH})) returning monitor_id, n
        ), sums as (select monitor_id, sum(n)::int as n from moved group by 1)
        update ${monitors} m set seen = m.seen + s.n from sums s where m.id = s.monitor_id returning s.n`),
    );
    return rows.reduce((a, r) => a + Number(r.n), 0);
  });
}
