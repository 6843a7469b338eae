import { systemCtx } from "../context";
import type { Deps } from "../deps";
import { insertRequestLogs, type NewRequestLog } from "../domain/logs";
import { errorFields } from "../logger";

export type LogWriter = {
  /** Queues a log; the request does not wait for it. */
  enqueue(record: NewRequestLog): void;
  /** Queues a log and resolves once it is committed (group commit with other pending logs). */
  write(record: NewRequestLog): Promise<void>;
  /** Resolves when everything queued so far is committed (or given up on). */
  flush(): Promise<void>;
  pending(): number;
};

type Item = { record: NewRequestLog; done?: { resolve(): void; reject(err: unknown): void } };

export type LogWriterOptions = { maxBatch?: number; maxPending?: number; maxDelayMs?: number };

/**
 * Batches logs into multi-row inserts off the request path. A batch that fails is retried with
 * backoff; a batch that keeps failing is split so one bad record cannot hold back the others.
 * Beyond maxPending queued logs (a long database outage), the oldest are dropped and counted.
 */
export function createLogWriter(deps: Pick<Deps, "logger"> & { database: Deps["database"] }, opts: LogWriterOptions = {}): LogWriter {
  const maxBatch = opts.maxBatch ?? 250;
  const maxPending = opts.maxPending ?? 100_000;
  const maxDelayMs = opts.maxDelayMs ?? 20;
  const queue: Item[] = [];
  let running: Promise<void> | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let dropped = 0;
  const ctx = () => systemCtx(deps as Deps, "log-writer");

  const insert = (items: Item[], sanitize: boolean) => insertRequestLogs(ctx(), items.map((i) => i.record), { sanitize });

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
          deps.logger.error("request log could not be stored", { logId: batch[0]?.record.id, ...errorFields(err) });
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
    enqueue(record) {
      push({ record });
    },
    write(record) {
      return new Promise<void>((resolve, reject) => {
        urgent = true;
        push({ record, done: { resolve, reject } });
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
    pending: () => queue.length,
  };
}
