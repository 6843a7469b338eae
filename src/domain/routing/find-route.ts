import type { Ctx } from "../context";
import { readOrKnown, refreshAhead } from "../../db/read-or-known";
import { findRouteRow, toRoute } from "./internal";
import { checkFallbacks, type RoutingPlan } from "./plan";
import type { Route } from "./schemas";

/** Routes kept per process at most (the oldest entries go first). */
const MAX_CACHED = 10_000;

/**
 * The route a `hone:<slug>` call names, or null when the slug is no route (a fine-tune, or
 * nothing). Each process keeps what it read for HONE_ROUTE_CACHE_MS (absences too), so a split
 * changed on one process is followed by every other within that time.
 */
export async function findRoute(ctx: Ctx, slug: string): Promise<Route | null> {
  const cache = ctx.deps.caches.routes;
  const key = `${ctx.projectId}\u0000${slug}`;
  const now = ctx.deps.clock().getTime();
  const kept = cache.get(key);
  if (kept && kept.expires > now) {
    refreshAhead(cache, key, kept.expires, ctx.deps.config.routing.routeCacheMs, now, () => readRoute(ctx, slug, key, kept, now, true), ctx.deps.logger);
    return kept.route;
  }
  return readRoute(ctx, slug, key, kept, now);
}

/** Reads the route into the cache; a refresh (`ahead`) writes only over the entry it started from, never over a forgotten one. */
async function readRoute(ctx: Ctx, slug: string, key: string, kept: { route: Route | null } | undefined, now: number, ahead = false): Promise<Route | null> {
  const cache = ctx.deps.caches.routes;
  // The database unreachable or slow: the route as last read keeps serving until it answers again.
  const read = await readOrKnown(ctx.deps.database, () => findRouteRow(ctx, slug), kept ? { value: null } : undefined);
  if (!read.fresh) return kept!.route;
  const row = read.value;
  const route = row ? toRoute(row) : null;
  const ttl = ctx.deps.config.routing.routeCacheMs;
  if (ttl > 0 && (!ahead || cache.get(key) === kept)) {
    cache.delete(key);
    if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!);
    cache.set(key, { route, expires: now + ttl });
  }
  return route;
}

/** How a call to the route is tried: its groups, then the call's own fallbacks; sticky on the route's tag. */
export function routePlan(ctx: Ctx, route: Route, fallbacks: string[], tags: Record<string, unknown>): RoutingPlan {
  checkFallbacks(ctx, fallbacks);
  const sticky = route.stickyTag ? tags[route.stickyTag] : undefined;
  return {
    groups: [
      ...route.groups.map((g) => ({
        balance: g.balance,
        targets: g.targets.map((t) => ({ model: t.model, weight: t.weight, timeoutMs: t.timeoutMs ?? null, version: t.version ?? null })),
      })),
      ...fallbacks.map((model) => ({ balance: "weighted" as const, targets: [{ model, weight: 1 }] })),
    ],
    attempts: route.attempts ?? ctx.deps.config.routing.attempts,
    sticky: sticky === undefined || sticky === null ? null : String(sticky),
    route: route.slug,
  };
}
