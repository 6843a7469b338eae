import { createMetrics, type Metrics } from "./metrics";
import type { Config } from "./config";
import type { Database } from "./db/client";
import { newId, type IdGenerator } from "./ids";
import type { LogWriter } from "./domain/logs";
import { createLogWriter } from "./log-writer/log-writer";
import type { Logger } from "./logger";
import { createUpstreamFactory, systemResolveHost, upstreamPolicy, type ResolveHost, type UpstreamFactory } from "./providers";
import { createTrainerFactory, type TrainerFactory } from "./providers/trainers";

/** Everything a domain verb may reach outside itself. Tests build their own. */
export type Deps = {
  config: Config;
  database: Database;
  logger: Logger;
  /** Current time; injected so expiry and ordering can be tested. */
  clock: () => Date;
  ids: IdGenerator;
  /** Uniform [0, 1); injected so random splits can be tested. */
  random: () => number;
  /** 32-byte key for encrypting provider keys at rest. */
  secretKey: Uint8Array;
  /** Clients for LLM upstreams (real HTTP; tests point the base URLs at fake servers). */
  upstreams: UpstreamFactory;
  /** DNS for the SSRF guard of tenant-chosen URLs; injected so tests can make a name change address. */
  resolveHost: ResolveHost;
  /** Batched, off-request-path storage of call logs. */
  logWriter: LogWriter;
  /** Clients for fine-tuning backends (real HTTP; tests point them at fake servers). */
  trainers: TrainerFactory;
  /** Wakes this process's job worker after a job was enqueued (no-op without a worker). */
  nudgeJobs: () => void;
  /** Prometheus counters and histograms, served at GET /metrics. */
  metrics: Metrics;
};

export function createDeps(parts: Pick<Deps, "config" | "database" | "logger" | "secretKey"> & Partial<Deps>): Deps {
  const resolveHost = parts.resolveHost ?? systemResolveHost;
  const deps: Deps = {
    clock: () => new Date(),
    ids: newId,
    random: Math.random,
    resolveHost,
    upstreams: createUpstreamFactory(
      { timeoutMs: parts.config.upstreamTimeoutMs, fetch: globalThis.fetch, maxAnswerBytes: parts.config.maxLoggedPayloadBytes },
      { policy: upstreamPolicy(parts.config), resolve: resolveHost },
    ),
    logWriter: createLogWriter(
      { database: parts.database, logger: parts.logger },
      { maxDelayMs: parts.config.logFlushMs, maxPayloadBytes: parts.config.maxLoggedPayloadBytes },
    ),
    trainers: createTrainerFactory({ fetch: globalThis.fetch, timeoutMs: 120_000 }),
    nudgeJobs: () => {},
    metrics: createMetrics({ database: parts.database, logWriter: () => deps.logWriter, dbPoolSize: parts.config.dbPoolSize }),
    ...parts,
  };
  return deps;
}
