// Monitors: saved log filters that turn matching production calls into dataset entries as they
// come (manage-monitors.ts: the verbs; run-monitors.ts: the background runner).
export * from "./schemas";
export {
  backfillMonitor,
  createMonitor,
  deleteExpiredMonitorLogs,
  deleteMonitor,
  getMonitor,
  listMonitors,
  MAX_BACKFILL,
  MAX_MONITORS,
  updateMonitor,
} from "./manage-monitors";
export { runMonitorsOnce } from "./run-monitors";
