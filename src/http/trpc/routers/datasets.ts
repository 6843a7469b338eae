import { z } from "zod";
import {
  AddDatasetEntriesInput,
  addDatasetEntries,
  CreateDatasetInput,
  createDataset,
  DatasetIdInput,
  deleteDataset,
  getDataset,
  getDatasetTask,
  judgeDatasetEntries,
  relabelDatasetEntries,
  type DatasetTask,
  importDatasetJsonl,
  importLogsToDataset,
  ImportLogsInput,
  ListDatasetEntriesInput,
  listDatasetEntries,
  listDatasets,
  revertDatasetEntryRelabel,
  RevertEntryInput,
  type Dataset,
  type DatasetEntryWithVerdicts,
} from "../../../domain/datasets";
import { projectProcedure, router } from "../init";

// No transformer is configured, so Dates are sent as ISO strings and typed that way.
const datasetOut = (d: Dataset) => ({ ...d, createdAt: d.createdAt.toISOString(), updatedAt: d.updatedAt.toISOString() });
const taskOut = (t: DatasetTask) => ({ ...t, createdAt: t.createdAt.toISOString() });
const entryOut = (e: DatasetEntryWithVerdicts) => ({
  ...e,
  createdAt: e.createdAt.toISOString(),
  verdicts: e.verdicts.map((v) => ({ ...v, judgedAt: v.judgedAt.toISOString() })),
});

export const datasetsRouter = router({
  list: projectProcedure.query(async ({ ctx }) => (await listDatasets(ctx.project)).map(datasetOut)),
  get: projectProcedure.input(DatasetIdInput).query(async ({ ctx, input }) => datasetOut(await getDataset(ctx.project, input))),
  create: projectProcedure
    .input(CreateDatasetInput)
    .mutation(async ({ ctx, input }) => datasetOut(await createDataset(ctx.project, input))),
  delete: projectProcedure
    .input(DatasetIdInput)
    .mutation(async ({ ctx, input }) => ({ ...(await deleteDataset(ctx.project, input)), deleted: true as const })),
  addEntries: projectProcedure
    .input(AddDatasetEntriesInput)
    .mutation(({ ctx, input }) => addDatasetEntries(ctx.project, input)),
  importLogs: projectProcedure.input(ImportLogsInput).mutation(({ ctx, input }) => importLogsToDataset(ctx.project, input)),
  importJsonl: projectProcedure
    .input(z.object({ datasetId: z.string().min(1), jsonl: z.string() }))
    .mutation(({ ctx, input }) => importDatasetJsonl(ctx.project, { datasetId: input.datasetId, lines: input.jsonl.split("\n") })),
  judgeEntries: projectProcedure
    .input(z.object({ datasetId: z.string().min(1), criterionId: z.string().min(1) }))
    .mutation(async ({ ctx, input }) => taskOut(await judgeDatasetEntries(ctx.project, input))),
  /**
   * One call does the whole job: judges the entries with no verdict of the criterion yet, relabels
   * with `model` those whose latest verdict is FAIL, and judges the relabelled ones again.
   */
  relabelEntries: projectProcedure
    .input(z.object({ datasetId: z.string().min(1), criterionId: z.string().min(1), model: z.string().min(1) }))
    .mutation(async ({ ctx, input }) => taskOut(await relabelDatasetEntries(ctx.project, input))),
  task: projectProcedure.input(z.object({ id: z.string().min(1) })).query(async ({ ctx, input }) => taskOut(await getDatasetTask(ctx.project, input))),
  /** A page of entries, each with `verdicts` (latest per criterion) and `originalMessages` (before relabelling). */
  listEntries: projectProcedure.input(ListDatasetEntriesInput).query(async ({ ctx, input }) => {
    const page = await listDatasetEntries(ctx.project, input);
    return { ...page, entries: page.entries.map(entryOut) };
  }),
  /** Gives a relabelled entry back its messages from before the first relabelling. */
  revertEntry: projectProcedure.input(RevertEntryInput).mutation(async ({ ctx, input }) => entryOut(await revertDatasetEntryRelabel(ctx.project, input))),
});

