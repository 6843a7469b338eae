export { countLogs, CountLogsInput } from "./count-logs";
export { deleteExpiredLogs } from "./delete-expired-logs";
export { DELETE_BATCH, deleteLogs, DeleteLogsInput } from "./delete-logs";
export { CSV_COLUMNS, exportLogs, ExportLogsInput } from "./export-logs";
export { exportLogsPage, ExportLogsPageInput } from "./export-logs-page";
export { criteriaResultsOf, getLogDetail, type LogDetail } from "./get-log-detail";
export { getLatestLog, getLog, loadLogBodies, loadLogs } from "./get-log";
export * from "./inputs";
export { logIdAt } from "./internal";
export { listLogs } from "./list-logs";
export { listTagKeys } from "./list-tag-keys";
export { listLogFacets, type LogFacets } from "./list-log-facets";
export { listTagValues, ListTagValuesInput } from "./list-tag-values";
export { logUsage, OTHER_GROUP, UsageInput, type Usage, type UsageFigures, type UsageGroup, type UsagePoint } from "./log-usage";
export { checkedUsage, tokenClasses } from "./checked-usage";
export { mergeTags } from "./merge-tags";
export { reportCall } from "./report-call";
export { setLogTags, SetLogTagsInput } from "./set-log-tags";
export type { NewRequestLog } from "./schemas";
export { updateLogTags } from "./update-log-tags";
// The storage below the verbs (rows, partitions, rollups, payload sizes), for the background
// sweeps, the log writer and tests.
export {
  closeUsageHours,
  dropExpiredLogPartitions,
  dropExpiredUsageRollups,
  ensureLogPartitions,
  insertLogRows,
  insertRequestLogs,
  isTruncatedPayload,
  listLogPartitions,
  type LogWriter,
  logRow,
  PARTITION_DAYS_AHEAD,
  payloadSizes,
  type PayloadSizes,
  readRollupState,
  refreshRollupsForLogs,
  TRUNCATED_PAYLOAD_KEY,
  truncatedPayload,
} from "./store";
export type { LogAttempt } from "./attempts";
export type { LogWriterStats } from "./store/writer";
export { resultRows } from "./internal";
export { logMsOf } from "./internal";
export { logConditions } from "./internal";
export { whereAll } from "./internal";
export { closedHours } from "./store/rollups";
export { csvCell } from "./export-logs";
export { classMapFromLogs } from "./store/rollups";
export { classMapOfColumns } from "./store/rollups";
export { numberMap } from "./store/rollups";
export { sanitizeJsonText } from "./store/sanitize-json-text";
export { logToEntry } from "./log-to-entry";
export { maskStoredLogs } from "./mask-stored-logs";
export { type MaskedKindUsage, maskedUsage } from "./masked-usage";
