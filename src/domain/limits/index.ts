export { flushLeases, returnLeases } from "./leases";
export { deleteLimit, limitSpend, listLimits, projectLimits, setLimit } from "./manage-limits";
export { reserveCall } from "./reserve";
export * from "./schemas";
