import { and, eq } from "drizzle-orm";
import { type Ctx, withTx } from "../context";
import { models, trainers } from "../../db/schema";
import { DomainError, parseInput } from "../../core/errors";
import { findModelRow, type Model, type ModelRow, ModelSlugInput, moveModel, toModel } from "../models";
import { leasedRow } from "./internal";
import { verb } from "../verb";
import { CheckpointInput, DoneInput, FailInput } from "./schemas";
import { removeTrainingFiles, requireUploaded } from "./training-files";

/** The lease ends with the job; `leasedBy` stays: the trainer that trained it (the model page names it). */
const noLease = { leaseId: null, leaseExpiresAt: null } as const;

async function trainerIdle(ctx: Ctx, row: ModelRow, tx: Parameters<Parameters<typeof withTx>[1]>[1]): Promise<void> {
  if (row.leasedBy)
    await tx
      .update(trainers)
      .set({ currentModelId: null, lastSeenAt: ctx.deps.clock() })
      .where(and(eq(trainers.projectId, ctx.projectId), eq(trainers.name, row.leasedBy)));
}

/** A checkpoint the trainer uploaded whole: a job leased again after its trainer died resumes from it. */
export async function saveTrainingCheckpoint(ctx: Ctx, id: string, raw: CheckpointInput): Promise<{ step: number }> {
  const input = parseInput(CheckpointInput, raw);
  const row = await leasedRow(ctx, { id, leaseId: input.leaseId });
  requireUploaded(ctx, row.id, "checkpoint", input.files);
  await withTx(ctx, (_inTx, tx) =>
    tx
      .update(models)
      .set({ resumeFrom: { step: input.step, files: input.files }, updatedAt: ctx.deps.clock() })
      .where(eq(models.id, row.id)),
  );
  return { step: input.step };
}

/** The trainer is done: its result's files are all uploaded (checked), and the model is DEPLOYED with them. */
export async function finishTrainingJob(ctx: Ctx, id: string, raw: DoneInput): Promise<{ status: "DEPLOYED" }> {
  const input = parseInput(DoneInput, raw);
  const row = await leasedRow(ctx, { id, leaseId: input.leaseId });
  requireUploaded(ctx, row.id, "result", input.files);
  const now = ctx.deps.clock();
  const note = `trained by ${row.leasedBy}; eval loss ${input.metrics.evalLoss ?? "not measured"}; ${input.dropped.train + input.dropped.test} entries longer than maxSeqLength left out`;
  await withTx(ctx, async (_inTx, tx) => {
    const trainingEntries = row.trainingEntries === null ? null : Math.max(0, row.trainingEntries - input.dropped.train);
    const moved = await moveModel(tx, row, "DEPLOYED", { ...noLease, resultFiles: input.files, droppedEntries: input.dropped, trainingEntries }, now, note);
    if (!moved) throw new DomainError("CONFLICT", `Training job ${row.id} changed while it was being finished: stop working on it`);
    await trainerIdle(ctx, row, tx);
  });
  removeTrainingFiles(ctx, row.id, "checkpoint");
  return { status: "DEPLOYED" };
}

/** The trainer gave up (or stopped because the job was cancelled): the model is ERROR with its reason. */
export async function failTrainingJob(ctx: Ctx, id: string, raw: FailInput): Promise<{ status: "ERROR" }> {
  const input = parseInput(FailInput, raw);
  const row = await leasedRow(ctx, { id, leaseId: input.leaseId });
  const message = input.cancelled ? "Cancelled: the trainer stopped when asked" : `The trainer failed: ${input.error}`;
  await withTx(ctx, async (_inTx, tx) => {
    await moveModel(tx, row, "ERROR", { ...noLease, errorMessage: message }, ctx.deps.clock());
    await trainerIdle(ctx, row, tx);
  });
  removeTrainingFiles(ctx, row.id);
  return { status: "ERROR" };
}

/**
 * Stops a fine-tune on Hone's trainers: one still QUEUED ends at once; one TRAINING is marked, and
 * its trainer stops within a step when its next heartbeat says so (then reports it cancelled).
 */
export const cancelTraining = verb({
  name: "cancelModelTraining",
  description: "Stops a fine-tune on Hone's trainers: a queued one ends at once, a training one within a step of its trainer's next heartbeat",
  kind: "mutation",
  role: "member",
  input: ModelSlugInput,
  run: async (ctx: Ctx, raw: ModelSlugInput): Promise<Model> => {
    const { slug } = parseInput(ModelSlugInput, raw);
    const row = await findModelRow(ctx, slug);
    if (!row) throw new DomainError("NOT_FOUND", `Model ${slug} not found`);
    if (row.backend !== "trainer") throw new DomainError("CONFLICT", `Model ${slug} trains on ${row.backend}: delete it to cancel its training`);
    const now = ctx.deps.clock();
    if (row.status === "QUEUED") await moveModel(ctx.deps.database.db, row, "ERROR", { errorMessage: "Cancelled before a trainer took it" }, now);
    else if (row.status === "TRAINING")
      await withTx(ctx, (_inTx, tx) => tx.update(models).set({ cancelRequested: true, updatedAt: now }).where(eq(models.id, row.id)));
    else throw new DomainError("CONFLICT", `Model ${slug} is ${row.status}: only a queued or training model can be cancelled`);
    return toModel((await findModelRow(ctx, slug))!);
  },
});
