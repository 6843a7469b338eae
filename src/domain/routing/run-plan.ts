import type { Ctx } from "../context";
import type { LogAttempt } from "../logs";
import { DomainError, statusOf, toDomainError } from "../../core/errors";
import { ClientAborted, UpstreamTimeout } from "../../providers";
import { MAX_ATTEMPTS_PER_CALL } from "../../core/limits";
import { resolveModel } from "../projects";
import { resolveUpstream, type Upstream } from "../calls";
import { startAttempt } from "./circuits";
import { circuitOf, orderKeys, orderTargets, type PlanTarget, type RoutingPlan } from "./plan";

/** One try of one target, as the log keeps it. */
export type Attempt = LogAttempt;

/**
 * What a failed attempt means for the call:
 * - retry: the provider was overloaded, failing or unreachable (429, 408, 5xx, a timeout, a
 *   connection error): the same target again after a backoff, then the next;
 * - next: this target cannot serve the call (its key is refused or missing, the model is unknown
 *   there: 401, 403, 404): the next target, no retry;
 * - stop: the request itself is at fault (any other 4xx) or the client left: no other target would
 *   do better, the failure is the answer.
 */
export function failureKind(err: unknown): "retry" | "next" | "stop" {
  if (err instanceof ClientAborted) return "stop";
  if (!(err instanceof DomainError)) return "stop";
  if (err.code === "UPSTREAM_TIMEOUT") return "retry";
  if (err.code !== "UPSTREAM_ERROR") return "stop";
  const s = statusOf(err);
  if (s === 429 || s === 408 || s >= 500) return "retry";
  if (s === 401 || s === 403 || s === 404) return "next";
  return "stop";
}

/** What a call may reach: the acting key's allowed models, and the limits reserved at each target's price. */
export type PlanGate = {
  /** Why the key may not call this target (null: it may): the target is skipped, and its attempt says why. */
  refusal(model: string): DomainError | null;
  /** Before a target's first try: reserves the call's limits at its price (throws when they refuse). */
  admit(model: string, up: Upstream): Promise<void>;
};

const OPEN_GATE: PlanGate = { refusal: () => null, admit: async () => {} };

/**
 * Runs `call` against the plan's targets until one answers: each target up to `plan.attempts`
 * times while its failures are retryable, with exponential backoff (HONE_RETRY_BACKOFF_MS, doubled
 * each time, half of it random) or the upstream's Retry-After when it asks for no more than
 * HONE_RETRY_AFTER_MAX_MS (longer: the next target at once). Every try is pushed to `attempts`
 * (also when the call fails, for its log). A failure that is the request's own is thrown at once;
 * after the last target, the last failure is. `call` must not have sent anything to the client
 * when it throws: a stream is retried only until its first byte.
 */
