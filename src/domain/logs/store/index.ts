// The storage of call logs, below the verbs of src/domain/logs: how a log becomes a row (rows.ts,
// with its search text, previews and cleaned JSON text), the day partitions both log tables are
// split into (partitions.ts), the hourly usage rollups (rollups.ts) and the stored payload sizes
// (payload-sizes.ts). The log writer (src/log-writer, on its own thread on Postgres) calls only
// logRow and insertLogRows, through the LogWriter port (writer.ts) that deps carries.

export { dropExpiredLogPartitions, ensureLogPartitions, listLogPartitions, PARTITION_DAYS_AHEAD } from "./partitions";
export { payloadSizes, type PayloadSizes } from "./payload-sizes";
export {
  binBounds,
  closeUsageHours,
  dropExpiredUsageRollups,
  HOUR_MS,
  LATENCY_BIN,
  markUsageHourStale,
  readRollupState,
  refreshRollupsForLogs,
  type RollupState,
  closedHours,
  GONE_COLUMNS,
  noteGone,
  prepareGone,
  subtractGone,
} from "./rollups";
export {
  DEFAULT_MAX_LOGGED_PAYLOAD_BYTES,
  insertLogRows,
  insertRequestLogs,
  isTruncatedPayload,
  logRow,
  TRUNCATED_PAYLOAD_KEY,
  truncatedPayload,
} from "./rows";
export { sanitizeJsonText } from "./sanitize-json-text";
export type { NewRequestLog } from "../schemas";
export type { LogWriter, LogWriterStats } from "./writer";
