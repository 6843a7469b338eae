import { and, eq, sql } from "drizzle-orm";
import type { Deps } from "../deps";
import { isConnectionError } from "../../core/sql-errors";
import { limitCounters } from "../../db/schema";
import { errorFields } from "../../core/logger";
import { alertOnSpend } from "../webhooks";
import type { Counter } from "./lease-state";
import type { Metric } from "./schemas";
import type { Window } from "./windows";

export type { Counter };

// Counting what limits admit, exactly across processes, without a database round trip per call.
//
// Each window of each capped quantity is one row of limit_counters. A process does not count calls
// there one by one: it *leases* a slice of the cap (one conditional upsert that never lets the
// slices leased by all processes together pass the cap) and admits calls from its slice in memory.
// A slice is an eighth of what is left of the cap (at least what the call needs), so slices shrink
// as the cap runs out: a process refuses only when its own slice is spent and the database has
// nothing left to lease. What calls really used is settled in memory at once and written in batches
// (`spent`), with any overrun (a call that used more than it reserved) added to `leased`.
//
// Guarantee: admissions never pass the cap in a window: each is covered by a slice, and the slices
// never pass it. What a call *uses* can pass its reservation (tokens past the estimate, a price not
// known beforehand): that overrun is counted, so it is taken from what later calls may lease. A
// process that stops cleanly gives its unused slices back; a killed one loses them until the window
// ends (at most an eighth of what was left each).
// While the database cannot be reached a process admits, alone, up to what was left when it last
// saw the row; the database counts it all once it answers (so N processes may pass a cap by up to
// N-1 times what was left, for the length of an outage).

const MAX_COUNTERS = 100_000;
const FLUSH_MS = 1_000;
/** The longest a call waits for a lease before taking the database to be away. */
const LEASE_WAIT_MS = 2_000;
const INTEGER_METRICS = new Set<Metric>(["requests", "tokens"]);

export function counterOf(deps: Deps, spec: { limitId: string; projectId: string; metric: Metric; value: string; window: Window; cap: number }): Counter {
  const leases = deps.caches.limitLeases;
  const key = `${spec.limitId}\u0000${spec.metric}\u0000${spec.value}\u0000${spec.window.start.getTime()}`;
  let c = leases.counters.get(key);
  if (!c) {
    if (leases.counters.size >= MAX_COUNTERS) evict(deps);
    c = { ...spec, granted: 0, used: 0, rowLeased: 0, spentDelta: 0, overrun: 0, pending: null };
    leases.counters.set(key, c);
  }
  c.cap = spec.cap;
  return c;
}

/** Drops counters of windows that ended (what they still owe the database stays in `dirty`), or all when none did. */
function evict(deps: Deps): void {
  const now = deps.clock().getTime();
  const counters = deps.caches.limitLeases.counters;
  for (const [k, c] of counters) if (c.window.end.getTime() <= now) counters.delete(k);
  if (counters.size >= MAX_COUNTERS) counters.clear();
}

/** Takes `amount` from this process's slice when it holds enough; true when taken. */
export function takeLocal(c: Counter, amount: number): boolean {
  if (c.used + amount > c.granted + 1e-12) return false;
  c.used += amount;
  return true;
}

/**
 * Leases at least `need` more of the cap for this process. False when the row has less than that
 * left (the cap is reached for this window). While the database cannot be reached, takes what was
 * left at the last sight of the row, and owes it to the row.
 */
export async function lease(deps: Deps, c: Counter, need: number): Promise<boolean> {
  if (c.pending) {
    await c.pending;
    return true;
  }
  let resolve!: () => void;
  c.pending = new Promise<void>((r) => {
    resolve = r;
  });
  try {
    return await leaseNow(deps, c, need);
  } finally {
    c.pending = null;
    resolve();
  }
}

async function leaseNow(deps: Deps, c: Counter, need: number): Promise<boolean> {
  // What this process used past its slices and has not yet written goes into the row with the
  // lease, so the row never grants a slice that this overrun has already used.
  const owed = c.overrun;
  if (owed + need > c.cap) return false;
  c.overrun = 0;
  const int = INTEGER_METRICS.has(c.metric);
  const first = Math.max(need, int ? Math.floor((c.cap - owed) / 8) : (c.cap - owed) / 8);
  const left = sql`(${c.cap}::double precision - ${limitCounters.leased} - ${owed}::double precision)`;
  const grant = sql`greatest(${need}::double precision, ${int ? sql`floor(${left} / 8)` : sql`${left} / 8`})`;
  let late = false;
  const apply = (row: { leased: number; lastGrant: number }) => {
    c.granted += row.lastGrant;
    c.rowLeased = row.leased;
  };
  const read = async () => {
    const rows = await deps.database.db
      .insert(limitCounters)
      .values({
        limitId: c.limitId,
        metric: c.metric,
        value: c.value,
        windowStart: c.window.start,
        windowEnd: c.window.end,
        leased: owed + first,
        lastGrant: first,
      })
      .onConflictDoUpdate({
        target: [limitCounters.limitId, limitCounters.metric, limitCounters.value, limitCounters.windowStart],
        set: { lastGrant: grant, leased: sql`${limitCounters.leased} + ${owed}::double precision + ${grant}` },
        setWhere: sql`${limitCounters.leased} + ${owed}::double precision + ${need}::double precision <= ${c.cap}::double precision`,
      })
      .returning({ leased: limitCounters.leased, lastGrant: limitCounters.lastGrant });
    const row = rows[0] ?? null;
    // Answered after the gateway stopped waiting: the row took what was owed, and the slice is
    // this process's all the same (what it took meanwhile is owed less).
    if (late && row) {
      c.overrun -= owed + row.lastGrant;
      if (c.overrun < 0) {
        c.granted -= c.overrun;
        c.overrun = 0;
      }
      c.rowLeased = row.leased;
    }
    return row;
  };
  // Waits up to LEASE_WAIT_MS (a busy database is not an absent one: admitting unchecked would
  // pass the cap across processes); past it, or on a connection error, the database is away.
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"away">((res) => {
    timer = setTimeout(() => res("away"), LEASE_WAIT_MS);
  });
  const attempt = read().catch((err: unknown) => {
    if (!isConnectionError(err))
      deps.logger.warn("could not lease a limit's slice: admitting on what this process knows", { limitId: c.limitId, ...errorFields(err) });
    return "away" as const;
  });
  const r = { value: await Promise.race([attempt, timeout]) };
  clearTimeout(timer);
  if (r.value === "away") {
    late = true;
    c.overrun += owed;
    // The database is away: what was left when this process last saw the row is taken, and owed.
    const left = Math.max(c.cap - c.rowLeased, 0);
    if (left < need) return false;
    c.granted += left;
    c.rowLeased += left;
    c.overrun += left;
    markDirty(deps, c);
    return true;
  }
  if (!r.value) {
    // Refused: what was owed is still to be written; the row has less than `need` left.
    c.overrun += owed;
    c.rowLeased = c.cap;
    if (owed) markDirty(deps, c);
    return false;
  }
  apply(r.value);
  return true;
}