export async function runPlan<T>(
  ctx: Ctx,
  plan: RoutingPlan,
  signal: AbortSignal,
  attempts: Attempt[],
  call: (up: Upstream, signal: AbortSignal) => Promise<T>,
  /** Told each upstream before it is tried (the call's log prices and names the one that answered). */
  onTry: (up: Upstream, model: string) => void = () => {},
  gate: PlanGate = OPEN_GATE,
): Promise<{ value: T; up: Upstream; target: PlanTarget }> {
  const { metrics, config } = ctx.deps;
  const order = orderTargets(ctx, plan);
  let last: unknown = new DomainError("VALIDATION", "The route has no target to call");
  /** Targets the key may not call, skipped; when no other was left, the answer names them. */
  const refused: string[] = [];
  let allowedOne = false;
  for (const [i, target] of order.entries()) {
    if (attempts.length >= MAX_ATTEMPTS_PER_CALL) return capped(attempts, last);
    const fallBack = i < order.length - 1 ? "fell-back" : "failed";
    const note = (a: Omit<Attempt, "target" | "version" | "key">) =>
      attempts.push({ target: target.model, version: target.version ?? null, ...(up?.key ? { key: up.key } : {}), ...a });
    let up: Upstream;
    let route: ReturnType<typeof resolveModel>;
    // A target the acting key may not call is never called, whatever the route or fallback says.
    const notAllowed = gate.refusal(target.model);
    if (notAllowed) {
      note({ statusCode: statusOf(notAllowed), error: notAllowed.message, latencyMs: 0, next: fallBack });
      if (!refused.includes(target.model)) refused.push(target.model);
      continue;
    }
    allowedOne = true;
    try {
      route = resolveModel(target.model, config.modelPrefixes);
      up = await resolveUpstream(ctx, route);
    } catch (err) {
      // A target this project cannot reach (no key stored, an unknown fine-tune): the next one.
      const e = toDomainError(err);
      note({ statusCode: statusOf(e), error: e.message, latencyMs: 0, next: fallBack });
      last = err;
      continue;
    }
    try {
      // Reserved at this target's price: a fallback to a dearer model is counted at its price.
      await gate.admit(target.model, up);
    } catch (err) {
      const e = toDomainError(err);
      note({ statusCode: statusOf(e), error: e.message, latencyMs: 0, next: "failed" });
      throw err;
    }
    // A key pool: its keys in a weighted order (open circuits last). A failure moves to the next
    // key at once while one is left untried (a rate-limited key sheds its load to the others);
    // after that, retries follow the usual backoff. Each key has its own circuit.
    const keys = up.pool ? orderKeys(ctx, target.model, up.pool, plan.sticky) : null;
    const budget = keys ? Math.max(plan.attempts, keys.length) : plan.attempts;
    for (let n = 1; ; n++) {
      // However a route is configured, one call stops trying after MAX_ATTEMPTS_PER_CALL.
      if (attempts.length >= MAX_ATTEMPTS_PER_CALL) return capped(attempts, last);
      const keyName = keys?.[(n - 1) % keys.length];
      if (keyName !== undefined && keyName !== up.key) {
        try {
          up = await resolveUpstream(ctx, route, keyName);
        } catch (err) {
          // The key was removed meanwhile: this target is done (its other keys were tried or are gone).
          const e = toDomainError(err);
          note({ statusCode: statusOf(e), error: e.message, latencyMs: 0, next: fallBack });
          last = err;
          break;
        }
      }
      onTry(up, target.model);
      const circuit = circuitOf(target.model, up.key);
      const done = startAttempt(ctx, circuit);
      const started = performance.now();
      try {
        const answering = up;
        const value = await withDeadline(signal, target.timeoutMs ?? null, (s) => call(answering, s));
        if (done(false) === "closed") metrics.routing(circuit, "circuit-closed");
        metrics.routing(target.model, "answered");
        note({ statusCode: 200, error: null, latencyMs: Math.round(performance.now() - started), next: "answered" });
        return { value, up, target };
      } catch (err) {
        const kind = failureKind(err);
        if (done(kind === "retry") === "opened") metrics.routing(circuit, "circuit-opened");
        const latencyMs = Math.round(performance.now() - started);
        const e = err instanceof ClientAborted ? null : toDomainError(err);
        const failed = { statusCode: e ? statusOf(e) : null, error: e ? e.message : "the client closed the request", latencyMs };
        if (kind === "stop") {
          note({ ...failed, next: "failed" });
          throw err;
        }
        last = err;
        const untriedKey = keys !== null && n < keys.length;
        const wait = untriedKey ? 0 : kind === "retry" && n < budget ? delayBefore(ctx, keys ? n - keys.length + 1 : n, e) : null;
        if (wait !== null) {
          note({ ...failed, next: "retried" });
          metrics.routing(target.model, "retried");
          await pause(wait, signal);
          continue;
        }
        note({ ...failed, next: fallBack });
        if (fallBack === "fell-back") metrics.routing(target.model, "fell-back");
        break;
      }
    }
  }
  if (!allowedOne && refused.length) {
    const e = notAllowedAnywhere(refused, plan.route ? `${ctx.deps.config.modelPrefixes[0]}:${plan.route}` : null);
    e.details.admission = true;
    throw e;
  }
  throw last;
}

/** FORBIDDEN naming the targets: the acting key may call none of them. */
function notAllowedAnywhere(refused: string[], route: string | null): DomainError {
  const via = route ? `the route ${route}` : "this call and its fallbacks";
  const message = `This API key may not call any model that ${via} would reach: ${refused.join(", ")} (its allowed models do not include them)`;
  return new DomainError("FORBIDDEN", message, {
    missingScope: "model",
    issues: refused.map((m) => ({ message: `model ${m} is not allowed for this key`, path: ["model"] })),
  });
}

/** The call has made MAX_ATTEMPTS_PER_CALL attempts: its last failure is the answer, and the log says nothing came next. */
function capped(attempts: Attempt[], last: unknown): never {
  const final = attempts.at(-1);
  if (final) final.next = "failed";
  throw last;
}

/** The wait before retry `n` (1 = the first retry), or null when the upstream asked for longer than Hone waits. */
function delayBefore(ctx: Ctx, n: number, err: DomainError | null): number | null {
  const { backoffMs, retryAfterMaxMs } = ctx.deps.config.routing;
  const asked = err?.details.retryAfterMs;
  if (typeof asked === "number") return asked <= retryAfterMaxMs ? asked : null;
  const ceiling = backoffMs * 2 ** (n - 1);
  return Math.round(ceiling / 2 + (ctx.deps.random() * ceiling) / 2);
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(new ClientAborted("the client closed the request"));
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(new ClientAborted("the client closed the request"));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** Runs `fn` with the caller's signal, aborted as an upstream timeout after `ms` (null: no deadline of its own). */
async function withDeadline<T>(signal: AbortSignal, ms: number | null, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  if (ms === null) return fn(signal);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new UpstreamTimeout(ms)), ms);
  try {
    return await fn(AbortSignal.any([signal, controller.signal]));
  } finally {
    clearTimeout(timer);
  }
}
