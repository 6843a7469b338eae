import type { Ctx } from "../domain/context";
import type { Deps } from "../domain/deps";
import type { ExportRequest, IngestResult, TraceIngestThread } from "../domain/traces";
import { DomainError, type ErrorCode } from "../core/errors";
import { errorFields } from "../core/logger";

export type IngestThreadMessage =
  | { t: "init"; env: Record<string, string | undefined> }
  | { t: "ingest"; id: number; projectId: string; actor: Ctx["actor"]; requestId: string; req: ExportRequest }
  | { t: "stop" };
export type IngestThreadReply =
  | { t: "ready" }
  | { t: "stopped" }
  | { t: "fatal"; message: string }
  | { t: "done"; id: number; result: IngestResult; metrics: MetricCall[] }
  | { t: "failed"; id: number; code: ErrorCode; message: string; details: Record<string, unknown>; metrics: MetricCall[] };
/** A metric the thread recorded (its name on deps.metrics and its arguments): recorded again here, where /metrics reads. */
export type MetricCall = [string, unknown[]];

/** What may wait for the thread: 256 exports and 64 MiB of their bodies (as in this thread's lanes); past either, a 429. */
const MAX_WAITING = 256;
const MAX_WAITING_BYTES = 64 * 1024 * 1024;
/** The longest one export waits for the thread; past it a 503 (the exporter sends it again; stored once). */
const EXPORT_DEADLINE_MS = 60_000;
/** How long stop waits for the exports in the thread to be stored. */
const STOP_DEADLINE_MS = 10_000;

const busy = () => new DomainError("RATE_LIMITED", "Hone is busy storing traces: retry in a second", { retryAfterSeconds: 1 });

/**
 * OTLP ingest on its own thread (Postgres only: PGlite lives in the server's thread). An export's
 * body crosses to the thread as it came (moved, not copied); the thread unpacks, decodes and
 * rebuilds its model calls, and stores them over its own connections, so none of that takes the
 * serving thread's time. The thread builds its own deps from the same environment. Until it is
 * ready, or if it fails or dies, exports are stored on this thread (deps.traceIngest.thread is
 * null); the exports it held when it died are answered 503 with Retry-After, and their exporters
 * send them again (a span sent twice is stored once).
 */
export function startIngestThread(deps: Deps, env: Record<string, string | undefined> = process.env): { stop(): Promise<void> } {
  const thread = new Worker(new URL("./ingest.thread.ts", import.meta.url).href);
  const pending = new Map<number, { resolve(r: IngestResult): void; reject(err: Error): void; bytes: number; timer: ReturnType<typeof setTimeout> }>();
  let seq = 0;
  let waitingBytes = 0;
  let stopping = false;
  let dead = false;
  let stopped: (() => void) | null = null;

  const settle = (id: number) => {
    const p = pending.get(id);
    if (p) {
      pending.delete(id);
      waitingBytes -= p.bytes;
      clearTimeout(p.timer);
    }
    return p;
  };
  const failOver = (why: string, err?: unknown) => {
    if (dead) return;
    dead = true;
    if (deps.traceIngest.thread === handle) deps.traceIngest.thread = null;
    if (!stopping) deps.logger.error(`ingest thread ${why}: traces are now stored on the main thread`, err ? errorFields(err) : {});
    for (const id of [...pending.keys()])
      settle(id)?.reject(new DomainError("UNAVAILABLE", "Hone's trace ingest restarted before storing this export: send it again", { retryAfterSeconds: 1 }));
    thread.terminate();
    stopped?.();
  };

  const handle: TraceIngestThread = {
    room() {
      if (pending.size >= MAX_WAITING || waitingBytes >= MAX_WAITING_BYTES) throw busy();
    },
    run(ctx, req) {
      if (pending.size >= MAX_WAITING || waitingBytes + req.bytes.byteLength > MAX_WAITING_BYTES) return Promise.reject(busy());
      const id = ++seq;
      // The body is moved to the thread: a view of part of a larger buffer is copied out first.
      const whole = req.bytes.byteOffset === 0 && req.bytes.byteLength === req.bytes.buffer.byteLength ? req.bytes : req.bytes.slice();
      const message: IngestThreadMessage = {
        t: "ingest",
        id,
        projectId: ctx.projectId,
        actor: ctx.actor,
        requestId: ctx.requestId,
        req: { ...req, bytes: whole },
      };
      return new Promise<IngestResult>((resolve, reject) => {
        const timer = setTimeout(
          () =>
            settle(id)?.reject(
              new DomainError("UNAVAILABLE", `Hone did not store this export within ${EXPORT_DEADLINE_MS / 1000} s: send it again`, { retryAfterSeconds: 5 }),
            ),
          EXPORT_DEADLINE_MS,
        );
        pending.set(id, { resolve, reject, bytes: whole.byteLength, timer });
        waitingBytes += whole.byteLength;
        try {
          thread.postMessage(message, [whole.buffer as ArrayBuffer]);
        } catch (err) {
          // Not sent (the thread is gone, or the message cannot cross): answered, never left waiting.
          deps.logger.error("an OTLP export could not be handed to the ingest thread", errorFields(err));
          settle(id)?.reject(new DomainError("UNAVAILABLE", "Hone's trace ingest could not take this export: send it again", { retryAfterSeconds: 1 }));
        }
      });
    },
  };

  thread.onmessage = (event: MessageEvent<IngestThreadReply>) => {
    const m = event.data;
    if (m.t === "done" || m.t === "failed") {
      const metrics = deps.metrics as unknown as Record<string, (...args: unknown[]) => void>;
      for (const [name, args] of m.metrics) metrics[name]?.(...args);
    }
    if (m.t === "done") settle(m.id)?.resolve(m.result);
    else if (m.t === "failed") settle(m.id)?.reject(new DomainError(m.code, m.message, m.details));
    else if (m.t === "ready") {
      if (stopping || dead) return;
      deps.traceIngest.thread = handle;
      deps.logger.info("traces are stored on their own thread");
    } else if (m.t === "stopped") stopped?.();
    else if (m.t === "fatal") failOver(`could not start (${m.message})`);
  };
  thread.onerror = (event) => failOver("failed", (event as ErrorEvent).error ?? new Error((event as ErrorEvent).message));
  thread.addEventListener("close", () => failOver("exited"));
  thread.postMessage({ t: "init", env: { ...env } } satisfies IngestThreadMessage);

  return {
    async stop() {
      stopping = true;
      if (deps.traceIngest.thread === handle) deps.traceIngest.thread = null;
      if (dead) return;
      // The thread stores the exports it holds, closes its connections and answers.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, STOP_DEADLINE_MS);
        stopped = () => {
          clearTimeout(timer);
          resolve();
        };
        thread.postMessage({ t: "stop" } satisfies IngestThreadMessage);
      });
      failOver("stopped");
    },
  };
}
