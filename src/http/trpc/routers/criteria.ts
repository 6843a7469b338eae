import {
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

export const criteriaRouter = router({
  create: projectProcedure.input(CreateCriterionInput).mutation(async ({ ctx, input }) => criterionOut(await createCriterion(ctx.project, input))),
  createVersion: projectProcedure.input(CreateCriterionVersionInput).mutation(async ({ ctx, input }) => {
    const v = await createCriterionVersion(ctx.project, input);
    return { ...v, createdAt: toWireDate(v.createdAt) };
  }),
  list: projectProcedure.query(async ({ ctx }) => (await listCriteria(ctx.project)).map(criterionOut)),
  get: projectProcedure.input(CriterionIdInput).query(async ({ ctx, input }) => criterionOut(await getCriterion(ctx.project, input))),
  delete: projectProcedure.input(CriterionIdInput).mutation(({ ctx, input }) => deleteCriterion(ctx.project, input)),
  judge: projectProcedure.input(JudgeRequest).mutation(({ ctx, input }) => judgeCriterion(ctx.project, input)),
  importAlignmentSet: projectProcedure.input(ImportAlignmentSetInput).mutation(({ ctx, input }) => importAlignmentSet(ctx.project, input)),
  alignmentRows: projectProcedure
    .input(CriterionIdInput)
    .query(async ({ ctx, input }) => (await listAlignmentRows(ctx.project, input)).map((r) => ({ ...r, createdAt: toWireDate(r.createdAt) }))),
  labelAlignmentRow: projectProcedure.input(LabelAlignmentRowInput).mutation(async ({ ctx, input }) => {
    const r = await labelAlignmentRow(ctx.project, input);
    return { ...r, createdAt: toWireDate(r.createdAt) };
  }),
  runAlignment: projectProcedure.input(RunAlignmentInput).mutation(({ ctx, input }) => runAlignment(ctx.project, input)),
  alignmentRuns: projectProcedure
    .input(CriterionIdInput)
    .query(async ({ ctx, input }) => (await listAlignmentRuns(ctx.project, input)).map((r) => ({ ...r, createdAt: toWireDate(r.createdAt) }))),
});
