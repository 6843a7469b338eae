import type { Database } from "../db/client";
import { insertLogRows, logRow, type NewRequestLog } from "../domain/logs";
import { errorFields, type Logger } from "../logger";

export type LogWriter = {
  /** Queues a log; the request does not wait for it. */
  enqueue(record: NewRequestLog): void;
  /** Queues a log and resolves once it is committed (group commit with other pending logs). */
  write(record: NewRequestLog): Promise<void>;
  /** Resolves when everything queued so far is committed (or given up on). */
  flush(): Promise<void>;
  /** Flushes, then releases what the writer holds (its thread); nothing may be queued after. */
  close(): Promise<void>;
};

/** The same, for logs already serialised by logRow (what crosses to the log-writer thread). */
export type RowWriter = {
  enqueue(id: string, row: string): void;
  write(id: string, row: string): Promise<void>;
  flush(): Promise<void>;
  close(): Promise<void>;
};

/** Where batches of rows are stored; `sanitize` is asked for after a batch of one failed. */
export type InsertRows = (rows: string[], opts: { sanitize: boolean }) => Promise<void>;

type Item = { id: string; row: string; done?: { resolve(): void; reject(err: unknown): void } };

export type LogWriterOptions = { maxBatch?: number; maxPending?: number; maxDelayMs?: number };

/** The batched writer storing into `database` from this thread. */
export function createLogWriter(deps: { logger: Logger; database: Database }, opts: LogWriterOptions = {}): LogWriter {
  const rows = createRowWriter({ logger: deps.logger, insertRows: (r, o) => insertLogRows(deps.database.db, r, o) }, opts);
  return recordWriter(rows, deps.logger);
}

/** A LogWriter over a RowWriter: each record is serialised once, when it is queued. */
export function recordWriter(rows: RowWriter, logger: Logger): LogWriter {
  const serialise = (record: NewRequestLog): string | null => {
    try {
      return logRow(record);
    } catch (err) {
      logger.error("request log could not be serialised", { logId: record.id, ...errorFields(err) });
      return null;
    }
  };
  return {
    enqueue(record) {
      const row = serialise(record);
      if (row !== null) rows.enqueue(record.id, row);
    },
    write(record) {
      const row = serialise(record);
      return row === null ? Promise.reject(new Error("request log could not be serialised")) : rows.write(record.id, row);
    },
    flush: () => rows.flush(),
    close: () => rows.close(),
  };
}

/**
 * Batches logs into multi-row inserts off the request path. A batch that fails is retried with
 * backoff; a batch that keeps failing is split so one bad record cannot hold back the others.
 * Beyond maxPending queued logs (a long database outage), the oldest are dropped and counted.
 */
export function createRowWriter(deps: { logger: Logger; insertRows: InsertRows }, opts: LogWriterOptions = {}): RowWriter {
  const maxBatch = opts.maxBatch ?? 250;
  const maxPending = opts.maxPending ?? 100_000;
  const maxDelayMs = opts.maxDelayMs ?? 20;
  const queue: Item[] = [];
  let running: Promise<void> | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let dropped = 0;
  const insert = (items: Item[], sanitize: boolean) => deps.insertRows(items.map((i) => i.row), { sanitize });

  async function writeBatch(batch: Item[]): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        // A lone record that failed once is retried with text jsonb cannot store replaced.
        await insert(batch, batch.length === 1 && attempt > 0);
        for (const i of batch) i.done?.resolve();
        return;
      } catch (err) {
        if (batch.length > 1 && attempt >= 1) {
          // Isolate the record that fails: halves are written (and retried) on their own.
          const mid = Math.ceil(batch.length / 2);
          await writeBatch(batch.slice(0, mid));
          await writeBatch(batch.slice(mid));
          return;
        }
        if (attempt >= 4) {
          deps.logger.error("request log could not be stored", { logId: batch[0]?.id, ...errorFields(err) });
          for (const i of batch) i.done?.reject(err);
          return;
        }
        deps.logger.warn("storing request logs failed, retrying", { records: batch.length, attempt, ...errorFields(err) });
        await Bun.sleep(Math.min(100 * 2 ** attempt, 5_000));
      }
    }
  }

  async function drain(): Promise<void> {
    while (queue.length) {
      const batch = queue.splice(0, maxBatch);
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
      dropped += over.length;
      for (const i of over) i.done?.reject(new Error("log queue overflow"));
      deps.logger.error("request log queue full: oldest logs dropped", { dropped: over.length, droppedTotal: dropped });
    }
    schedule();
  }

  return {
    enqueue(id, row) {
      push({ id, row });
    },
    write(id, row) {
      return new Promise<void>((resolve, reject) => {
        urgent = true;
        push({ id, row, done: { resolve, reject } });
      });
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
