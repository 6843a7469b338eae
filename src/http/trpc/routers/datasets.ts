import { ListPageInput } from "../../../domain/list-page";
import {
  acceptDatasetEntryRelabel,
  DatasetIdOnlyInput,
  listDatasetTasks,
  AddDatasetEntriesInput,
  addDatasetEntries,
  CreateDatasetInput,
  createDataset,
  DatasetIdInput,
  deleteDataset,
  getDataset,
  DatasetTaskIdInput,
  getDatasetTask,
  judgeDatasetEntries,
  JudgeDatasetEntriesInput,
  relabelDatasetEntries,
  RelabelDatasetEntriesInput,
  type DatasetTask,
  importDatasetJsonl,
  ImportDatasetJsonlInput,
  importLogsToDataset,
  ImportLogsInput,
  ListDatasetEntriesInput,
  listDatasetEntries,
  GetDatasetEntryInput,
  getDatasetEntry,
  listDatasets,
  revertDatasetEntryRelabel,
  RevertEntryInput,
  type Dataset,
  type DatasetEntryWithVerdicts,
  RenameDatasetInput,
  renameDataset,
  CountDatasetEntriesInput,
  countDatasetEntries,
  UpdateDatasetEntryInput,
  updateDatasetEntry,
  DeleteDatasetEntriesInput,
  deleteDatasetEntries,
  SetDatasetEntriesSplitInput,
  setDatasetEntriesSplit,
  ExportDatasetPageInput,
  countPreferencePairs,
  CreatePruningRuleInput,
  createPruningRule,
  deletePruningRule,
  ListPruningRulesInput,
  listPruningRules,
  PruningRuleIdInput,
  exportDatasetPage,
  ResplitDatasetEntriesInput,
  resplitDatasetEntries,
} from "../../../domain/datasets";
import { toWireDate } from "../../dates";
import { projectProcedure, router } from "../init";

// No transformer is configured: dates go out as strings, typed that way.
const datasetOut = (d: Dataset) => ({ ...d, createdAt: toWireDate(d.createdAt), updatedAt: toWireDate(d.updatedAt) });
const taskOut = (t: DatasetTask) => ({ ...t, createdAt: toWireDate(t.createdAt) });
const entryOut = (e: DatasetEntryWithVerdicts) => ({
  ...e,
  createdAt: toWireDate(e.createdAt),
  verdicts: e.verdicts.map((v) => ({ ...v, judgedAt: toWireDate(v.judgedAt) })),
});

