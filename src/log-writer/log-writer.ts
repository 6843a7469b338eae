import type { Database } from "../db/client";
import { isConnectionError, sqlStateOf, statementErrorFields } from "../core/sql-errors";
import { insertLogRows, type LogWriter, type LogWriterStats, logRow, type NewRequestLog } from "../domain/logs";
import { errorFields, type Logger } from "../core/logger";
import { answered, type Spool, type SpoolMark, type SpoolOutcome } from "./spool";

/** The same, for logs already serialised by logRow (what crosses to the log-writer thread). */
export type RowWriter = {
  /** `mark`: where the row is in the spool (told back with its outcome). */
  enqueue(id: string, row: string, mark?: SpoolMark): void;
  write(id: string, row: string, mark?: SpoolMark): Promise<void>;
  flush(): Promise<void>;
  close(): Promise<void>;
  stats(): LogWriterStats;
  /** The database was unreachable at the last try, and has not answered since. */
  unreachable?(): boolean;
};

/** How many logs a writer holds before it drops the oldest (LogWriterOptions.maxPending). */
export const LOG_QUEUE_CAPACITY = 100_000;
/** The error an awaited write gets when the queue overflowed before it was stored. */
export const LOG_QUEUE_OVERFLOW = "log queue overflow";

/** Where batches of rows are stored: one statement per batch, all rows or none. */
type InsertRows = (rows: string[]) => Promise<void>;

type Item = { id: string; row: string; at?: number; mark?: SpoolMark; done?: { resolve(): void; reject(err: unknown): void } };

type LogWriterOptions = {
  maxBatch?: number;
  /** Bytes of rows one insert carries at most (a batch of large logs is split, never one huge statement). */
  maxBatchBytes?: number;
  /** HONE_MAX_LOGGED_PAYLOAD_BYTES: payloads past it are stored cut short. */
  maxPayloadBytes?: number;
  maxPending?: number;
  maxDelayMs?: number;
  /** How long a batch is retried while the database is unreachable before its logs are dropped. */
  retryForMs?: number;
};

/** The batched writer storing into `database` from this thread; with a spool, each log is spooled first. */
export function createLogWriter(deps: { logger: Logger; database: Database; spool?: Spool }, opts: LogWriterOptions = {}): LogWriter {
  const { spool } = deps;
  const rows = createRowWriter(
    { logger: deps.logger, insertRows: (r) => insertLogRows(deps.database.db, r), ...(spool ? { onSettled: (m, o) => spool.settle(m, o) } : {}) },
    opts,
  );
  return recordWriter(rows, deps.logger, opts.maxPayloadBytes, spool);
}

/** The longest one batch insert may go unanswered (then retried, as when the database is away). */
const INSERT_DEADLINE_MS = 30_000;

/** The longest an awaited write of a spooled log waits for its commit before answering from the spool. */
const AWAIT_COMMIT_MS = 1_000;

/** Errors of an awaited write that leave a spooled log to be stored later (the database away, the queue full). */
const deferrable = (err: unknown) => isConnectionError(err) || (err instanceof Error && err.message === LOG_QUEUE_OVERFLOW);

/**
 * A LogWriter over a RowWriter: each record is serialised (and sanitised) once, when it is queued,
 * and appended to the spool (when there is one) before it is handed on. An awaited write of a
 * spooled log that the database cannot take now resolves once the spool has it on disk: it will be
 * stored when the database answers.
 */
export function recordWriter(rows: RowWriter, logger: Logger, maxPayloadBytes?: number, spool?: Spool): LogWriter {
  const serialise = (record: NewRequestLog): string | null => {
    try {
      return logRow(record, maxPayloadBytes);
    } catch (err) {
      logger.error("request log could not be serialised", { logId: record.id, ...errorFields(err) });
      return null;
    }
  };
  // A log waiting for the masking analyzer (domain/masking/analyzer.ts; its deadline bounds the
  // wait) is built when it has answered; flush waits for those too.
  const waiting = new Set<Promise<void>>();
  const enqueue = (record: NewRequestLog) => {
    const row = serialise(record);
    if (row !== null) rows.enqueue(record.id, row, spool?.append(row) ?? undefined);
  };
  return {
    enqueue(record) {
      const ready = record.mask?.ready;
      if (!ready) return enqueue(record);
      const p = ready.then(() => enqueue({ ...record, mask: { ...record.mask!, ready: undefined } }));
      waiting.add(p);
      void p.finally(() => waiting.delete(p));
    },
    async write(record) {
      if (record.mask?.ready) await record.mask.ready;
      const row = serialise(record);
      if (row === null) throw new Error("request log could not be serialised");
      const mark = spool?.append(row);
      if (!spool || !mark) return rows.write(record.id, row);
      // The database is known to be away: the spool has it, the queue stores it when it is back.
      if (rows.unreachable?.()) {
        rows.enqueue(record.id, row, mark);
        return spool.synced();
      }
      // Else answered once committed (read your writes), or once spooled if the database is slow
      // to say anything (a lost connection can take seconds to fail).
      const committed = rows.write(record.id, row, mark);
      committed.catch(() => {});
      const spooledAfter = Bun.sleep(AWAIT_COMMIT_MS).then(() => spool.synced());
      try {
        await Promise.race([committed, spooledAfter]);
      } catch (err) {
        if (!deferrable(err)) throw err;
        await spool.synced();
      }
    },
    flush: async () => {
      while (waiting.size) await Promise.all(waiting);
      return rows.flush();
    },
    close: async () => {
      while (waiting.size) await Promise.all(waiting);
      return rows.close();
    },
    stats: () => (spool ? { ...rows.stats(), spool: spool.stats() } : rows.stats()),
  };
}

