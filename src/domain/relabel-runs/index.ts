// Relabel runs: a model's new outputs for a dataset's entries, judged beside the current ones,
// applied only where accepted (the replaced outputs become preference data).
export * from "./schemas";
export {
  acceptRelabelOutputs,
  cancelRelabelRun,
  createRelabelRun,
  getRelabelRun,
  listRelabelOutputs,
  listRelabelRuns,
  MAX_RUN_ENTRIES,
  RELABEL_RUN_JOB,
  rejectRelabelOutputs,
} from "./manage-relabel-runs";
export { failRelabelRun, runRelabelStep } from "./run-relabel-step";
