import { and, count, eq } from "drizzle-orm";
import { type ListPageInput, orderedPage } from "../list-page";
import { requireFullKey } from "../projects";
import { MAX_ROUTES } from "../../core/limits";
import { dbOf, type Ctx } from "../context";
import { isUniqueViolation } from "../../core/sql-errors";
import { routes, routeVerdicts } from "../../db/schema";
import { DomainError, parseInput } from "../../core/errors";
import { checkTargets, findRouteRow, fineTuneNamed, forgetRoute, routeNotFound, storedConfig, toRoute } from "./internal";
import type { RouteConfig } from "./route-config";
import { CreateRouteInput, type Route, RouteSlugInput, UpdateRouteInput } from "./schemas";

// The verbs that keep a project's routes: create, replace (keeping what it had), roll back, delete, read.

export async function createRoute(ctx: Ctx, raw: CreateRouteInput): Promise<Route> {
  requireFullKey(ctx.actor, "create routes");
  const { slug, ...config } = parseInput(CreateRouteInput, raw);
  const [{ n }] = (await dbOf(ctx).select({ n: count() }).from(routes).where(eq(routes.projectId, ctx.projectId))) as [{ n: number }];
  if (n >= MAX_ROUTES)
    throw new DomainError("VALIDATION", `A project has at most ${MAX_ROUTES} routes; delete one first`, {
      issues: [{ message: `at most ${MAX_ROUTES} routes`, path: ["slug"] }],
    });
  if (await fineTuneNamed(ctx, slug)) throw new DomainError("CONFLICT", `A fine-tune is named ${slug}: a route and a fine-tune share hone:<slug>`);
  await checkTargets(ctx, slug, config);
  const now = ctx.deps.clock();
  try {
    const [row] = await dbOf(ctx)
      .insert(routes)
      .values({ id: ctx.deps.ids("route"), projectId: ctx.projectId, slug, config: storedConfig(config), createdAt: now, updatedAt: now })
      .returning();
    forgetRoute(ctx, slug);
    return toRoute(row!);
  } catch (err) {
    if (isUniqueViolation(err)) throw new DomainError("CONFLICT", `A route named ${slug} already exists`);
    throw err;
  }
}

/** Replaces the route's configuration (a new split, other targets); what it had is kept for rollback. */
export async function updateRoute(ctx: Ctx, raw: UpdateRouteInput): Promise<Route> {
  requireFullKey(ctx.actor, "change routes");
  const { slug, ...config } = parseInput(UpdateRouteInput, raw);
  const row = await findRouteRow(ctx, slug);
  if (!row) throw routeNotFound(slug);
  await checkTargets(ctx, slug, config);
  return replaceConfig(ctx, row.id, slug, storedConfig(config), row.config, row.revision);
}

/** Puts back the configuration the last change replaced (the change itself becomes the one to roll back to). */
export async function rollbackRoute(ctx: Ctx, raw: RouteSlugInput): Promise<Route> {
  requireFullKey(ctx.actor, "roll back routes");
  const { slug } = parseInput(RouteSlugInput, raw);
  const row = await findRouteRow(ctx, slug);
  if (!row) throw routeNotFound(slug);
  if (!row.previousConfig) throw new DomainError("CONFLICT", `Route ${slug} has not been changed since it was created: there is nothing to roll back to`);
  return replaceConfig(ctx, row.id, slug, row.previousConfig, row.config, row.revision);
}

async function replaceConfig(ctx: Ctx, id: string, slug: string, config: RouteConfig, previous: RouteConfig, revision: number): Promise<Route> {
  // Only if nobody changed it since it was read: two editors never silently undo each other.
  const [updated] = await dbOf(ctx)
    .update(routes)
    .set({ config, previousConfig: previous, revision: revision + 1, updatedAt: ctx.deps.clock() })
    .where(and(eq(routes.id, id), eq(routes.revision, revision)))
    .returning();
  if (!updated) throw new DomainError("CONFLICT", `Route ${slug} was changed by someone else meanwhile; read it again and retry`);
  forgetRoute(ctx, slug);
  return toRoute(updated);
}

export async function deleteRoute(ctx: Ctx, raw: RouteSlugInput): Promise<{ slug: string }> {
  requireFullKey(ctx.actor, "delete routes");
  const { slug } = parseInput(RouteSlugInput, raw);
  const [gone] = await dbOf(ctx)
    .delete(routes)
    .where(and(eq(routes.projectId, ctx.projectId), eq(routes.slug, slug)))
    .returning({ slug: routes.slug });
  if (!gone) throw routeNotFound(slug);
  // Its judged sample goes with it: a route made later under the same slug starts with none.
  await dbOf(ctx)
    .delete(routeVerdicts)
    .where(and(eq(routeVerdicts.projectId, ctx.projectId), eq(routeVerdicts.route, slug)));
  forgetRoute(ctx, slug);
  return gone;
}

export async function getRoute(ctx: Ctx, raw: RouteSlugInput): Promise<Route> {
  const { slug } = parseInput(RouteSlugInput, raw);
  const row = await findRouteRow(ctx, slug);
  if (!row) throw routeNotFound(slug);
  return toRoute(row);
}

/** A page of the project's routes, by slug (list-page.ts; a project holds at most MAX_ROUTES). */
export async function listRoutes(ctx: Ctx, raw?: ListPageInput): Promise<Route[]> {
  const scope = eq(routes.projectId, ctx.projectId);
  const page = await orderedPage(ctx, raw, { table: routes, id: routes.id, by: [routes.slug], scope, what: "project's routes" });
  const rows = await dbOf(ctx)
    .select()
    .from(routes)
    .where(and(scope, page.after))
    .orderBy(...page.order)
    .limit(Math.min(page.limit, MAX_ROUTES));
  return rows.map(toRoute);
}
