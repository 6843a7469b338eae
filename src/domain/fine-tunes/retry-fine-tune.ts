import type { Ctx } from "../context";
import { withTx } from "../context";
import { DomainError, parseInput } from "../../core/errors";
import { enqueueJob } from "../jobs";
import { findModelRow, type Model, ModelSlugInput, moveModel, toModel } from "../models";
import { verb } from "../verb";
import { FINE_TUNE_JOB } from "./create-model";

/**
 * Trains a failed model again from the same settings and data: a managed backend's starts over
 * (PENDING: the file is uploaded and the job created again); one of Hone's trainers waits in
 * QUEUED for a trainer (from its last checkpoint, when one was kept).
 */
export const retryFineTune = verb({
  name: "retryModel",
  description: "Trains a failed model again from the same settings (a fixed key, URL or dataset): its timeline keeps the failure",
  kind: "mutation",
  role: "member",
  input: ModelSlugInput,
  run: async (ctx: Ctx, raw: ModelSlugInput): Promise<Model> => {
    const { slug } = parseInput(ModelSlugInput, raw);
    const row = await findModelRow(ctx, slug);
    if (!row) throw new DomainError("NOT_FOUND", `Model ${slug} not found`);
    if (row.status !== "ERROR") throw new DomainError("CONFLICT", `Model ${slug} is ${row.status}: only a failed model is retried`);
    const now = ctx.deps.clock();
    const who = ctx.actor.type === "user" ? ` by ${ctx.actor.email}` : "";
    const moved = await withTx(ctx, async (inTx, tx) => {
      if (row.backend === "trainer") {
        return moveModel(
          tx,
          row,
          "QUEUED",
          { errorMessage: null, cancelRequested: false, leaseId: null, leaseExpiresAt: null },
          now,
          `retried${who}: waiting for a trainer`,
        );
      }
      const ok = await moveModel(
        tx,
        row,
        "PENDING",
        { errorMessage: null, upstreamJobId: null, upstreamModelId: null, trainingFileId: null, trainingCurve: [], checkpoints: [] },
        now,
        `retried${who}`,
      );
      if (ok) await enqueueJob(inTx, { kind: FINE_TUNE_JOB, payload: { modelId: row.id }, maxAttempts: 8 });
      return ok;
    });
    if (!moved) throw new DomainError("CONFLICT", `Model ${slug} changed while it was being retried: look again`);
    if (row.backend !== "trainer") ctx.deps.jobs.nudge();
    return toModel((await findModelRow(ctx, slug))!);
  },
});
