export { addDatasetEntries } from "./add-dataset-entries";
export { createDataset } from "./create-dataset";
export { deleteDataset } from "./delete-dataset";
export { getDataset } from "./get-dataset";
export { getDatasetEntry, listDatasetEntries } from "./list-dataset-entries";
export { listDatasets } from "./list-datasets";
export * from "./schemas";
export { exportDataset } from "./export-dataset";
export { importDatasetJsonl } from "./import-jsonl";
export { importLogsToDataset, ImportLogsInput, type ImportLogsResult } from "./import-logs";
export { loadDatasets, loadEntriesBySourceLog, loadEntryPages, loadEntryVerdicts, type EntryPageArgs } from "./load-graph";
export { acceptDatasetEntryRelabel } from "./accept-dataset-entry-relabel";
export { revertDatasetEntryRelabel } from "./revert-dataset-entry-relabel";
export { DatasetIdOnlyInput, getDatasetTask, listDatasetTasks } from "./get-dataset-task";
export { judgeDatasetEntries } from "./judge-dataset-entries";
export { relabelDatasetEntries } from "./relabel-dataset-entries";
export { runDatasetTaskStep } from "./run-dataset-task-step";
export { DATASET_TASK_JOB } from "./start-dataset-task";
export { failDatasetTask } from "./fail-dataset-task";
export { renameDataset } from "./rename-dataset";
export { countDatasetEntries } from "./count-dataset-entries";
export { updateDatasetEntry } from "./update-dataset-entry";
export { deleteDatasetEntries } from "./delete-dataset-entries";
export { setDatasetEntriesSplit } from "./set-dataset-entries-split";
export { exportDatasetPage } from "./export-dataset";
export { resplitDatasetEntries } from "./resplit-dataset-entries";
export { countPreferencePairs } from "./preference-lines";
export {
  CreatePruningRuleInput,
  createPruningRule,
  deletePruningRule,
  ListPruningRulesInput,
  listPruningRules,
  MAX_PRUNING_RULES,
  PruningRuleIdInput,
  type PruningRule,
  pruningTextsOf,
} from "./pruning-rules";
export { findDataset } from "./internal";
export { trainingEntries } from "./training-entries";
export { preferenceLines } from "./preference-lines";
export { asksForInternal } from "./import-logs";
export { byteBoundedBatches } from "./import-logs";
export { rejectedOf } from "./import-logs";
export { entryContentHash } from "./internal";
export { insertEntries } from "./internal";
export type { NewEntry } from "./internal";
export { decodeCursor } from "./entry-queries";
export { ENTRY_SIZE } from "./entry-queries";
export { encodeCursor } from "./entry-queries";
export { withRejected } from "./internal";
export { assistantOutput } from "./internal";
export { maskStoredEntries } from "./mask-stored-entries";
