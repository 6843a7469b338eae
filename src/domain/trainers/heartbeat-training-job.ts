import { and, eq, sql } from "drizzle-orm";
import { type Ctx, withTx } from "../context";
import { models, trainers, trainingEvents } from "../../db/schema";
import { parseInput } from "../../core/errors";
import { leasedRow } from "./internal";
import { HeartbeatInput, type TrainingEvent } from "./schemas";

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
    // A step may come more than once (its training loss, then its eval loss): one row a step, the later figures winning.
    const bySteps = new Map<number, TrainingEvent>();
    for (const e of input.events) {
      const was = bySteps.get(e.step);
      bySteps.set(e.step, was ? (Object.fromEntries(Object.entries(e).map(([k, v]) => [k, v ?? was[k as keyof TrainingEvent]])) as TrainingEvent) : e);
    }
    const events = [...bySteps.values()];
    if (events.length) {
      await tx
        .insert(trainingEvents)
        .values(events.map((e) => ({ modelId: row.id, ...e, at: now })))
        .onConflictDoUpdate({
          target: [trainingEvents.modelId, trainingEvents.step],
          set: {
            // A figure sent again as null keeps the one stored (a step's eval loss arrives after its loss).
            totalSteps: sql`excluded.total_steps`,
            loss: sql`coalesce(excluded.loss, ${trainingEvents.loss})`,
            evalLoss: sql`coalesce(excluded.eval_loss, ${trainingEvents.evalLoss})`,
            learningRate: sql`coalesce(excluded.learning_rate, ${trainingEvents.learningRate})`,
            tokensPerSecond: sql`coalesce(excluded.tokens_per_second, ${trainingEvents.tokensPerSecond})`,
            etaSeconds: sql`coalesce(excluded.eta_seconds, ${trainingEvents.etaSeconds})`,
            gpuMemoryBytes: sql`coalesce(excluded.gpu_memory_bytes, ${trainingEvents.gpuMemoryBytes})`,
            at: sql`excluded.at`,
          },
        });
    }
    // The curve the model page has always drawn (train and eval loss by step), merged by step.
    const byStep = new Map(row.trainingCurve.map((p) => [p.step, p]));
    for (const e of events) {
      const was = byStep.get(e.step);
      if (e.loss !== null || e.evalLoss !== null)
        byStep.set(e.step, { step: e.step, trainLoss: e.loss ?? was?.trainLoss ?? null, validLoss: e.evalLoss ?? was?.validLoss ?? null });
    }
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
