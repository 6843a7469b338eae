import type { Config } from "../config";
import { errorFields, type Logger } from "../logger";
import { recordWriter, type LogWriter, type RowWriter } from "./log-writer";

export type ThreadMessage =
  | string[]
  | { t: "init"; databaseUrl: string; logLevel: Config["logLevel"]; flushMs: number }
  | { t: "write"; row: string; ack: number }
  | { t: "flush"; ack: number };
export type ThreadReply = { ack: number; error?: string } | { stored: number } | { ready: true } | { fatal: string };

/**
 * The batched log writer on its own thread (Postgres only: PGlite lives in this thread). A log
 * costs the request path one serialisation; rows cross to the thread a few milliseconds' worth at a
 * time (a message per row would wake the thread for each). If the thread fails to
 * start or dies, writing falls back to `fallback()` on this thread; logs the dead thread had not
 * stored yet are counted in the error it logs.
 */
const SEND_EVERY_MS = 5;

export function createThreadedLogWriter(
  config: Pick<Config, "databaseUrl" | "logLevel" | "logFlushMs">,
  logger: Logger,
  fallback: () => LogWriter,
): LogWriter {
  if (!config.databaseUrl) throw new Error("the log-writer thread needs DATABASE_URL");
  const worker = new Worker(new URL("./log-writer.worker.ts", import.meta.url).href);
  const waiting = new Map<number, { resolve(): void; reject(err: unknown): void }>();
  let seq = 0;
  let posted = 0;
  let stored = 0;
  let closing = false;
  let replacement: LogWriter | null = null;

  const failOver = (why: string, err?: unknown) => {
    if (replacement || closing) return;
    replacement = fallback();
    logger.error(`log-writer thread ${why}: logs are now written from the main thread`, {
      lost: Math.max(0, posted - stored),
      ...(err ? errorFields(err) : {}),
    });
    for (const w of waiting.values()) w.reject(new Error(`log-writer thread ${why}`));
    waiting.clear();
    worker.terminate();
  };

  worker.onmessage = (event: MessageEvent<ThreadReply>) => {
    const m = event.data;
    if ("stored" in m) stored += m.stored;
    else if ("ack" in m) {
      const w = waiting.get(m.ack);
      waiting.delete(m.ack);
      if (m.error) w?.reject(new Error(m.error));
      else w?.resolve();
    } else if ("fatal" in m) failOver(`could not start (${m.fatal})`);
  };
  worker.onerror = (event) => failOver("failed", (event as ErrorEvent).error ?? new Error((event as ErrorEvent).message));
  worker.addEventListener("close", () => failOver("exited"));
  worker.postMessage({ t: "init", databaseUrl: config.databaseUrl, logLevel: config.logLevel, flushMs: config.logFlushMs } satisfies ThreadMessage);

  let buffered: string[] = [];
  let timer: ReturnType<typeof setTimeout> | null = null;
  const send = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    if (buffered.length === 0 || replacement) return;
    worker.postMessage(buffered);
    buffered = [];
  };
  // Messages arrive in order: rows sent before a write or flush are stored before it is answered.
  const call = (m: (ack: number) => ThreadMessage) =>
    new Promise<void>((resolve, reject) => {
      send();
      const ack = ++seq;
      waiting.set(ack, { resolve, reject });
      worker.postMessage(m(ack));
    });

  const rows: RowWriter = {
    enqueue(_id, row) {
      posted++;
      buffered.push(row);
      timer ??= setTimeout(send, SEND_EVERY_MS);
    },
    write(_id, row) {
      posted++;
      return call((ack) => ({ t: "write", row, ack }));
    },
    flush: () => call((ack) => ({ t: "flush", ack })),
    async close() {
      await rows.flush();
      closing = true;
      worker.terminate();
    },
  };
  const threaded = recordWriter(rows, logger);
  // Once failed over, every call goes to the main-thread writer.
  return {
    enqueue: (r) => (replacement ?? threaded).enqueue(r),
    write: (r) => (replacement ?? threaded).write(r),
    flush: () => (replacement ?? threaded).flush(),
    close: () => (replacement ?? threaded).close(),
  };
}