/** What a call used, settled against what it reserved from this counter. */
export function settle(deps: Deps, c: Counter, reserved: number, actual: number): void {
  c.used += actual - reserved;
  if (c.used > c.granted) {
    c.overrun += c.used - c.granted;
    c.rowLeased += c.used - c.granted;
    c.granted = c.used;
  }
  c.spentDelta += actual;
  if (c.spentDelta !== 0 || c.overrun !== 0) markDirty(deps, c);
}

/** Gives back what a call reserved and did not use (a refused call's other limits). */
export function giveBack(c: Counter, amount: number): void {
  c.used = Math.max(0, c.used - amount);
}

/** What is left of the cap, as this process knows it: exact in one process, an estimate across several. */
export function remainingOf(c: Counter): number {
  return Math.max(0, c.cap - c.rowLeased + (c.granted - c.used));
}

function markDirty(deps: Deps, c: Counter): void {
  const leases = deps.caches.limitLeases;
  leases.dirty.add(c);
  if (leases.flushTimer) return;
  leases.flushTimer = setTimeout(() => {
    leases.flushTimer = null;
    void flushLeases(deps);
  }, FLUSH_MS);
  (leases.flushTimer as { unref?: () => void }).unref?.();
}

/**
 * Writes what was settled (and overran) since the last write. A counter whose write failed stays
 * dirty and is written at the next flush.
 */
export async function flushLeases(deps: Deps): Promise<void> {
  const leases = deps.caches.limitLeases;
  if (leases.flushing) return leases.flushing;
  leases.flushing = (async () => {
    const batch = [...leases.dirty];
    leases.dirty.clear();
    let failed = false;
    for (const c of batch) {
      const spent = c.spentDelta;
      const overrun = c.overrun;
      if (spent === 0 && overrun === 0) continue;
      c.spentDelta = 0;
      c.overrun = 0;
      try {
        const [row] = await deps.database.db
          .insert(limitCounters)
          .values({ limitId: c.limitId, metric: c.metric, value: c.value, windowStart: c.window.start, windowEnd: c.window.end, leased: overrun, spent })
          .onConflictDoUpdate({
            target: [limitCounters.limitId, limitCounters.metric, limitCounters.value, limitCounters.windowStart],
            set: { spent: sql`${limitCounters.spent} + ${spent}::double precision`, leased: sql`${limitCounters.leased} + ${overrun}::double precision` },
          })
          .returning({ spent: limitCounters.spent, alerted: limitCounters.alerted, leased: limitCounters.leased });
        if (row)
          await alertOnSpend(deps, c, row).catch((err) => deps.logger.warn("could not raise a budget alert", { limitId: c.limitId, ...errorFields(err) }));
      } catch (err) {
        // A limit deleted meanwhile (foreign key) has nothing to count any more.
        if ((err as { code?: string }).code === "23503" || /foreign key/i.test(String((err as Error).message))) continue;
        c.spentDelta += spent;
        c.overrun += overrun;
        leases.dirty.add(c);
        if (!failed) deps.logger.warn("could not write limit counters; retrying", errorFields(err));
        failed = true;
      }
    }
    if (leases.dirty.size && !leases.flushTimer) markDirty(deps, [...leases.dirty][0]!);
  })().finally(() => {
    leases.flushing = null;
  });
  return leases.flushing;
}

/** On a clean stop: writes what is settled and gives the unused part of each current slice back. */
export async function returnLeases(deps: Deps): Promise<void> {
  const leases = deps.caches.limitLeases;
  if (leases.flushTimer) clearTimeout(leases.flushTimer);
  leases.flushTimer = null;
  await flushLeases(deps);
  const now = deps.clock().getTime();
  for (const c of leases.counters.values()) {
    const unused = c.granted - c.used;
    if (unused <= 0 || c.window.end.getTime() <= now) continue;
    try {
      await deps.database.db
        .update(limitCounters)
        .set({ leased: sql`greatest(${limitCounters.leased} - ${unused}::double precision, 0)` })
        .where(
          and(
            eq(limitCounters.limitId, c.limitId),
            eq(limitCounters.metric, c.metric),
            eq(limitCounters.value, c.value),
            eq(limitCounters.windowStart, c.window.start),
          ),
        );
      c.granted = c.used;
    } catch (err) {
      deps.logger.warn("could not give a limit's unused slice back", { limitId: c.limitId, ...errorFields(err) });
      return;
    }
  }
}
