import { z } from "zod";
import { type Ctx, withTx } from "../context";
import { models } from "../../db/schema";
import { isUniqueViolation } from "../../core/sql-errors";
import { DomainError, validationError } from "../../core/errors";
import { pruningTextsOf } from "../datasets";
import { type CreateModelInput, type Model, OpenBaseModel, toModel, TrainerSettings } from "../models";
import { prepareTraining } from "./prepare-training";

/** trainingConfig for Hone's trainers: the settings, the base model, nothing else (an unknown key is a 400 naming it). */
const TrainerConfig = z.strictObject({
  trainingConfig: TrainerSettings.extend({ provider: z.literal("trainer"), baseModel: OpenBaseModel }),
});

/**
 * A fine-tune for Hone's own trainers (`trainingConfig.provider: "trainer"`): checked like any
 * (settings, base model, slug, dataset), then QUEUED until a trainer leases it (domain/trainers).
 */
export async function queueForTrainers(ctx: Ctx, input: ReturnType<typeof CreateModelInput.parse>): Promise<Model> {
  const parsed = TrainerConfig.safeParse({ trainingConfig: input.trainingConfig });
  if (!parsed.success) throw validationError(parsed.error);
  const { provider: _, baseModel, ...settings } = parsed.data.trainingConfig;
  const { dataset, excludeFailing, method, trainEntries } = await prepareTraining(ctx, input);
  const pruningRules = await pruningTextsOf(ctx, dataset.id);
  const now = ctx.deps.clock();
  try {
    const [row] = await withTx(ctx, (_inTx, tx) =>
      tx
        .insert(models)
        .values({
          id: ctx.deps.ids("model"),
          projectId: ctx.projectId,
          slug: input.slug,
          description: input.description ?? null,
          datasetId: dataset.id,
          baseModel,
          backend: "trainer",
          hyperparameters: settings,
          method,
          dpoBeta: input.beta ?? null,
          trainingEntries: trainEntries,
          pruningRules,
          excludeFailing,
          status: "QUEUED",
          events: [{ status: "QUEUED", at: now.toISOString(), message: "waiting for a trainer (hone-trainer work)" }],
          createdAt: now,
          updatedAt: now,
        })
        .returning(),
    );
    return toModel(row!);
  } catch (err) {
    if (isUniqueViolation(err)) throw new DomainError("CONFLICT", `A model with slug ${input.slug} already exists in this project`);
    throw err;
  }
}