// A row the database rejected once more, written again from its parsed value: numbers JSON allows
// and Postgres cannot hold (1e999999) become what JSON.stringify makes of them (null).
function reserialised(row: string): string | null {
  try {
    const again = JSON.stringify(JSON.parse(row));
    return again === row ? null : again;
  } catch {
    return null;
  }
}

const PAYLOAD_COLUMNS = ["req_payload", "resp_payload", "req_payload_original", "resp_payload_original"] as const;

// The last try for a row the database refuses whole: its payloads replaced by a note, so the call
// itself (status, tokens, cost, tags) is still logged; the warning says what was lost and why.
function withoutPayloads(row: string, err: unknown): string | null {
  try {
    const r = JSON.parse(row) as Record<string, unknown>;
    const why = `the database refused the payloads (${sqlStateOf(err) ?? "error"}: ${statementErrorFields(err).error})`;
    for (const c of PAYLOAD_COLUMNS) r[c] = r[c] == null ? null : { hone_payload_not_stored: why };
    // And what is derived from them.
    r.search_text = null;
    r.input_preview = null;
    r.output_preview = null;
    r.req_bytes = 0;
    r.resp_bytes = 0;
    r.warning = [r.warning, `${why}; they were not stored`].filter(Boolean).join("; ");
    return JSON.stringify(r);
  } catch {
    return null;
  }
}

/**
 * Batches logs into multi-row inserts off the request path. Two kinds of failure are told apart:
 * - the database is unreachable (connection refused or lost, shutting down): the batch waits and
 *   is retried with backoff, for up to retryForMs, then dropped and counted in an error; awaited
 *   writes in it are answered at once (a 503 for a report), so a client's retry is not stored twice;
 * - anything else is taken to be about the rows (a value the database rejects): the batch is
 *   halved at once, without sleeping, until the bad row is alone; that row is dropped with a
 *   warning naming its id, and every other row is stored without waiting.
 * Beyond maxPending queued logs (a long database outage), the oldest are dropped and counted.
 */
