import { z } from "zod";
import {
  cancelEvaluation,
  createEvaluation,
  CreateEvaluationInput,
  evaluationSummary,
  getEvaluation,
  headToHead,
  listEvaluationResults,
  listEvaluations,
  type Evaluation,
} from "../../../domain/evaluations";
import { projectProcedure, router } from "../init";

const Id = z.object({ id: z.string().min(1) });
const out = (e: Evaluation) => ({ ...e, createdAt: e.createdAt.toISOString(), updatedAt: e.updatedAt.toISOString() });

export const evaluationsRouter = router({
  create: projectProcedure.input(CreateEvaluationInput).mutation(async ({ ctx, input }) => out(await createEvaluation(ctx.project, input))),
  get: projectProcedure.input(Id).query(async ({ ctx, input }) => ({ ...out(await getEvaluation(ctx.project, input)), summary: await evaluationSummary(ctx.project, input) })),
  list: projectProcedure.query(async ({ ctx }) => (await listEvaluations(ctx.project)).map(out)),
  cancel: projectProcedure.input(Id).mutation(async ({ ctx, input }) => out(await cancelEvaluation(ctx.project, input))),
  results: projectProcedure.input(Id.extend({ model: z.string().nullish() })).query(({ ctx, input }) => listEvaluationResults(ctx.project, input)),
  headToHead: projectProcedure.input(Id.extend({ modelA: z.string(), modelB: z.string() })).query(({ ctx, input }) => headToHead(ctx.project, input)),
});
