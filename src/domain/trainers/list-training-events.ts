import { and, asc, eq } from "drizzle-orm";
import { z } from "zod";
import { type Ctx, dbOf } from "../context";
import { trainingEvents } from "../../db/schema";
import { DomainError, parseInput } from "../../core/errors";
import { MAX_ID_LENGTH } from "../../core/limits";
import { findModelRow } from "../models";
import { verb } from "../verb";

/** Steps one answer holds, at most: a long run's curve is thinned to this many, evenly, its last step kept. */
const MAX_POINTS = 2_000;

export type TrainingProgress = {
  step: number;
  totalSteps: number;
  loss: number | null;
  evalLoss: number | null;
  learningRate: number | null;
  tokensPerSecond: number | null;
  etaSeconds: number | null;
  gpuMemoryBytes: number | null;
  at: Date;
};

export const ListTrainingEventsInput = z.strictObject({ slug: z.string().min(1).max(MAX_ID_LENGTH) });

export const listTrainingEvents = verb({
  name: "modelTrainingEvents",
  description: "The progress a Hone trainer reported for a model, by step: loss, eval loss, learning rate, tokens per second, ETA, GPU memory",
  kind: "query",
  role: "viewer",
  input: ListTrainingEventsInput,
  run: async (ctx: Ctx, raw: z.input<typeof ListTrainingEventsInput>): Promise<TrainingProgress[]> => {
    const { slug } = parseInput(ListTrainingEventsInput, raw);
    const row = await findModelRow(ctx, slug);
    if (!row) throw new DomainError("NOT_FOUND", `Model ${slug} not found`);
    const rows = await dbOf(ctx)
      .select()
      .from(trainingEvents)
      .where(and(eq(trainingEvents.modelId, row.id)))
      .orderBy(asc(trainingEvents.step));
    const every = Math.ceil(rows.length / MAX_POINTS);
    const kept = every > 1 ? rows.filter((_, i) => i % every === 0 || i === rows.length - 1) : rows;
    return kept.map(({ modelId: _, ...e }) => e);
  },
});
