import type { TraceIngestThread } from "./traces";
import type { Caches } from "./caches";
import type { FairShare } from "../core/fair-share";
import type { Metrics } from "./metrics";
import type { Config } from "../core/config";
import type { Database } from "../db/client";
import type { IdGenerator } from "../lib/ids";
import type { LogWriter } from "./logs";
import type { Logger } from "../core/logger";
import type { ResolveHost, UpstreamFactory } from "../providers";
import type { TrainerFactory } from "../providers/trainers";

/** Everything a domain verb may reach outside itself: a type only, built by createDeps (src/compose.ts). Tests build their own. */
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
  /** Wakes this process's job worker after a job was enqueued (nothing happens without a worker). */
  jobs: JobSignal;
  /** What verbs keep in process memory between calls (src/caches.ts). */
  caches: Caches;
  /** Each project's share of the expensive lanes: GraphQL, tRPC, exports, imports (src/fair-share.ts). */
  fairShare: FairShare;
  /** Prometheus counters and histograms, served at GET /metrics. */
  metrics: Metrics;
  /** Where OTLP exports are stored: the ingest thread once it runs (Postgres servers, src/background), else null: this thread. */
  traceIngest: { thread: TraceIngestThread | null };
};

/** How verbs wake the job worker: built with Deps, connected by the worker once it runs (src/background). */
export type JobSignal = {
  nudge(): void;
  /** The worker that `nudge` wakes from now on. */
  connect(wake: () => void): void;
};
