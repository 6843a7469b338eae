export { insertRequestLogs } from "./insert-request-logs";
export { mergeMetadata } from "./metadata";
export type { NewRequestLog } from "./schemas";
