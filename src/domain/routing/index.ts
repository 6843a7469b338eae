export type { Circuit } from "./circuit";
export { circuitState } from "./circuits";
export { fallbackPlan, orderTargets, type PlanGroup, type PlanTarget, type RoutingPlan } from "./plan";
export { type Attempt, failureKind, runPlan } from "./run-plan";
