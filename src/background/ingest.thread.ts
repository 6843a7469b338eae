// The ingest thread: stores the OTLP exports the server's receiver hands it, with its own deps
// (config from the server's environment, its own small Postgres pool). Messages in: init (first),
// ingest (an export's body as sent, and who sent it), stop. Messages out: ready, fatal (it could
// not start), done / failed (an export stored, or the error its exporter is answered with),
// stopped (after stop: the exports it held are stored and its connections closed).
import { dlopen, FFIType } from "bun:ffi";
import { loadConfig } from "../core/config";
import { openDatabase } from "../db/client";
import { createDeps } from "../compose";
import type { Deps } from "../domain/deps";
import { decodeExport, ingestSpans } from "../domain/traces";
import { DomainError } from "../core/errors";
import { createLogger, errorFields } from "../core/logger";
import { resolveSecretKey } from "../db/secret-key";
import type { IngestThreadMessage, IngestThreadReply, MetricCall } from "./ingest-thread";

declare const self: Worker;

/**
 * Ingest is bulk work: on Linux this thread's nice value is raised to 10, so on a busy machine
 * the serving thread's turn comes first (the nice value is a thread's own there). Elsewhere, or
 * without libc, nothing changes.
 */
function lowerThreadPriority(): boolean {
  if (process.platform !== "linux") return false;
  try {
    const libc = dlopen("libc.so.6", { setpriority: { args: [FFIType.i32, FFIType.u32, FFIType.i32], returns: FFIType.i32 } });
    // PRIO_PROCESS (0) with who 0: on Linux, the calling thread only.
    const ok = libc.symbols.setpriority(0, 0, 10) === 0;
    libc.close();
    return ok;
  } catch {
    return false;
  }
}

const reply = (m: IngestThreadReply) => self.postMessage(m);

let deps: Deps | null = null;
let starting: Promise<void> | null = null;
const inFlight = new Set<Promise<void>>();

async function start(env: Record<string, string | undefined>): Promise<void> {
  const config = loadConfig(env);
  const logger = createLogger(config.logLevel);
  if (!lowerThreadPriority()) logger.debug("the ingest thread runs at the server's priority (its nice value could not be raised here)");
  const secretKey = resolveSecretKey(config);
  // A connection a lane, and one for the rules and prices its calls read.
  const database = await openDatabase({ ...config, dbPoolSize: Math.min(config.dbPoolSize, config.otlpConcurrency + 1) }, { migrate: false });
  deps = createDeps({ config, database, logger, secretKey });
  // What ingest records (unpriced calls, the masking analyzer's answers) goes back with each reply,
  // to the server's metrics: /metrics is served there.
  const real = deps.metrics as unknown as Record<string | symbol, unknown>;
  deps.metrics = new Proxy(real, {
    get: (target, key) =>
      typeof target[key] === "function" && typeof key === "string" ? (...args: unknown[]) => void recorded.push([key, args]) : target[key],
  }) as unknown as Deps["metrics"];
}

/** Metric calls made since the last reply. */
const recorded: MetricCall[] = [];

async function ingest(m: Extract<IngestThreadMessage, { t: "ingest" }>, d: Deps): Promise<void> {
  const ctx = { deps: d, actor: m.actor, requestId: m.requestId, projectId: m.projectId };
  try {
    const result = await ingestSpans(ctx, decodeExport(ctx, m.req), m.req.bytes.byteLength, d.config.otlpConcurrency);
    reply({ t: "done", id: m.id, result, metrics: recorded.splice(0) });
  } catch (err) {
    if (err instanceof DomainError) {
      reply({ t: "failed", id: m.id, code: err.code, message: err.message, details: { ...err.details }, metrics: recorded.splice(0) });
      return;
    }
    // What the main thread would have answered: logged here, a 500 without the cause there.
    d.logger.error("storing an OTLP export failed", { requestId: m.requestId, ...errorFields(err) });
    reply({ t: "failed", id: m.id, code: "INTERNAL", message: "Storing the traces failed", details: {}, metrics: recorded.splice(0) });
  }
}

self.onmessage = async (event: MessageEvent<IngestThreadMessage>) => {
  const m = event.data;
  if (m.t === "init") {
    starting = start(m.env).then(
      () => reply({ t: "ready" }),
      (err) => reply({ t: "fatal", message: err instanceof Error ? err.message : String(err) }),
    );
    return;
  }
  await starting;
  if (m.t === "ingest") {
    if (!deps) {
      reply({
        t: "failed",
        id: m.id,
        code: "UNAVAILABLE",
        message: "Hone's trace ingest is not running: send it again",
        details: { retryAfterSeconds: 1 },
        metrics: [],
      });
      return;
    }
    const p = ingest(m, deps).finally(() => inFlight.delete(p));
    inFlight.add(p);
  } else if (m.t === "stop") {
    await Promise.allSettled([...inFlight]);
    if (deps) {
      await deps.logWriter.close();
      await deps.database.close();
      deps = null;
    }
    reply({ t: "stopped" });
  }
};
