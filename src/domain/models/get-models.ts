import { and, desc, eq } from "drizzle-orm";
import { dbOf, type Ctx } from "../../context";
import { models } from "../../db/schema";
import { toDomainError } from "../../errors";
import { getProviderApiKey } from "../projects";
import { findModelRow, modelNotFound, toModel } from "./internal";
import type { Model } from "./schemas";
import { isTraining } from "./state";

export async function listModels(ctx: Ctx, filter: { datasetId?: string } = {}): Promise<Model[]> {
  const where = [eq(models.projectId, ctx.projectId)];
  if (filter.datasetId) where.push(eq(models.datasetId, filter.datasetId));
  const rows = await dbOf(ctx).select().from(models).where(and(...where)).orderBy(desc(models.id));
  return rows.map(toModel);
}

export async function getModel(ctx: Ctx, raw: { slug: string }): Promise<Model> {
  const row = await findModelRow(ctx, raw.slug);
  if (!row) throw modelNotFound(raw.slug);
  return toModel(row);
}

/** Deletes a model; one still training has its upstream job cancelled first. */
export async function deleteModel(ctx: Ctx, raw: { slug: string }): Promise<{ id: string }> {
  const row = await findModelRow(ctx, raw.slug);
  if (!row) throw modelNotFound(raw.slug);
  if (isTraining(row.status as Model["status"]) && row.upstreamJobId) {
    try {
      const apiKey = await getProviderApiKey(ctx, row.backend);
      const baseUrl = row.backend === "openai" ? ctx.deps.config.openaiBaseUrl : ctx.deps.config.togetherBaseUrl;
      await ctx.deps.trainers({ backend: row.backend, baseUrl, apiKey }).cancelJob(row.upstreamJobId);
    } catch (err) {
      // The model is deleted all the same; the log says which upstream job may still run.
      ctx.deps.logger.warn("could not cancel the training job of a deleted model", { modelId: row.id, upstreamJobId: row.upstreamJobId, error: toDomainError(err).message });
    }
  }
  await dbOf(ctx).delete(models).where(and(eq(models.id, row.id), eq(models.projectId, ctx.projectId)));
  return { id: row.slug };
}
