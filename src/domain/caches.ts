import { createLeases, type Leases } from "./limits";
import type { ProjectLimits } from "./limits";
import type { ActiveEval } from "./online-evals";
import type { AdapterServer } from "./models";
import { createRefusalState, type RefusalState } from "./calls";
import type { PriceOverride } from "./pricing";
import type { ProjectMasking } from "./masking";
import type { Authenticated } from "./projects";
import type { Circuit, Route } from "./routing";
import { createSignInThrottle, type SignInThrottle } from "./sessions";
import type { ChatCompletion, EmbeddingList } from "../providers/types";

// What verbs keep in process memory between calls, one set per Deps (so the tests, each with their
// own Deps, never share any), built whole with them in src/compose.ts. Each is read and written by
// the verb file named beside it, on deps.clock.

/** An answer of the completion cache kept in memory. */
export type RememberedAnswer = { response: ChatCompletion | EmbeddingList | Record<string, unknown>; createdAt: Date; expiresAt: Date; bytes: number };

/** A Responses API response being written to the database (domain/protocols/stored-responses.ts). */
export type PendingResponseSave = {
  save: { projectId: string; id: string; previousResponseId: string | null; input: Record<string, unknown>[]; response: Record<string, unknown> };
  resolve(): void;
  reject(err: unknown): void;
};

export type Caches = {
  /** Authenticated API keys by hash (domain/projects/authenticate-api-key.ts); each revocation bumps `generation`. */
  apiKeys: { entries: Map<string, { value: Authenticated; expires: number }>; generation: number };
  /** Decrypted provider credentials, per project then per kind (domain/projects/get-upstream-credentials.ts). */
  credentials: Map<string, Map<string, { value: unknown; expires: number }>>;
  /** Completion-cache answers served from memory, least recently used first (domain/cache/cache-store.ts). */
  answers: { entries: Map<string, RememberedAnswer>; bytes: number };
  /** Failed sign-ins per address and token prefix (domain/sessions/sign-in-throttle.ts). */
  signIns: SignInThrottle;
  /** The log partitions' id ranges, newest first, and when they were read (domain/logs/list-logs.ts). */
  logSlices: { at: number; slices: { lo: string | null; hi: string | null }[] } | null;
  /** Stored Responses being written: by id, and those not yet sent (domain/protocols/stored-responses.ts). */
  responseSaves: { inFlight: Map<string, Promise<void>>; queued: PendingResponseSave[] };
  /** Each routing target's circuit and calls in flight, per project and target (domain/routing/circuits.ts). */
  circuits: Map<string, Circuit>;
  /** Routes by project and slug as last read, null for "no such route" (domain/routing/find-route.ts). */
  routes: Map<string, { route: Route | null; expires: number }>;
  /** vLLM servers that have a trainer's adapter loaded, per project and model, for a few seconds (domain/calls/resolve-upstream.ts). */
  adapterServers: Map<string, { value: AdapterServer[]; expires: number }>;
  /** Fine-tunes as last read, served while the database is unreachable (domain/completions/resolve-upstream.ts). */
  fineTunes: Map<string, unknown>;
  /** Price overrides by project as last read (domain/pricing/overrides.ts). */
  priceOverrides: Map<string, { value: PriceOverride[]; expires: number }>;
  /** Limits by project as last read (domain/limits/manage-limits.ts). */
  limits: Map<string, { value: ProjectLimits; expires: number }>;
  /** The slices of limits this process leased, and what it owes the database (domain/limits/leases.ts). */
  limitLeases: Leases;
  /** Sampled judgements of answers in flight, routes' and models' (domain/online-evals/judge-sample.ts). */
  routeJudging: { inFlight: number; skipped: number };
  /** Active online evaluations by project, then model, as last read (domain/online-evals/manage-online-evals.ts). */
  onlineEvals: Map<string, { value: Map<string, ActiveEval>; expires: number }>;
  /** When each judged target's pass rate may be checked for an alert again (domain/online-evals/judge-sample.ts). */
  passRateChecks: Map<string, number>;
  /** Masking rules and recognizers by project as last read (domain/masking/effective.ts). */
  maskingRules: Map<string, { value: ProjectMasking; expires: number }>;
  /** Refusals logged this minute per key, and those folded into a row per key and minute (domain/calls/refusals.ts). */
  refusals: RefusalState;
};

export function createCaches(clock: () => Date): Caches {
  return {
    apiKeys: { entries: new Map(), generation: 0 },
    credentials: new Map(),
    adapterServers: new Map(),
    answers: { entries: new Map(), bytes: 0 },
    signIns: createSignInThrottle(() => clock().getTime()),
    responseSaves: { inFlight: new Map(), queued: [] },
    logSlices: null,
    circuits: new Map(),
    routes: new Map(),
    routeJudging: { inFlight: 0, skipped: 0 },
    onlineEvals: new Map(),
    passRateChecks: new Map(),
    fineTunes: new Map(),
    priceOverrides: new Map(),
    limits: new Map(),
    maskingRules: new Map(),
    limitLeases: createLeases(),
    refusals: createRefusalState(),
  };
}
