// The routes section's data: the project's routes, one route, its per-version figures, and the
// mutations that change them (each reads the route and the list again). Components call these hooks.
import { useCriterionList, useWholeList } from "../../lib/project-lists";
import { useQuery } from "@tanstack/react-query";
import { type Trpc, useChange } from "../../lib/mutations";
import { type RouterInputs, type RouterOutputs, useTRPC, useTRPCClient } from "../../lib/trpc";

export type Route = RouterOutputs["routes"]["list"][number];
export type RouteInput = RouterInputs["routes"]["create"];
export type VersionStats = RouterOutputs["routes"]["stats"][number];
export type RouteSeries = RouterOutputs["routes"]["series"];

/** How often the figures of the route on screen are read again. */
export const STATS_REFRESH_MS = 5_000;

export const useRoutes = () => useWholeList((t, c) => ({ key: t.routes.list.queryKey(), list: c.routes.list.query }));

/** The project's criteria, to choose a route's judges from. */
export function useCriterionChoices() {
  return useCriterionList();
}

export function useRoute(slug: string) {
  const trpc = useTRPC();
  // Read again with the figures: a change made elsewhere (another tab, the API, a routes file) shows.
  return useQuery({ ...trpc.routes.get.queryOptions({ slug }), refetchInterval: STATS_REFRESH_MS });
}

/** Each version's figures over the last `hours`, read again every STATS_REFRESH_MS while shown (the window moves with the clock). */
export function useRouteStats(slug: string, hours: number) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  return useQuery(windowed(trpc.routes.stats.queryKey({ slug }), hours, (from) => client.routes.stats.query({ slug, from })));
}

/** The same figures per time bucket over the last `hours`, read again with the table. */
export function useRouteSeries(slug: string, hours: number) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  return useQuery(windowed(trpc.routes.series.queryKey({ slug }), hours, (from) => client.routes.series.query({ slug, from })));
}

/** Query options for a read over the last `hours`, the window recomputed on every read. */
function windowed<T>(key: readonly unknown[], hours: number, read: (from: string) => Promise<T>) {
  return {
    queryKey: [...key, hours],
    queryFn: () => read(new Date(Date.now() - hours * 3_600_000).toISOString()),
    refetchInterval: STATS_REFRESH_MS,
  };
}

/** What a change makes stale: the list, and the route itself. */
const ROUTE = (t: Trpc, r?: { slug: string }) => [t.routes.list.queryKey(), ...(r?.slug ? [t.routes.get.queryKey({ slug: r.slug })] : [])];

export const useCreateRoute = (onDone: (r: Route) => void) => useChange((t) => t.routes.create, { onDone, refresh: ROUTE, refreshFirst: true });
export const useUpdateRoute = (onDone: (r: Route) => void) => useChange((t) => t.routes.update, { onDone, refresh: ROUTE, refreshFirst: true });
export const useRollbackRoute = (onDone: (r: Route) => void) => useChange((t) => t.routes.rollback, { onDone, refresh: ROUTE, refreshFirst: true });
export const useDeleteRoute = (onDone: () => void) => useChange((t) => t.routes.delete, { onDone, refresh: (t) => ROUTE(t), refreshFirst: true });