export function createRowWriter(
  deps: {
    logger: Logger;
    insertRows: InsertRows;
    sleep?: (ms: number) => Promise<void>;
    /**
     * Told what became of rows: stored; dropped (the database rejected them); deferred (not stored
     * now: the database stayed away or the queue overflowed; a spooled row is stored later). The
     * spool learns of its rows so; the log-writer thread reports them to the main thread.
     */
    onSettled?: (marks: (SpoolMark | undefined)[], outcome: SpoolOutcome) => void;
  },
  opts: LogWriterOptions = {},
): RowWriter {
  const maxBatch = opts.maxBatch ?? 250;
  const maxBatchBytes = opts.maxBatchBytes ?? 8 * 1024 * 1024;
  const maxPending = opts.maxPending ?? LOG_QUEUE_CAPACITY;
  const maxDelayMs = opts.maxDelayMs ?? 20;
  const retryForMs = opts.retryForMs ?? 60_000;
  const sleep = deps.sleep ?? ((ms: number) => Bun.sleep(ms));
  const queue: Item[] = [];
  let running: Promise<void> | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let dropped = 0;
  let written = 0;
  /** Rows given up on here: lost unless spooled (a deferred spooled row is stored from the spool). */
  const giveUp = (items: Item[], outcome: "dropped" | "deferred") => {
    dropped += outcome === "dropped" ? items.length : items.filter((i) => !i.mark).length;
    deps.onSettled?.(
      items.map((i) => i.mark),
      outcome,
    );
  };
  /** The batch being inserted: still waiting, for the backlog. */
  let inFlight: Item[] = [];
  /** The last try found the database unreachable. */
  let unreachable = false;
  const insert = async (items: Item[]) => {
    inFlight = items;
    try {
      // A driver can hang on a dead connection: an insert unanswered past the deadline counts as the database away.
      await answered(deps.insertRows(items.map((i) => i.row)), INSERT_DEADLINE_MS);
      unreachable = false;
      written += items.length;
      deps.onSettled?.(
        items.map((i) => i.mark),
        "stored",
      );
    } finally {
      inFlight = [];
    }
  };

  async function writeBatch(items: Item[]): Promise<void> {
    let batch = items;
    let waited = 0;
    for (let attempt = 0; ; attempt++) {
      try {
        await insert(batch);
        for (const i of batch) i.done?.resolve();
        return;
      } catch (err) {
        if (!isConnectionError(err)) {
          // It answered: about the rows, not about being away.
          unreachable = false;
          return isolate(batch, err);
        }
        unreachable = true;
        const awaited = batch.filter((i) => i.done);
        if (awaited.length) {
          // Answered at once (a report: a 503, or a 2xx once spooled); a spooled one is stored later.
          deps.onSettled?.(
            awaited.map((i) => i.mark),
            "deferred",
          );
          for (const i of awaited) i.done!.reject(err);
          batch = batch.filter((i) => !i.done);
          if (!batch.length) return;
        }
        if (waited >= retryForMs) {
          giveUp(batch, "deferred");
          deps.logger.error("request logs could not be stored: the database stayed unreachable", {
            records: batch.length,
            droppedTotal: dropped,
            logIds: batch.slice(0, 20).map((i) => i.id),
            ...statementErrorFields(err),
          });
          return;
        }
        if (attempt === 0) {
          deps.logger.warn("database unreachable: request logs are kept and retried", {
            records: batch.length,
            queued: queue.length,
            ...statementErrorFields(err),
          });
        }
        const ms = Math.min(100 * 2 ** attempt, 5_000);
        await sleep(ms);
        waited += ms;
      }
    }
  }

  async function isolate(batch: Item[], err: unknown): Promise<void> {
    if (batch.length > 1) {
      const mid = Math.ceil(batch.length / 2);
      await writeBatch(batch.slice(0, mid));
      await writeBatch(batch.slice(mid));
      return;
    }
    const item = batch[0]!;
    // Then the row alone again, re-encoded; then without its payloads (the call is still logged).
    const retries = [() => ({ row: reserialised(item.row), stripped: false }), () => ({ row: withoutPayloads(item.row, err), stripped: true })];
    for (const next of retries) {
      const again = next();
      if (again.row === null) continue;
      try {
        await insert([{ ...item, row: again.row }]);
        if (again.stripped)
          deps.logger.warn("request log stored without its payloads: the database refused them", { logId: item.id, ...statementErrorFields(err) });
        item.done?.resolve();
        return;
      } catch (err2) {
        if (isConnectionError(err2)) return writeBatch(batch);
      }
    }
    giveUp([item], "dropped");
    deps.logger.warn("request log dropped: the database rejected it", { logId: item.id, droppedTotal: dropped, ...statementErrorFields(err) });
    item.done?.reject(err);
  }

  async function drain(): Promise<void> {
    while (queue.length) {
      // Up to maxBatch rows and maxBatchBytes (a row alone may be larger): logs of large calls go a
      // few at a time, not as one statement of gigabytes.
      let n = 0;
      let bytes = 0;
      while (n < queue.length && n < maxBatch && (n === 0 || bytes + queue[n]!.row.length <= maxBatchBytes)) bytes += queue[n++]!.row.length;
      const batch = queue.splice(0, n);
      await writeBatch(batch);
    }
  }

  let urgent = false;
  function schedule() {
    if (running) return;
    if (timer && !urgent) return;
    if (timer) clearTimeout(timer);
    // Queued logs wait a little so concurrent calls share one insert; a caller waiting for its
    // commit (a report) does not: it is written at once, and what arrives meanwhile goes next.
    const delay = urgent ? 0 : maxDelayMs;
    urgent = false;
    timer = setTimeout(() => {
      timer = null;
      running = drain().finally(() => {
        running = null;
        if (queue.length) schedule();
      });
    }, delay);
  }

  function push(item: Item) {
    queue.push(item);
    if (queue.length >= maxBatch && timer && !running) {
      // A full batch need not wait for the timer.
      clearTimeout(timer);
      timer = null;
      running = drain().finally(() => {
        running = null;
        if (queue.length) schedule();
      });
    }
    if (queue.length > maxPending) {
      const over = queue.splice(0, queue.length - maxPending);
      giveUp(over, "deferred");
      for (const i of over) i.done?.reject(new Error(LOG_QUEUE_OVERFLOW));
      deps.logger.error("request log queue full: oldest logs dropped", { dropped: over.length, droppedTotal: dropped });
    }
    schedule();
  }

  return {
    enqueue(id, row, mark) {
      push({ id, row, at: Date.now(), ...(mark ? { mark } : {}) });
    },
    write(id, row, mark) {
      return new Promise<void>((resolve, reject) => {
        urgent = true;
        push({ id, row, at: Date.now(), ...(mark ? { mark } : {}), done: { resolve, reject } });
      });
    },
    unreachable: () => unreachable,
    stats() {
      const oldest = inFlight[0]?.at ?? queue[0]?.at;
      return { depth: queue.length + inFlight.length, oldestAgeMs: oldest === undefined ? null : Date.now() - oldest, written, dropped };
    },
    async flush() {
      while (queue.length || running || timer) {
        if (timer) {
          clearTimeout(timer);
          timer = null;
        }
        if (!running && queue.length) {
          running = drain().finally(() => {
            running = null;
          });
        }
        await running;
      }
    },
    close() {
      return this.flush();
    },
  };
}
