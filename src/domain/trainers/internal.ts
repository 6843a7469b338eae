import { and, eq } from "drizzle-orm";
import { type Ctx, dbOf } from "../context";
import type { Queryable } from "../../db/client";
import { models } from "../../db/schema";
import { DomainError, parseInput } from "../../core/errors";
import type { ModelRow } from "../models";
import { JobRef } from "./schemas";

/** The job a trainer names, while its lease is its own and current; a lease lost (lapsed, taken, the model deleted) is a 409. */
export async function leasedRow(ctx: Ctx, raw: { id: string; leaseId: string }, db: Queryable = dbOf(ctx)): Promise<ModelRow> {
  const ref = parseInput(JobRef, raw);
  const [row] = await db
    .select()
    .from(models)
    .where(and(eq(models.projectId, ctx.projectId), eq(models.id, ref.id), eq(models.backend, "trainer")));
  if (!row) throw new DomainError("CONFLICT", `Training job ${ref.id} is gone (its model was deleted): stop working on it`);
  if (row.leaseId !== ref.leaseId || row.status !== "TRAINING") {
    throw new DomainError("CONFLICT", `The lease on training job ${ref.id} is no longer yours (it lapsed, or the job ended): stop working on it`);
  }
  if (!row.leaseExpiresAt || row.leaseExpiresAt.getTime() < ctx.deps.clock().getTime()) {
    throw new DomainError("CONFLICT", `The lease on training job ${ref.id} lapsed before this call: stop working on it; it is leased again`);
  }
  return row;
}

/** The folder of a model's uploaded files: HONE_ARTIFACTS_DIR/<project>/<model>/<kind>. */
export const artifactDir = (ctx: Ctx, modelId: string, kind: "checkpoint" | "result") =>
  `${ctx.deps.config.trainers.artifactsDir}/${ctx.projectId}/${modelId}/${kind}`;
