import type { Config } from "../core/config";
import { errorFields, type Logger } from "../core/logger";
import type { LogWriter } from "../domain/logs";
import { recordWriter, type RowWriter } from "./log-writer";
import type { Spool, SpoolMark } from "./spool";

export type ThreadMessage =
  | string[]
  | { t: "init"; databaseUrl: string; logLevel: Config["logLevel"]; flushMs: number }
  | { t: "flush"; ack: number }
  /** A batch of stored Responses (insertStoredResponses's JSON), answered {ack} or {ack, error}. */
  | { t: "responses"; batch: string; ack: number };
export type ThreadReply = { ack: number; error?: string } | { stored: number } | { dropped: number; deferred: boolean } | { ready: true } | { fatal: string };

const SEND_EVERY_MS = 5;

/**
 * The batched log writer on its own thread (Postgres only: PGlite lives in this thread). A queued
 * log costs the request path one serialisation; rows cross to the thread a few milliseconds' worth
 * at a time (a message per row would wake the thread for each). Awaited writes (reports, answered
 * once committed) go to `mainThread`, whose group commit answers them without a round trip
 * through the thread's batches. If the
 * thread fails to start or dies, every log goes to `mainThread`; logs the dead thread had not
 * stored yet are counted in the error it logs.
 */
export function createThreadedLogWriter(
  config: Pick<Config, "databaseUrl" | "logLevel" | "logFlushMs"> & Partial<Pick<Config, "maxLoggedPayloadBytes">>,
  logger: Logger,
  mainThread: LogWriter,
  spool?: Spool,
): LogWriter {
  if (!config.databaseUrl) throw new Error("the log-writer thread needs DATABASE_URL");
  const worker = new Worker(new URL("./log-writer.thread.ts", import.meta.url).href);
  const waiting = new Map<number, () => void>();
  /** Batches of stored Responses the thread has not answered for yet. */
  const storing = new Map<number, { resolve(): void; reject(err: Error): void }>();
  const inFlight = new Set<Promise<void>>();
  let seq = 0;
  let posted = 0;
  let stored = 0;
  /** Rows the thread gave up on (rejected by the database, or past its retries or its queue). */
  let droppedThere = 0;
  /** Of those, the ones lost (not in the spool). */
  let lostThere = 0;
  // The spool marks of the rows posted, in order: the thread settles rows in the order they came.
  let marks: (SpoolMark | undefined)[] = [];
  let marksAt = 0;
  const takeMarks = (n: number) => {
    const taken = marks.slice(marksAt, marksAt + n);
    marksAt += n;
    if (marksAt > 4096 && marksAt * 2 > marks.length) {
      marks = marks.slice(marksAt);
      marksAt = 0;
    }
    return taken;
  };
  /** Rows the thread is done with, stored or not: the backlog is what was posted beyond them. */
  const settled = () => stored + droppedThere;
  let closing = false;
  let failed = false;

  const failOver = (why: string, err?: unknown) => {
    if (failed || closing) return;
    failed = true;
    const left = takeMarks(Math.max(0, posted - settled()));
    logger.error(`log-writer thread ${why}: logs are now written from the main thread`, {
      lost: left.filter((m) => !m).length,
      ...(spool ? { spooled: left.filter(Boolean).length } : {}),
      ...(err ? errorFields(err) : {}),
    });
    // The spooled ones are stored from the spool.
    spool?.settle(left, "deferred");
    lostThere += left.filter((m) => !m).length;
    // Flushes waiting on the dead thread are answered: nothing more will come from it.
    for (const done of waiting.values()) done();
    waiting.clear();
    // Responses it had not stored are not known to be stored: their saves fail (and are logged).
    for (const s of storing.values()) s.reject(new Error(`the log-writer thread ${why} before storing them`));
    storing.clear();
    worker.terminate();
  };

  // When each chunk of rows was handed over (its running total), to tell the backlog's age.
  const chunks: { upTo: number; at: number }[] = [];
  worker.onmessage = (event: MessageEvent<ThreadReply>) => {
    const m = event.data;
    if ("stored" in m || "dropped" in m) {
      if ("stored" in m) {
        stored += m.stored;
        spool?.settle(takeMarks(m.stored), "stored");
      } else {
        droppedThere += m.dropped;
        const taken = takeMarks(m.dropped);
        lostThere += m.deferred ? taken.filter((x) => !x).length : taken.length;
        spool?.settle(taken, m.deferred ? "deferred" : "dropped");
      }
      // The thread takes rows in the order they were posted, so the first `settled` rows are done.
      while (chunks.length && chunks[0]!.upTo <= settled()) chunks.shift();
    } else if ("ack" in m) {
      waiting.get(m.ack)?.();
      waiting.delete(m.ack);
      const s = storing.get(m.ack);
      if (s) {
        storing.delete(m.ack);
        if (m.error === undefined) s.resolve();
        else s.reject(new Error(m.error));
      }
    } else if ("fatal" in m) failOver(`could not start (${m.fatal})`);
  };
  worker.onerror = (event) => failOver("failed", (event as ErrorEvent).error ?? new Error((event as ErrorEvent).message));
  worker.addEventListener("close", () => failOver("exited"));
  worker.postMessage({ t: "init", databaseUrl: config.databaseUrl, logLevel: config.logLevel, flushMs: config.logFlushMs } satisfies ThreadMessage);

  let buffered: string[] = [];
  let bufferedAt = 0;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const send = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    if (buffered.length === 0 || failed) return;
    worker.postMessage(buffered);
    chunks.push({ upTo: posted, at: bufferedAt });
    buffered = [];
  };
  // Messages arrive in order: a flush is answered after the rows sent before it are stored.
  const flushThread = () =>
    failed
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          send();
          const ack = ++seq;
          waiting.set(ack, resolve);
          worker.postMessage({ t: "flush", ack } satisfies ThreadMessage);
        });

  const rows: RowWriter = {
    enqueue(_id, row, mark) {
      posted++;
      marks.push(mark);
      if (!buffered.length) bufferedAt = Date.now();
      buffered.push(row);
      timer ??= setTimeout(send, SEND_EVERY_MS);
    },
    write: () => Promise.reject(new Error("awaited writes go to the main-thread writer")),
    flush: flushThread,
    async close() {
      await flushThread();
      // Responses handed to the thread are stored (or fail) before it goes.
      await Promise.allSettled([...inFlight]);
      closing = true;
      worker.terminate();
    },
    stats() {
      const oldest = chunks[0]?.at ?? (buffered.length ? bufferedAt : undefined);
      const waiting = Math.max(0, posted - settled());
      return {
        depth: failed ? 0 : waiting,
        oldestAgeMs: failed || oldest === undefined ? null : Date.now() - oldest,
        written: stored,
        // Lost: given up on and not in the spool (a dead thread's are counted at its failover).
        dropped: lostThere,
      };
    },
  };
  const threaded = recordWriter(rows, logger, config.maxLoggedPayloadBytes, spool);
  return {
    enqueue: (r) => (failed ? mainThread : threaded).enqueue(r),
    write: (r) => mainThread.write(r),
    // On the thread's connection: the statement's protocol work and socket writes leave the serving
    // thread. A dead thread takes nothing (null: the caller stores them itself).
    storeResponses: (batch) => {
      if (failed || closing) return null;
      const stored = new Promise<void>((resolve, reject) => {
        const ack = ++seq;
        storing.set(ack, { resolve, reject });
        worker.postMessage({ t: "responses", batch, ack } satisfies ThreadMessage);
      });
      inFlight.add(stored);
      const forget = () => inFlight.delete(stored);
      stored.then(forget, forget);
      return stored;
    },
    flush: async () => {
      // threaded.flush: logs still waiting for the masking analyzer first, then the thread's.
      await Promise.all([threaded.flush(), mainThread.flush()]);
    },
    close: async () => {
      await Promise.all([threaded.close(), mainThread.close()]);
    },
    stats: () => {
      const a = threaded.stats();
      const b = mainThread.stats();
      const ages = [a.oldestAgeMs, b.oldestAgeMs].filter((x): x is number => x !== null);
      return {
        depth: a.depth + b.depth,
        oldestAgeMs: ages.length ? Math.max(...ages) : null,
        written: a.written + b.written,
        dropped: a.dropped + b.dropped,
        ...(a.spool ? { spool: a.spool } : {}),
      };
    },
  };
}