export const datasetsRouter = router({
  /** A page of them, newest first: at most `first` (default and ceiling HONE_MAX_PAGE_SIZE), older than `after`. */
  list: projectProcedure.input(ListPageInput).query(async ({ ctx, input }) => (await listDatasets(ctx.project, input)).map(datasetOut)),
  get: projectProcedure.input(DatasetIdInput).query(async ({ ctx, input }) => datasetOut(await getDataset(ctx.project, input))),
  create: projectProcedure.input(CreateDatasetInput).mutation(async ({ ctx, input }) => datasetOut(await createDataset(ctx.project, input))),
  delete: projectProcedure.input(DatasetIdInput).mutation(({ ctx, input }) => deleteDataset(ctx.project, input)),
  /** Renames a dataset (the name rules of create). */
  rename: projectProcedure.input(RenameDatasetInput).mutation(async ({ ctx, input }) => datasetOut(await renameDataset(ctx.project, input))),
  addEntries: projectProcedure.input(AddDatasetEntriesInput).mutation(({ ctx, input }) => addDatasetEntries(ctx.project, input)),
  importLogs: projectProcedure.input(ImportLogsInput).mutation(({ ctx, input }) => importLogsToDataset(ctx.project, input)),
  importJsonl: projectProcedure
    .input(ImportDatasetJsonlInput)
    .mutation(({ ctx, input }) => importDatasetJsonl(ctx.project, { datasetId: input.datasetId, lines: input.jsonl.split("\n"), firstLine: input.firstLine })),
  judgeEntries: projectProcedure.input(JudgeDatasetEntriesInput).mutation(async ({ ctx, input }) => taskOut(await judgeDatasetEntries(ctx.project, input))),
  /**
   * One call does the whole job: judges the entries with no verdict of the criterion yet, relabels
   * with `model` those whose latest verdict is FAIL, and judges the relabelled ones again.
   */
  relabelEntries: projectProcedure
    .input(RelabelDatasetEntriesInput)
    .mutation(async ({ ctx, input }) => taskOut(await relabelDatasetEntries(ctx.project, input))),
  task: projectProcedure.input(DatasetTaskIdInput).query(async ({ ctx, input }) => taskOut(await getDatasetTask(ctx.project, input))),
  /** A page of entries, each with `verdicts` (latest per criterion) and `originalMessages` (before relabelling). */
  listEntries: projectProcedure.input(ListDatasetEntriesInput).query(async ({ ctx, input }) => {
    const page = await listDatasetEntries(ctx.project, input);
    return { ...page, entries: page.entries.map(entryOut) };
  }),
  /** One entry with its verdicts (what a link to an entry opens); another dataset's or project's: NOT_FOUND. */
  entry: projectProcedure.input(GetDatasetEntryInput).query(async ({ ctx, input }) => entryOut(await getDatasetEntry(ctx.project, input))),
  /** Pruning rules: text removed from training prompts and from requests to the fine-tunes trained with them. */
  pruningRules: projectProcedure
    .input(ListPruningRulesInput)
    .query(async ({ ctx, input }) => (await listPruningRules(ctx.project, input)).map((r) => ({ ...r, createdAt: toWireDate(r.createdAt) }))),
  createPruningRule: projectProcedure.input(CreatePruningRuleInput).mutation(async ({ ctx, input }) => {
    const r = await createPruningRule(ctx.project, input);
    return { ...r, createdAt: toWireDate(r.createdAt) };
  }),
  deletePruningRule: projectProcedure.input(PruningRuleIdInput).mutation(({ ctx, input }) => deletePruningRule(ctx.project, input)),
  /** The preference pairs (rejected outputs) of the TRAIN entries: what a DPO fine-tune trains on. */
  preferencePairs: projectProcedure.input(DatasetIdInput).query(({ ctx, input }) => countPreferencePairs(ctx.project, input)),
  /** How many entries match a filter (the filters of listEntries), exactly. */
  countEntries: projectProcedure.input(CountDatasetEntriesInput).query(({ ctx, input }) => countDatasetEntries(ctx.project, input)),
  /** Edits one entry; checked as an added entry is, field-level issue paths; CONFLICT when it would duplicate another entry. */
  updateEntry: projectProcedure.input(UpdateDatasetEntryInput).mutation(async ({ ctx, input }) => entryOut(await updateDatasetEntry(ctx.project, input))),
  /**
   * Deletes entries of the dataset: up to 1,000 named by `entryIds` (ids that are not its entries are
   * skipped), or every entry matching `filter` (listEntries' filter), 1,000 per transaction.
   */
  deleteEntries: projectProcedure.input(DeleteDatasetEntriesInput).mutation(({ ctx, input }) => deleteDatasetEntries(ctx.project, input)),
  /** Moves entries of the dataset to TRAIN or TEST: up to 1,000 named by `entryIds`, or every entry matching `filter`. */
  setSplit: projectProcedure.input(SetDatasetEntriesSplitInput).mutation(({ ctx, input }) => setDatasetEntriesSplit(ctx.project, input)),
  /** Splits the entries matching `filter` at random: exactly round(testRatio x n) to TEST, the rest to TRAIN; answers the counts. */
  resplit: projectProcedure.input(ResplitDatasetEntriesInput).mutation(({ ctx, input }) => resplitDatasetEntries(ctx.project, input)),
  /** A page of the JSONL export (the lines GET /datasets/{id}/export writes), for a browser download. */
  exportPage: projectProcedure.input(ExportDatasetPageInput).query(({ ctx, input }) => exportDatasetPage(ctx.project, input)),
  /** Gives a relabelled entry back its messages from before the first relabelling. */
  revertEntry: projectProcedure.input(RevertEntryInput).mutation(async ({ ctx, input }) => entryOut(await revertDatasetEntryRelabel(ctx.project, input))),
  /** Keeps a relabelled entry's new answer and lets the original go (it leaves the review queue). */
  acceptRelabel: projectProcedure.input(RevertEntryInput).mutation(async ({ ctx, input }) => entryOut(await acceptDatasetEntryRelabel(ctx.project, input))),
  /** The dataset's recent judge and relabel tasks, newest first. */
  tasks: projectProcedure.input(DatasetIdOnlyInput).query(async ({ ctx, input }) => (await listDatasetTasks(ctx.project, input)).map(taskOut)),
});
