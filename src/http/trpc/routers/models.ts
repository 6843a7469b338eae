import {
  CreateModelInput,
  deleteModel,
  getModel,
  listBaseModels,
  listModels,
  ListModelsInput,
  ModelSlugInput,
  type Model,
  ModelUsageInput,
  modelUsage,
} from "../../../domain/models";
import { createModel, EstimateFineTuneInput, estimateFineTune } from "../../../domain/fine-tunes";
import { toWireDate } from "../../dates";
import { projectProcedure } from "../init";

export const modelOut = (m: Model) => ({
  ...m,
  events: m.events.map((e) => ({ ...e, at: toWireDate(e.at) })),
  createdAt: toWireDate(m.createdAt),
  updatedAt: toWireDate(m.updatedAt),
});

/** tRPC `models.*` (with the fine-tunes area's declared verbs beside them: src/http/verbs/fine-tunes.ts). */
export const modelsProcedures = {
  create: projectProcedure.input(CreateModelInput).mutation(async ({ ctx, input }) => modelOut(await createModel(ctx.project, input))),
  /** A page of them, newest first: at most `first` (default and ceiling HONE_MAX_PAGE_SIZE), older than `after`. */
  list: projectProcedure.input(ListModelsInput.optional()).query(async ({ ctx, input }) => (await listModels(ctx.project, input)).map(modelOut)),
  get: projectProcedure.input(ModelSlugInput).query(async ({ ctx, input }) => modelOut(await getModel(ctx.project, input))),
  /** Its calls over the last days and the tokens its pruning rules saved on them. */
  usage: projectProcedure.input(ModelUsageInput).query(({ ctx, input }) => modelUsage(ctx.project, input)),
  /** Base models a project can fine-tune: backend, context window, capabilities, serving price. */
  catalogue: projectProcedure.query(({ ctx }) => listBaseModels(ctx.deps.config)),
  /** What a fine-tune would use and cost before it starts: examples, tokens, epochs, list price. */
  estimate: projectProcedure.input(EstimateFineTuneInput).query(({ ctx, input }) => estimateFineTune(ctx.project, input)),
  delete: projectProcedure.input(ModelSlugInput).mutation(({ ctx, input }) => deleteModel(ctx.project, input)),
};
