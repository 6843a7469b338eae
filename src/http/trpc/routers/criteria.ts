import { ListPageInput } from "../../../domain/list-page";
import {
  AlignmentTaskIdInput,
  deleteAlignmentRows,
  DeleteAlignmentRowsInput,
  getAlignmentTask,
  importAlignmentRows,
  ImportAlignmentRowsInput,
  lastAlignmentRuns,
  listAlignmentTasks,
  startAlignmentRun,
  type AlignmentTask,
  createCriterion,
  CreateCriterionInput,
  createCriterionVersion,
  CreateCriterionVersionInput,
  CriterionIdInput,
  deleteCriterion,
  getCriterion,
  importAlignmentSet,
  ImportAlignmentSetInput,
  judgeCriterion,
  JudgeRequest,
  labelAlignmentRow,
  LabelAlignmentRowInput,
  ListAlignmentRowsInput,
  listAlignmentRows,
  listAlignmentRuns,
  listCriteria,
  runAlignment,
  RunAlignmentInput,
  type Criterion,
} from "../../../domain/criteria";
import { toWireDate } from "../../dates";
import { projectProcedure, router } from "../init";

const criterionOut = (c: Criterion) => ({
  ...c,
  createdAt: toWireDate(c.createdAt),
  versions: c.versions.map((v) => ({ ...v, createdAt: toWireDate(v.createdAt) })),
});

const taskOut = (t: AlignmentTask) => ({ ...t, createdAt: toWireDate(t.createdAt), updatedAt: toWireDate(t.updatedAt) });

export const criteriaRouter = router({
  create: projectProcedure.input(CreateCriterionInput).mutation(async ({ ctx, input }) => criterionOut(await createCriterion(ctx.project, input))),
  createVersion: projectProcedure.input(CreateCriterionVersionInput).mutation(async ({ ctx, input }) => {
    const v = await createCriterionVersion(ctx.project, input);
    return { ...v, createdAt: toWireDate(v.createdAt) };
  }),
  /** A page of criteria (newest first, at most `first`, older than `after`), each with its most recent alignment run (null before the first). */
  list: projectProcedure.input(ListPageInput).query(async ({ ctx, input }) => {
    const list = await listCriteria(ctx.project, input);
    const last = await lastAlignmentRuns(
      ctx.project,
      list.map((c) => c.id),
    );
    return list.map((c) => {
      const run = last.get(c.id);
      return { ...criterionOut(c), lastAlignment: run ? { ...run, createdAt: toWireDate(run.createdAt) } : null };
    });
  }),
  get: projectProcedure.input(CriterionIdInput).query(async ({ ctx, input }) => criterionOut(await getCriterion(ctx.project, input))),
  delete: projectProcedure.input(CriterionIdInput).mutation(({ ctx, input }) => deleteCriterion(ctx.project, input)),
  judge: projectProcedure.input(JudgeRequest).mutation(({ ctx, input }) => judgeCriterion(ctx.project, input)),
  importAlignmentSet: projectProcedure.input(ImportAlignmentSetInput).mutation(({ ctx, input }) => importAlignmentSet(ctx.project, input)),
  /** A page of the alignment set, oldest first (first: default and ceiling HONE_MAX_PAGE_SIZE; after: the last row id). */
  alignmentRows: projectProcedure.input(ListAlignmentRowsInput).query(async ({ ctx, input }) =>
    (await listAlignmentRows(ctx.project, input)).map((r) => ({
      ...r,
      createdAt: toWireDate(r.createdAt),
      verdicts: r.verdicts.map((v) => ({ ...v, judgedAt: toWireDate(v.judgedAt) })),
    })),
  ),
  /** Adds rows from logged calls and dataset entries of the project. */
  importAlignmentRows: projectProcedure.input(ImportAlignmentRowsInput).mutation(({ ctx, input }) => importAlignmentRows(ctx.project, input)),
  deleteAlignmentRows: projectProcedure.input(DeleteAlignmentRowsInput).mutation(({ ctx, input }) => deleteAlignmentRows(ctx.project, input)),
  labelAlignmentRow: projectProcedure.input(LabelAlignmentRowInput).mutation(async ({ ctx, input }) => {
    const r = await labelAlignmentRow(ctx.project, input);
    return { ...r, createdAt: toWireDate(r.createdAt) };
  }),
  /** Judges the whole set within the request and answers the statistics (small sets; see startAlignmentRun). */
  runAlignment: projectProcedure.input(RunAlignmentInput).mutation(({ ctx, input }) => runAlignment(ctx.project, input)),
  /** The same run as a background task with progress: nothing holds the request open. */
  startAlignmentRun: projectProcedure.input(RunAlignmentInput).mutation(async ({ ctx, input }) => taskOut(await startAlignmentRun(ctx.project, input))),
  alignmentTask: projectProcedure.input(AlignmentTaskIdInput).query(async ({ ctx, input }) => taskOut(await getAlignmentTask(ctx.project, input))),
  alignmentTasks: projectProcedure.input(CriterionIdInput).query(async ({ ctx, input }) => (await listAlignmentTasks(ctx.project, input)).map(taskOut)),
  alignmentRuns: projectProcedure
    .input(CriterionIdInput)
    .query(async ({ ctx, input }) => (await listAlignmentRuns(ctx.project, input)).map((r) => ({ ...r, createdAt: toWireDate(r.createdAt) }))),
});
