import type { Ctx } from "../context";
import { DomainError } from "../../core/errors";
import { resolveModel } from "../projects";
import { circuitAdmits, inFlightOf } from "./circuits";

// A routing plan: the targets a call may reach, in fallback groups. The call tries the first
// group's targets (in an order its balancing picks), then the next group's, and so on; a target
// whose circuit is open goes after every other.

export type PlanTarget = {
  /** Any model string Hone accepts: a provider model, a custom provider's, a fine-tune. */
  model: string;
  /** Relative share of the group's calls (weighted balancing). */
  weight: number;
  /** Longest wait for this target's answer (a stream's headers); null: HONE_UPSTREAM_TIMEOUT_MS. */
  timeoutMs?: number | null;
  /** The rollout version this target serves, if any. */
  version?: string | null;
};

export type PlanGroup = { targets: PlanTarget[]; balance: "weighted" | "least-busy" };

export type RoutingPlan = {
  groups: PlanGroup[];
  /** Attempts per target, the first included (retries only follow retryable failures). */
  attempts: number;
  /** A value (e.g. a `user` tag's) that keeps the same target across calls: its hash replaces the random draw. */
  sticky: string | null;
  /** The route the plan is of, for the log; null for a call's own fallbacks. */
  route: string | null;
};

/** Per-request fallbacks: the model, then each fallback in turn, one target per group. A fallback that is no model string is a 400 naming it. */
export function fallbackPlan(ctx: Ctx, model: string, fallbacks: string[]): RoutingPlan {
  checkFallbacks(ctx, fallbacks);
  return {
    groups: [model, ...fallbacks].map((m) => ({ targets: [{ model: m, weight: 1 }], balance: "weighted" })),
    attempts: ctx.deps.config.routing.attempts,
    sticky: null,
    route: null,
  };
}

/** Each fallback must be a model string Hone reads: a 400 names the first that is not. */
export function checkFallbacks(ctx: Ctx, fallbacks: string[]): void {
  for (const [i, fallback] of fallbacks.entries()) {
    try {
      resolveModel(fallback, ctx.deps.config.modelPrefixes);
    } catch (err) {
      const why = err instanceof Error ? err.message.replace("Invalid model", "Invalid fallback") : String(err);
      throw new DomainError("VALIDATION", why, { issues: [{ message: why, path: ["hone", "fallbacks", i] }] });
    }
  }
}

/** The order this call tries the plan's targets in. */
export function orderTargets(ctx: Ctx, plan: RoutingPlan): PlanTarget[] {
  const ordered: PlanTarget[] = [];
  for (const [g, group] of plan.groups.entries()) {
    const draw = plan.sticky === null ? ctx.deps.random : seeded(`${plan.sticky}\u0000${g}`);
    const left = group.targets.filter((t) => t.weight > 0);
    if (group.balance === "least-busy" && plan.sticky === null) {
      // Fewest calls in flight per unit of weight first; ties broken by a weighted draw.
      const tie = new Map(left.map((t) => [t, draw() ** (1 / t.weight)]));
      left.sort((a, b) => inFlightOf(ctx, a.model) / a.weight - inFlightOf(ctx, b.model) / b.weight || tie.get(b)! - tie.get(a)!);
      ordered.push(...left);
      continue;
    }
    ordered.push(...weightedOrder(left, draw));
  }
  // Targets whose circuit is open come last, in the order they had.
  const admitted = ordered.filter((t) => circuitAdmits(ctx, t.model));
  return admitted.length === ordered.length ? ordered : [...admitted, ...ordered.filter((t) => !admitted.includes(t))];
}

/** Weighted draw without replacement: each next item in proportion to its weight. */
function weightedOrder<T extends { weight: number }>(items: T[], draw: () => number): T[] {
  const left = [...items];
  const out: T[] = [];
  while (left.length) {
    const total = left.reduce((s, t) => s + t.weight, 0);
    let x = draw() * total;
    let i = 0;
    while (i < left.length - 1 && x >= left[i]!.weight) x -= left[i++]!.weight;
    out.push(left.splice(i, 1)[0]!);
  }
  return out;
}

/** The circuit of a target, or of one key of its provider's pool. */
export const circuitOf = (model: string, key?: string) => (key ? `${model}#${key}` : model);

/** The order a call tries a key pool's keys in: a weighted draw (sticky when the plan is), keys whose circuit is open last. */
export function orderKeys(ctx: Ctx, model: string, pool: { name: string; weight: number }[], sticky: string | null): string[] {
  const draw = sticky === null ? ctx.deps.random : seeded(`${sticky}\u0000${model}`);
  const ordered = weightedOrder(pool, draw).map((k) => k.name);
  const admitted = ordered.filter((k) => circuitAdmits(ctx, circuitOf(model, k)));
  return admitted.length === ordered.length ? ordered : [...admitted, ...ordered.filter((k) => !admitted.includes(k))];
}

/** A deterministic [0, 1) sequence from a string (FNV-1a seeded mulberry32): stickiness. */
function seeded(text: string): () => number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  let a = h >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
