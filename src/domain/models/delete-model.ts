import { backendTarget } from "./backend-target";
import { rmSync } from "node:fs";
import { and, eq } from "drizzle-orm";
import { dbOf, type Ctx } from "../context";
import { models } from "../../db/schema";
import { parseInput, toDomainError } from "../../core/errors";
import { getProviderApiKey } from "../projects";
import { findModelRow, modelNotFound } from "./internal";
import { ModelSlugInput, type Model } from "./schemas";
import { isTraining } from "./state";
import { type Deleted, deleted as deletedAs } from "../deleted";

/** Deletes a model; one still training has its upstream job cancelled first. */
export async function deleteModel(ctx: Ctx, raw: ModelSlugInput): Promise<Deleted> {
  const { slug } = parseInput(ModelSlugInput, raw);
  const row = await findModelRow(ctx, slug);
  if (!row) throw modelNotFound(slug);
  // A trainer holding a lease on it learns at its next heartbeat (the model is gone: its lease is lost).
  if (row.backend !== "trainer" && isTraining(row.status as Model["status"]) && row.upstreamJobId) {
    try {
      const apiKey = await getProviderApiKey(ctx, row.backend);
      await ctx.deps.trainers(backendTarget(ctx.deps.config, { ...row, backend: row.backend }, apiKey)).cancelJob(row.upstreamJobId);
    } catch (err) {
      // The model is deleted all the same; the log says which upstream job may still run.
      ctx.deps.logger.warn("could not cancel the training job of a deleted model", {
        modelId: row.id,
        upstreamJobId: row.upstreamJobId,
        error: toDomainError(err).message,
      });
    }
  }
  await dbOf(ctx)
    .delete(models)
    .where(and(eq(models.id, row.id), eq(models.projectId, ctx.projectId)));
  // Weights Hone's trainers uploaded for it (HONE_ARTIFACTS_DIR) go with it.
  if (row.backend === "trainer") rmSync(`${ctx.deps.config.trainers.artifactsDir}/${ctx.projectId}/${row.id}`, { recursive: true, force: true });
  return deletedAs(row.slug);
}
