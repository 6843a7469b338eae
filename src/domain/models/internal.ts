import { failureOf } from "./failure";
import { and, eq, sql } from "drizzle-orm";
import { dbOf, type Ctx } from "../context";
import type { Queryable } from "../../db/client";
import { models } from "../../db/schema";
import { DomainError } from "../../core/errors";
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
    failure: failureOf({ status: r.status as ModelStatus, errorMessage: r.errorMessage, backend: r.backend }),
    upstreamModelId: r.upstreamModelId,
    trainingEntries: r.trainingEntries,
    excludeFailing: r.excludeFailing,
    method: r.method,
    dpoBeta: r.dpoBeta ?? null,
    pruningRules: r.pruningRules ?? [],
    prunedTokens: r.prunedTokens ?? null,
    trainingCurve: r.trainingCurve ?? [],
    checkpoints: r.checkpoints ?? [],
    // Models created before the timeline was kept show their creation and where they are now.
    events: r.events.length
      ? r.events.map((e) => ({ status: e.status as ModelStatus, at: new Date(e.at), message: e.message }))
      : [
          { status: "PENDING" as ModelStatus, at: r.createdAt, message: null },
          ...(r.status === "PENDING" ? [] : [{ status: r.status as ModelStatus, at: r.updatedAt, message: r.errorMessage }]),
        ],
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
 * `note` goes on the timeline's event (a failure's event carries its errorMessage instead).
 */
export async function moveModel(db: Queryable, row: ModelRow, to: ModelStatus, fields: Partial<ModelRow>, now: Date, note?: string): Promise<boolean> {
  assertTransition(row.status as ModelStatus, to);
  const updated = await db
    .update(models)
    .set({
      ...fields,
      status: to,
      updatedAt: now,
      // The timeline: appended in the same statement, so it never disagrees with the status. The
      // ::text first: postgres.js would otherwise send the string as a JSON string, not an array.
      events: sql`${models.events} || ${JSON.stringify([{ status: to, at: now.toISOString(), message: fields.errorMessage ?? note ?? null }])}::text::jsonb`,
    })
    .where(and(eq(models.id, row.id), eq(models.status, row.status)))
    .returning({ id: models.id });
  return updated.length > 0;
}
