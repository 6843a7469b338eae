import { createCaches } from "./domain/caches";
import { createFairShare } from "./core/fair-share";
import type { Deps, JobSignal } from "./domain/deps";
import { newId } from "./lib/ids";
import { createLogWriter } from "./log-writer/log-writer";
import { createMetrics } from "./domain/metrics";
import { createUpstreamFactory, systemResolveHost, upstreamPolicy } from "./providers";
import { createTrainerFactory } from "./providers/trainers";

// The composition root: where the process's Deps are built from its configuration and database.
// Entry points (server, CLI, job thread) and tests call createDeps; everything else takes a Deps.

export function createDeps(parts: Pick<Deps, "config" | "database" | "logger" | "secretKey"> & Partial<Deps>): Deps {
  const resolveHost = parts.resolveHost ?? systemResolveHost;
  const clock = parts.clock ?? (() => new Date());
  const deps: Deps = {
    clock,
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
    jobs: jobSignal(),
    traceIngest: { thread: null },
    caches: createCaches(clock),
    fairShare: createFairShare({
      active: parts.config.projectConcurrency,
      queued: parts.config.projectQueue,
      waitMs: 15_000,
      costPerSecond: parts.config.projectCostPerSecond,
      costBurst: parts.config.projectCostBurst,
    }),
    metrics: createMetrics({
      database: parts.database,
      logWriter: () => deps.logWriter,
      dbPoolSize: parts.config.dbPoolSize,
      openCircuits: () => openCircuits(deps),
      samplesSkipped: () => deps.caches.routeJudging.skipped,
    }),
    ...parts,
  };
  return deps;
}

/** The targets (circuit keys past the project id) whose circuit is open now. */
function openCircuits(deps: Deps): string[] {
  const now = deps.clock().getTime();
  const open: string[] = [];
  for (const [key, c] of deps.caches.circuits) if (c.openUntil !== null && c.openUntil > now) open.push(key.slice(key.indexOf("\u0000") + 1));
  return open;
}

function jobSignal(): JobSignal {
  let wake: () => void = () => {};
  return {
    nudge: () => wake(),
    connect(w) {
      wake = w;
    },
  };
}
