import { and, eq, sql } from "drizzle-orm";
import { type Ctx, withTx } from "../context";
import { models, trainers, trainingEvents } from "../../db/schema";
import { parseInput } from "../../core/errors";
import { leasedRow } from "./internal";
import { HeartbeatInput } from "./schemas";

/** Points a model's curve keeps, at most (the newest win). */
const MAX_CURVE_POINTS = 2_000;

/**
 * A trainer's heartbeat: its progress since the last one is stored (a row per step, a step sent
 * again replaces its row), the lease is renewed, and the answer says whether to stop (cancelled).
 */
export async function heartbeatTrainingJob(ctx: Ctx, id: string, raw: HeartbeatInput): Promise<{ cancel: boolean; leaseSeconds: number }> {
  const input = parseInput(HeartbeatInput, raw);
  const now = ctx.deps.clock();
  const leaseSeconds = ctx.deps.config.trainers.leaseSeconds;
  return withTx(ctx, async (_inTx, tx) => {
    const row = await leasedRow(ctx, { id, leaseId: input.leaseId }, tx);
    if (input.events.length) {
      await tx
        .insert(trainingEvents)
        .values(input.events.map((e) => ({ modelId: row.id, ...e, at: now })))
        .onConflictDoUpdate({
          target: [trainingEvents.modelId, trainingEvents.step],
          set: {
            totalSteps: sql`excluded.total_steps`,
            loss: sql`excluded.loss`,
            evalLoss: sql`excluded.eval_loss`,
            learningRate: sql`excluded.learning_rate`,
            tokensPerSecond: sql`excluded.tokens_per_second`,
            etaSeconds: sql`excluded.eta_seconds`,
            gpuMemoryBytes: sql`excluded.gpu_memory_bytes`,
            at: sql`excluded.at`,
          },
        });
    }
    // The curve the model page has always drawn (train and eval loss by step), merged by step.
    const byStep = new Map(row.trainingCurve.map((p) => [p.step, p]));
    for (const e of input.events) if (e.loss !== null || e.evalLoss !== null) byStep.set(e.step, { step: e.step, trainLoss: e.loss, validLoss: e.evalLoss });
    const curve = [...byStep.values()].sort((a, b) => a.step - b.step).slice(-MAX_CURVE_POINTS);
    await tx
      .update(models)
      .set({ leaseExpiresAt: new Date(now.getTime() + leaseSeconds * 1000), trainingCurve: curve, updatedAt: now })
      .where(eq(models.id, row.id));
    if (row.leasedBy)
      await tx
        .update(trainers)
        .set({ lastSeenAt: now, currentModelId: row.id })
        .where(and(eq(trainers.projectId, ctx.projectId), eq(trainers.name, row.leasedBy)));
    return { cancel: row.cancelRequested, leaseSeconds };
  });
}
