export type { Circuit } from "./circuit";
export { circuitState } from "./circuits";
export { findRoute, routePlan } from "./find-route";
export { createRoute, deleteRoute, getRoute, listRoutes, rollbackRoute, updateRoute } from "./manage-routes";
export { fallbackPlan, orderTargets, type PlanGroup, type PlanTarget, type RoutingPlan } from "./plan";
export { RouteConfig, RouteGroup, RouteTarget } from "./route-config";
export { routeStats } from "./route-stats";
export { type Attempt, failureKind, runPlan } from "./run-plan";
export * from "./schemas";
