import { z } from "zod";
import { createModel, CreateModelInput, deleteModel, getModel, listModels, type Model } from "../../../domain/models";
import { projectProcedure, router } from "../init";

const modelOut = (m: Model) => ({ ...m, createdAt: m.createdAt.toISOString(), updatedAt: m.updatedAt.toISOString() });
const Slug = z.object({ slug: z.string().min(1) });

export const modelsRouter = router({
  create: projectProcedure.input(CreateModelInput).mutation(async ({ ctx, input }) => modelOut(await createModel(ctx.project, input))),
  list: projectProcedure.query(async ({ ctx }) => (await listModels(ctx.project)).map(modelOut)),
  get: projectProcedure.input(Slug).query(async ({ ctx, input }) => modelOut(await getModel(ctx.project, input))),
  delete: projectProcedure.input(Slug).mutation(({ ctx, input }) => deleteModel(ctx.project, input)),
});
