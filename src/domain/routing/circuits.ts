import type { Ctx } from "../context";
import type { Circuit } from "./circuit";

// A circuit per project and target: a target that fails `circuitFailures` times within
// `circuitWindowMs` opens, and is then tried only after every other target of the call, until
// `circuitCooldownMs` has passed; then one call at a time probes it (half-open), and the probe's
// outcome closes it or opens it again. The same entry counts the target's calls in flight, for
// least-busy balancing. Process memory: each Hone process keeps its own circuits.

/** Circuits kept per process at most (the least recently touched go first). */
const MAX_CIRCUITS = 10_000;

const keyOf = (ctx: Ctx, target: string) => `${ctx.projectId}\u0000${target}`;

function circuitOf(ctx: Ctx, target: string): Circuit {
  const all = ctx.deps.caches.circuits;
  const key = keyOf(ctx, target);
  let c = all.get(key);
  if (c) {
    all.delete(key); // re-inserted: a Map keeps insertion order, so the oldest is first
  } else {
    c = { failures: [], openUntil: null, probing: false, inFlight: 0 };
    if (all.size >= MAX_CIRCUITS) all.delete(all.keys().next().value!);
  }
  all.set(key, c);
  return c;
}

export type CircuitState = "closed" | "open" | "half-open";

/** The circuit's state now: open while cooling down, half-open after (until a probe settles it). */
export function circuitState(ctx: Ctx, target: string): CircuitState {
  const c = ctx.deps.caches.circuits.get(keyOf(ctx, target));
  if (!c || c.openUntil === null) return "closed";
  return ctx.deps.clock().getTime() < c.openUntil ? "open" : "half-open";
}

/** Whether a call may go to the target now without waiting its turn behind the healthy ones. */
export function circuitAdmits(ctx: Ctx, target: string): boolean {
  const state = circuitState(ctx, target);
  if (state === "closed") return true;
  if (state === "open") return false;
  return !circuitOf(ctx, target).probing;
}

/** Calls to the target in flight on this process. */
export function inFlightOf(ctx: Ctx, target: string): number {
  return ctx.deps.caches.circuits.get(keyOf(ctx, target))?.inFlight ?? 0;
}

/** Marks an attempt's start; the returned function records its end (`failed`: a provider failure). */
export function startAttempt(ctx: Ctx, target: string): (failed: boolean) => "opened" | "closed" | null {
  const c = circuitOf(ctx, target);
  const probe = circuitState(ctx, target) === "half-open";
  if (probe) c.probing = true;
  c.inFlight++;
  return (failed) => {
    c.inFlight--;
    if (probe) c.probing = false;
    const { circuitFailures, circuitWindowMs, circuitCooldownMs } = ctx.deps.config.routing;
    const now = ctx.deps.clock().getTime();
    if (!failed) {
      const wasOpen = c.openUntil !== null;
      if (probe || !wasOpen) {
        c.failures = [];
        c.openUntil = null;
      }
      return wasOpen && probe ? "closed" : null;
    }
    if (probe) {
      c.openUntil = now + circuitCooldownMs;
      return "opened";
    }
    c.failures.push(now);
    while (c.failures.length && c.failures[0]! <= now - circuitWindowMs) c.failures.shift();
    if (c.failures.length > circuitFailures) c.failures.splice(0, c.failures.length - circuitFailures);
    if (c.openUntil === null && c.failures.length >= circuitFailures) {
      c.openUntil = now + circuitCooldownMs;
      return "opened";
    }
    return null;
  };
}
