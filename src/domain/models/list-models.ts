import { and, desc, eq } from "drizzle-orm";
import { dbOf, type Ctx } from "../../context";
import { models } from "../../db/schema";
import { parseInput } from "../../errors";
import { toModel } from "./internal";
import { ListModelsInput, type Model } from "./schemas";

export async function listModels(ctx: Ctx, raw: ListModelsInput = {}): Promise<Model[]> {
  const filter = parseInput(ListModelsInput, raw);
  const where = [eq(models.projectId, ctx.projectId)];
  if (filter.datasetId) where.push(eq(models.datasetId, filter.datasetId));
  const rows = await dbOf(ctx)
    .select()
    .from(models)
    .where(and(...where))
    .orderBy(desc(models.id));
  return rows.map(toModel);
}
