import { and, desc, eq, inArray } from "drizzle-orm";
import { dbOf, type Ctx } from "../context";
import { models } from "../../db/schema";
import { parseInput } from "../../core/errors";
import { listPage } from "../list-page";
import { toModel } from "./internal";
import { ListModelsInput, type Model } from "./schemas";

/** A page of the project's models (of one dataset, or all), newest first (list-page.ts). */
export async function listModels(ctx: Ctx, raw: ListModelsInput = {}): Promise<Model[]> {
  const filter = parseInput(ListModelsInput, raw);
  const page = listPage(ctx, { first: filter.first, after: filter.after }, models.id);
  const where = [eq(models.projectId, ctx.projectId)];
  if (filter.datasetId) where.push(eq(models.datasetId, filter.datasetId));
  if (page.after) where.push(page.after);
  const rows = await dbOf(ctx)
    .select()
    .from(models)
    .where(and(...where))
    .orderBy(desc(models.id))
    .limit(page.limit);
  return rows.map(toModel);
}

/** The models fine-tuned on each of these datasets of the project, newest first: one query for a page of datasets. */
export async function loadModelsByDataset(ctx: Ctx, datasetIds: readonly string[]): Promise<Map<string, Model[]>> {
  const byDataset = new Map<string, Model[]>();
  if (!datasetIds.length) return byDataset;
  const rows = await dbOf(ctx)
    .select()
    .from(models)
    .where(and(eq(models.projectId, ctx.projectId), inArray(models.datasetId, [...datasetIds])))
    .orderBy(desc(models.id));
  for (const row of rows) {
    const list = byDataset.get(row.datasetId!) ?? [];
    list.push(toModel(row));
    byDataset.set(row.datasetId!, list);
  }
  return byDataset;
}
