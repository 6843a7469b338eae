import { and, eq } from "drizzle-orm";
import { dbOf, type Ctx } from "../../context";
import type { Queryable } from "../../db/client";
import { models } from "../../db/schema";
import { DomainError } from "../../errors";
import type { Model, ModelStatus } from "./schemas";
import { assertTransition } from "./state";

export type ModelRow = typeof models.$inferSelect;

export function toModel(r: ModelRow): Model {
  return {
    id: r.id,
    slug: r.slug,
    description: r.description,
    datasetId: r.datasetId,
    baseModel: r.baseModel,
    backend: r.backend,
    hyperparameters: r.hyperparameters,
    status: r.status as ModelStatus,
    errorMessage: r.errorMessage,
    upstreamModelId: r.upstreamModelId,
    trainingEntries: r.trainingEntries,
    excludeFailing: r.excludeFailing,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

export const modelNotFound = (slug: string) => new DomainError("NOT_FOUND", `Model ${slug} not found`);

export async function findModelRow(ctx: Ctx, slug: string): Promise<ModelRow | null> {
  const [row] = await dbOf(ctx)
    .select()
    .from(models)
    .where(and(eq(models.projectId, ctx.projectId), eq(models.slug, slug)));
  return row ?? null;
}

/**
 * Moves a model to a new status (checked by the state machine) with extra fields. The update only
 * applies if the model is still in the status it was read in, so two workers cannot both move it.
 */
export async function moveModel(db: Queryable, row: ModelRow, to: ModelStatus, fields: Partial<ModelRow>, now: Date): Promise<boolean> {
  assertTransition(row.status as ModelStatus, to);
  const updated = await db
    .update(models)
    .set({ ...fields, status: to, updatedAt: now })
    .where(and(eq(models.id, row.id), eq(models.status, row.status)))
    .returning({ id: models.id });
  return updated.length > 0;
}
