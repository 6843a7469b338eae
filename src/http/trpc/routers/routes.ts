import { ListPageInput } from "../../../domain/list-page";
import {
  createRoute,
  CreateRouteInput,
  deleteRoute,
  getRoute,
  listRoutes,
  type Route,
  rollbackRoute,
  RouteSlugInput,
  routeSeries,
  routeStats,
  RouteStatsInput,
  updateRoute,
  UpdateRouteInput,
} from "../../../domain/routing";
import { toWireDate } from "../../dates";
import { manageProcedure, projectProcedure, router } from "../init";

const routeOut = (r: Route) => ({ ...r, createdAt: toWireDate(r.createdAt), updatedAt: toWireDate(r.updatedAt) });

export const routesRouter = router({
  list: projectProcedure.input(ListPageInput).query(async ({ ctx, input }) => (await listRoutes(ctx.project, input)).map(routeOut)),
  get: projectProcedure.input(RouteSlugInput).query(async ({ ctx, input }) => routeOut(await getRoute(ctx.project, input))),
  create: manageProcedure.input(CreateRouteInput).mutation(async ({ ctx, input }) => routeOut(await createRoute(ctx.project, input))),
  /** The whole new configuration; what the route had is kept for rollback. */
  update: manageProcedure.input(UpdateRouteInput).mutation(async ({ ctx, input }) => routeOut(await updateRoute(ctx.project, input))),
  rollback: manageProcedure.input(RouteSlugInput).mutation(async ({ ctx, input }) => routeOut(await rollbackRoute(ctx.project, input))),
  delete: manageProcedure.input(RouteSlugInput).mutation(({ ctx, input }) => deleteRoute(ctx.project, input)),
  /** Each rollout version's requests, errors, latency p50/p95 and cost over a window (default: 24 hours). */
  stats: projectProcedure.input(RouteStatsInput).query(({ ctx, input }) => routeStats(ctx.project, input)),
  /** The same figures per time bucket (at most 60 over the window): a rollout's pass rate over time. */
  series: projectProcedure.input(RouteStatsInput).query(async ({ ctx, input }) => {
    const s = await routeSeries(ctx.project, input);
    return { ...s, from: toWireDate(s.from), to: toWireDate(s.to), points: s.points.map((p) => ({ ...p, start: toWireDate(p.start) })) };
  }),
});
