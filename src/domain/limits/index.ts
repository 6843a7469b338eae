export { flushLeases, returnLeases } from "./leases";
export { deleteLimit, limitSpend, listLimits, projectLimits, setLimit } from "./manage-limits";
export { reserveCall } from "./reserve";
export * from "./schemas";
export { createLeases } from "./lease-state";
export type { Leases } from "./lease-state";
export type { Reservation } from "./reserve";
