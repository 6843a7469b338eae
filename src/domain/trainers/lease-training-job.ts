import { and, asc, eq, lt, or, sql } from "drizzle-orm";
import { type Ctx, dbOf, withTx } from "../context";
import { datasetEntries, models, trainers } from "../../db/schema";
import { parseInput } from "../../core/errors";
import { moveModel } from "../models";
import { LeaseInput, type TrainingJob } from "./schemas";

/** The trainer as it says it is now, by its name in the project: one row per trainer, kept current. */
async function recordTrainer(ctx: Ctx, t: LeaseInput["trainer"], currentModelId: string | null): Promise<string> {
  const now = ctx.deps.clock();
  const keyId = ctx.actor.type === "apiKey" ? ctx.actor.keyId : null;
  const [row] = await dbOf(ctx)
    .insert(trainers)
    .values({
      id: ctx.deps.ids("trainer"),
      projectId: ctx.projectId,
      keyId,
      name: t.name,
      host: t.host,
      gpus: t.gpus,
      versions: t.versions,
      currentModelId,
      lastSeenAt: now,
    })
    .onConflictDoUpdate({
      target: [trainers.projectId, trainers.name],
      set: { keyId, host: t.host, gpus: t.gpus, versions: t.versions, currentModelId, lastSeenAt: now },
    })
    .returning({ id: trainers.id });
  return row!.id;
}

/**
 * Gives the calling trainer the oldest job no trainer holds: a QUEUED model of its project, or one
 * whose trainer's lease lapsed (it resumes from the last checkpoint uploaded). One trainer a job:
 * the row is locked while it is taken (SKIP LOCKED: two trainers asking at once get two jobs).
 */
export async function leaseTrainingJob(ctx: Ctx, raw: LeaseInput): Promise<TrainingJob | null> {
  const input = parseInput(LeaseInput, raw);
  const now = ctx.deps.clock();
  const leaseSeconds = ctx.deps.config.trainers.leaseSeconds;
  const taken = await withTx(ctx, async (_inTx, tx) => {
    const [row] = await tx
      .select()
      .from(models)
      .where(
        and(
          eq(models.projectId, ctx.projectId),
          eq(models.backend, "trainer"),
          eq(models.cancelRequested, false),
          or(eq(models.status, "QUEUED"), and(eq(models.status, "TRAINING"), lt(models.leaseExpiresAt, now))),
        ),
      )
      .orderBy(asc(models.createdAt))
      .limit(1)
      .for("update", { skipLocked: true });
    if (!row) return null;
    const leaseId = ctx.deps.ids("lease");
    const lease = { leaseId, leasedBy: input.trainer.name, leaseExpiresAt: new Date(now.getTime() + leaseSeconds * 1000) };
    if (row.status === "QUEUED") await moveModel(tx, row, "TRAINING", lease, now, `leased by ${input.trainer.name}`);
    else {
      await tx
        .update(models)
        .set({
          ...lease,
          updatedAt: now,
          events: sql`${models.events} || ${JSON.stringify([{ status: "TRAINING", at: now.toISOString(), message: `the lease of ${row.leasedBy} lapsed: leased again by ${input.trainer.name}${row.resumeFrom ? `, resuming from step ${row.resumeFrom.step}` : ""}` }])}::text::jsonb`,
        })
        .where(eq(models.id, row.id));
    }
    return { row, leaseId };
  });
  await recordTrainer(ctx, input.trainer, taken?.row.id ?? null);
  if (!taken) return null;
  const { row, leaseId } = taken;
  const counts = await dbOf(ctx)
    .select({ split: datasetEntries.split, n: sql<number>`count(*)::int` })
    .from(datasetEntries)
    .where(and(eq(datasetEntries.projectId, ctx.projectId), eq(datasetEntries.datasetId, row.datasetId ?? "")))
    .groupBy(datasetEntries.split);
  const train = counts.find((c) => c.split === "TRAIN")?.n ?? 0;
  // The model's page counts the entries it trains on (less those its trainer leaves out as too long, when it is done).
  await dbOf(ctx).update(models).set({ trainingEntries: train }).where(eq(models.id, row.id));
  return {
    id: row.id,
    leaseId,
    leaseSeconds,
    slug: row.slug,
    method: row.method,
    baseModel: row.baseModel,
    settings: { ...row.hyperparameters, dpoBeta: row.dpoBeta },
    entries: { train, test: counts.find((c) => c.split === "TEST")?.n ?? 0 },
    resumeFrom: row.resumeFrom ?? null,
  };
}
