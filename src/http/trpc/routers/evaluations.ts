import { ListPageInput } from "../../../domain/list-page";
import {
  cancelEvaluation,
  createEvaluation,
  CreateEvaluationInput,
  EvaluationIdInput,
  evaluationSummary,
  getEvaluation,
  headToHead,
  HeadToHeadInput,
  listEvaluationEntries,
  ListEvaluationEntriesInput,
  listEvaluationResults,
  ListEvaluationResultsInput,
  listEvaluations,
  type Evaluation,
} from "../../../domain/evaluations";
import { toWireDate } from "../../dates";
import { projectProcedure, router } from "../init";

const out = (e: Evaluation) => ({ ...e, createdAt: toWireDate(e.createdAt), updatedAt: toWireDate(e.updatedAt) });

export const evaluationsRouter = router({
  create: projectProcedure.input(CreateEvaluationInput).mutation(async ({ ctx, input }) => out(await createEvaluation(ctx.project, input))),
  get: projectProcedure
    .input(EvaluationIdInput)
    .query(async ({ ctx, input }) => ({ ...out(await getEvaluation(ctx.project, input)), summary: await evaluationSummary(ctx.project, input) })),
  /** A page of them, newest first: at most `first` (default and ceiling HONE_MAX_PAGE_SIZE), older than `after`. */
  list: projectProcedure.input(ListPageInput).query(async ({ ctx, input }) => (await listEvaluations(ctx.project, input)).map(out)),
  cancel: projectProcedure.input(EvaluationIdInput).mutation(async ({ ctx, input }) => out(await cancelEvaluation(ctx.project, input))),
  results: projectProcedure.input(ListEvaluationResultsInput).query(({ ctx, input }) => listEvaluationResults(ctx.project, input)),
  /** Results grouped by entry with the entry's input, a keyset page at a time. */
  entries: projectProcedure.input(ListEvaluationEntriesInput).query(({ ctx, input }) => listEvaluationEntries(ctx.project, input)),
  headToHead: projectProcedure.input(HeadToHeadInput).query(({ ctx, input }) => headToHead(ctx.project, input)),
});
