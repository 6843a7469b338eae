import { and, eq } from "drizzle-orm";
import { dbOf, type Ctx } from "../context";
import { customProviders, models, routes } from "../../db/schema";
import { DomainError, type Issue } from "../../core/errors";
import { resolveModel } from "../projects";
import { resolveCriterion } from "../criteria";
import type { RouteConfig } from "./route-config";
import type { Route } from "./schemas";

export type RouteRow = typeof routes.$inferSelect;

export const routeNotFound = (slug: string) => new DomainError("NOT_FOUND", `Route ${slug} not found`);

export function toRoute(row: RouteRow): Route {
  return {
    id: row.id,
    slug: row.slug,
    ...row.config,
    revision: row.revision,
    previous: row.previousConfig ?? null,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

export async function findRouteRow(ctx: Ctx, slug: string): Promise<RouteRow | null> {
  const [row] = await dbOf(ctx)
    .select()
    .from(routes)
    .where(and(eq(routes.projectId, ctx.projectId), eq(routes.slug, slug)));
  return row ?? null;
}

/** The stored form of a parsed configuration (members in a fixed order, defaults filled in). */
export function storedConfig(c: RouteConfig): RouteConfig {
  return {
    groups: c.groups.map((g) => ({
      balance: g.balance,
      targets: g.targets.map((t) => ({ model: t.model, weight: t.weight, timeoutMs: t.timeoutMs ?? null, version: t.version ?? null })),
    })),
    attempts: c.attempts ?? null,
    stickyTag: c.stickyTag ?? null,
    judge: c.judge
      ? { criteria: c.judge.criteria, sampleRate: c.judge.sampleRate, alertBelow: c.judge.alertBelow ?? null, alertMinJudged: c.judge.alertMinJudged ?? null }
      : null,
  };
}

/**
 * Every target must be something this project can call: a model string Hone reads, naming a
 * fine-tune or custom provider the project has; never a route (no route calls another, so no
 * cycle can form). A 400 names each target that is not.
 */
export async function checkTargets(ctx: Ctx, slug: string, config: RouteConfig): Promise<void> {
  const issues: Issue[] = [];
  for (const [g, group] of config.groups.entries()) {
    for (const [i, target] of group.targets.entries()) {
      const path = ["groups", g, "targets", i, "model"];
      const why = await targetProblem(ctx, slug, target.model);
      if (why) issues.push({ message: `groups.${g}.targets.${i}.model: ${why}`, path });
    }
  }
  for (const [i, ref] of (config.judge?.criteria ?? []).entries()) {
    try {
      await resolveCriterion(ctx, ref);
    } catch (err) {
      issues.push({ message: `judge.criteria.${i}: ${err instanceof Error ? err.message : String(err)}`, path: ["judge", "criteria", i] });
    }
  }
  if (issues.length) throw new DomainError("VALIDATION", `Invalid route ${slug}: ${issues.map((i) => i.message).join("; ")}`, { issues });
}

async function targetProblem(ctx: Ctx, slug: string, model: string): Promise<string | null> {
  let route: ReturnType<typeof resolveModel>;
  try {
    route = resolveModel(model, ctx.deps.config.modelPrefixes);
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
  if (route.provider === "custom") {
    const [cp] = await dbOf(ctx)
      .select({ id: customProviders.id })
      .from(customProviders)
      .where(and(eq(customProviders.projectId, ctx.projectId), eq(customProviders.slug, route.slug)));
    return cp ? null : `unknown target ${model}: the project has no custom provider ${route.slug}`;
  }
  if (route.provider !== "hone") return null;
  if (route.slug === slug || (await findRouteRow(ctx, route.slug))) return `${model} is a route: a route's targets are models, not other routes`;
  const [ft] = await dbOf(ctx)
    .select({ id: models.id })
    .from(models)
    .where(and(eq(models.projectId, ctx.projectId), eq(models.slug, route.slug)));
  return ft ? null : `unknown target ${model}: the project has no fine-tune ${route.slug}`;
}

/** A fine-tune of the project already has this slug (one namespace: hone:<slug>). */
export async function fineTuneNamed(ctx: Ctx, slug: string): Promise<boolean> {
  const [ft] = await dbOf(ctx)
    .select({ id: models.id })
    .from(models)
    .where(and(eq(models.projectId, ctx.projectId), eq(models.slug, slug)));
  return !!ft;
}

/** Drops this process's cached copy of a route (other processes see the change within HONE_ROUTE_CACHE_MS). */
export function forgetRoute(ctx: Ctx, slug: string): void {
  ctx.deps.caches.routes.delete(`${ctx.projectId}\u0000${slug}`);
}
