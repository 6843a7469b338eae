import type { Ctx } from "../context";
import type { Deps } from "../deps";
import { type DomainError, statusOf } from "../../core/errors";
import type { LogApi, NewRequestLog, RefusalKind } from "../logs";

// Calls Hone refuses before any upstream is tried (a rate limit, a spent budget, a model the key may
// not call, a scope it lacks) are logged with their reason, no attempt and no cost, so a team can
// see why a client got its 429 or 403 (docs/limits.md "Refused calls"). Bounded per key: past
// HONE_REFUSALS_LOGGED_PER_MINUTE in one minute, the key's further refusals of that minute are
// counted, per reason, into one row (`refusals` = how many) written once the minute has ended (by
// the next refusal, the flush timer, or shutdown): a client hammering a limit adds one row a
// minute, not one per call.

/** What a refused call's log keeps. */
export type Refused = {
  api: LogApi;
  /** The model it asked for (canonical), when it got that far. */
  model: string | null;
  /** The request as the client sent it; null when the payload is not kept (op-log-request: false, or never read). */
  reqPayload: unknown;
  /** The request in its own protocol (Messages, Responses), when translated. */
  reqPayloadOriginal?: unknown;
  tags: Record<string, string>;
  error: DomainError;
  /** The call's masking (domain/masking): what its log keeps is masked as any log of the call would be. */
  mask?: NewRequestLog["mask"];
};

type Folded = { row: NewRequestLog; count: number; models: Set<string> };

/** Per Deps (deps.caches.refusals): refusals logged one by one this minute per key, and those folded. */
export type RefusalState = {
  perKey: Map<string, { minute: number; n: number }>;
  folded: Map<string, Folded & { minute: number }>;
  timer: ReturnType<typeof setInterval> | null;
};

export const createRefusalState = (): RefusalState => ({ perKey: new Map(), folded: new Map(), timer: null });

const MINUTE_MS = 60_000;
/** Keys remembered at most (an attacker with many keys cannot grow the map past it; the oldest go first). */
const MAX_KEYS = 10_000;
/** Models a folded row names at most. */
const MAX_MODELS_NAMED = 5;

/** Why a call was refused, from the error its check raised. */
export function refusalKind(e: DomainError): RefusalKind {
  const limitCode = e.details.limitCode;
  if (e.details.masking === true) return "masking";
  if (limitCode === "budget_exceeded") return "budget";
  if (limitCode === "unpriced_model") return "unpriced";
  if (limitCode === "rate_limit_exceeded" || e.code === "RATE_LIMITED") return "rate_limit";
  if (e.details.missingScope === "model") return "model";
  return "scope";
}

/** Who a refusal is counted against: the key, or the person or token acting. */
function actorKey(ctx: Ctx): string {
  const a = ctx.actor;
  if (a.type === "apiKey") return a.keyId;
  if (a.type === "user") return `user:${a.userId}`;
  return a.type;
}

/** Logs a refused call (or counts it into its key's folded row for the minute). Never throws. */
export function logRefusal(ctx: Ctx, r: Refused): void {
  try {
    record(ctx, r);
  } catch (err) {
    ctx.deps.logger.error("a refused call was not logged", { requestId: ctx.requestId, error: err instanceof Error ? err.message : String(err) });
  }
}

function record(ctx: Ctx, r: Refused): void {
  const { deps } = ctx;
  const state = deps.caches.refusals;
  const at = deps.clock();
  const minute = Math.floor(at.getTime() / MINUTE_MS);
  // A minute has ended since the last: what was folded in it is written now.
  flushRefusals(deps, { minute });
  const kind = refusalKind(r.error);
  const key = `${ctx.projectId}\u0000${actorKey(ctx)}`;
  let seen = state.perKey.get(key);
  if (!seen || seen.minute !== minute) {
    if (!seen && state.perKey.size >= MAX_KEYS) forgetOldest(state.perKey);
    seen = { minute, n: 0 };
    state.perKey.delete(key);
    state.perKey.set(key, seen);
  }
  const row: NewRequestLog = {
    id: deps.ids("log", at),
    projectId: ctx.projectId,
    source: ctx.internal ? "internal" : "gateway",
    internalKind: ctx.internal ?? null,
    api: r.api,
    provider: null,
    model: r.model,
    completionId: null,
    statusCode: statusOf(r.error),
    errorMessage: r.error.message,
    requestedAt: at,
    receivedAt: at,
    // No upstream, so no duration: the latency figures are the calls that were made.
    durationMs: null,
    inputTokens: null,
    outputTokens: null,
    // Never charged: nothing was sent upstream.
    costUsd: null,
    cacheHit: false,
    tags: r.tags,
    reqPayload: r.reqPayload ?? null,
    respPayload: { error: { message: r.error.message, code: r.error.code } },
    refusal: kind,
    refusals: 1,
  };
  if (r.reqPayloadOriginal !== undefined) row.reqPayloadOriginal = r.reqPayloadOriginal;
  if (r.mask) row.mask = r.mask;
  if (seen.n < deps.config.refusalsLoggedPerMinute) {
    seen.n++;
    deps.logWriter.enqueue(row);
    return;
  }
  // Past the bound: counted into this minute's row of the key and reason, written when it ends.
  const foldKey = `${key}\u0000${kind}`;
  const folded = state.folded.get(foldKey);
  if (folded && folded.minute === minute) {
    folded.count++;
    if (r.model && folded.models.size < MAX_MODELS_NAMED) folded.models.add(r.model);
    // The latest refusal's words and tags stand for the minute's.
    folded.row = { ...row, id: folded.row.id, requestedAt: folded.row.requestedAt, reqPayload: null, reqPayloadOriginal: undefined };
  } else {
    state.folded.set(foldKey, {
      minute,
      count: 1,
      models: new Set(r.model ? [r.model] : []),
      row: { ...row, reqPayload: null, reqPayloadOriginal: undefined },
    });
  }
  if (!state.timer) {
    // Writes the folded rows of ended minutes though no refusal follows; stops when none is left.
    state.timer = setInterval(() => flushRefusals(deps, { minute: Math.floor(deps.clock().getTime() / MINUTE_MS) }), 5_000);
    state.timer.unref?.();
  }
}

/** Forgets the keys seen longest ago (a key is moved to the end when its minute starts) down to 90% of the bound. */
function forgetOldest(perKey: RefusalState["perKey"]): void {
  for (const k of perKey.keys()) {
    if (perKey.size < MAX_KEYS * 0.9) return;
    perKey.delete(k);
  }
}

/**
 * Writes the folded rows of minutes before `minute` (all of them without it: at shutdown) to the
 * log writer. Called by each refusal, a timer while any is waiting, and the server's shutdown.
 */
export function flushRefusals(deps: Deps, opts: { minute?: number } = {}): void {
  const state = deps.caches.refusals;
  for (const [k, f] of state.folded) {
    if (opts.minute !== undefined && f.minute >= opts.minute) continue;
    state.folded.delete(k);
    const models = [...f.models];
    const named = models.length > 1 ? ` (models: ${models.join(", ")})` : "";
    deps.logWriter.enqueue({
      ...f.row,
      refusals: f.count,
      errorMessage: `${f.count} more calls of this key refused in this minute${named}, past the ${deps.config.refusalsLoggedPerMinute} logged one by one (HONE_REFUSALS_LOGGED_PER_MINUTE); the last said: ${f.row.errorMessage}`,
    });
  }
  if (state.folded.size === 0 && state.timer) {
    clearInterval(state.timer);
    state.timer = null;
  }
}
