import { type Ctx, withTx } from "../context";
import { models } from "../../db/schema";
import { isUniqueViolation } from "../../core/sql-errors";
import { DomainError, parseInput, validationError } from "../../core/errors";
import { pruningTextsOf } from "../datasets";
import { enqueueJob } from "../jobs";
import {
  BASE_MODELS,
  findBaseModel,
  findOpenModel,
  FireworksHyperparameters,
  trainingEndsOn,
  toModel,
  CreateFineTuneInput,
  CreateModelInput,
  OpenAiHyperparameters,
  TogetherHyperparameters,
  type Model,
} from "../models";
import type { z } from "zod";
import { queueForTrainers } from "./queue-for-trainers";
import { prepareTraining } from "./prepare-training";
import { placeOpenModel } from "./open-model-backend";

export const FINE_TUNE_JOB = "fine-tune";

function bad(message: string, path: (string | number)[]): DomainError {
  return new DomainError("VALIDATION", message, { issues: [{ message, path }] });
}

async function startFineTune(
  ctx: Ctx,
  input: {
    datasetId: string;
    slug: string;
    baseModel: string;
    provider?: string;
    hyperparameters: Record<string, unknown>;
    description?: string | null;
    excludeFailing?: string[] | null;
    method?: "sft" | "dpo" | null;
    beta?: number | null;
  },
): Promise<Model> {
  // Named for a backend of open models, a model is found by its name there or its Hugging Face id.
  const base =
    (input.provider === "together" || input.provider === "fireworks" ? findOpenModel(input.baseModel, input.provider) : undefined) ??
    findBaseModel(input.baseModel);
  if (!base) {
    throw bad(`Unknown base model ${input.baseModel}. Supported: ${BASE_MODELS.map((m) => m.id).join(", ")}`, ["baseModel"]);
  }
  const backend = base.backend;
  const endsOn = trainingEndsOn(base, ctx.deps.config);
  if (endsOn && ctx.deps.clock().toISOString().slice(0, 10) >= endsOn) {
    throw bad(
      `${backend === "openai" ? "OpenAI" : backend} takes no new fine-tunes since ${endsOn}: train an open model with Hone's trainer (trainingConfig.provider "trainer"), on Together (provider "together") or on Fireworks (provider "fireworks")`,
      ["trainingConfig", "baseModel"],
    );
  }
  if (input.provider && input.provider !== backend) {
    throw bad(`Base model ${base.id} is trained by the ${backend} backend, not ${input.provider}`, ["trainingConfig", "provider"]);
  }
  const schema: z.ZodType<Record<string, unknown>> =
    backend === "openai" ? OpenAiHyperparameters : backend === "fireworks" ? FireworksHyperparameters : TogetherHyperparameters;
  const hp = schema.safeParse(input.hyperparameters);
  if (!hp.success) throw validationError(hp.error);
  const baseNames = new Set(
    BASE_MODELS.flatMap((m) => [m.id.toLowerCase(), m.id.split("/").at(-1)!.toLowerCase(), m.id.replace(/-\d{4}-\d{2}-\d{2}$/, "").toLowerCase()]),
  );
  if (baseNames.has(input.slug)) throw bad(`The slug ${input.slug} is the name of a base model; choose another`, ["slug"]);
  const { dataset, excludeFailing, method, trainEntries } = await prepareTraining(ctx, input);
  const pruningRules = await pruningTextsOf(ctx, dataset.id);
  const now = ctx.deps.clock();
  const id = ctx.deps.ids("model");
  try {
    const [row] = await withTx(ctx, async (inTx, tx) => {
      const inserted = await tx
        .insert(models)
        .values({
          id,
          projectId: ctx.projectId,
          slug: input.slug,
          description: input.description ?? null,
          datasetId: dataset.id,
          baseModel: base.id,
          backend,
          hyperparameters: hp.data,
          method,
          dpoBeta: input.beta ?? null,
          trainingEntries: trainEntries,
          pruningRules,
          excludeFailing,
          status: "PENDING",
          events: [{ status: "PENDING", at: now.toISOString(), message: null }],
          createdAt: now,
          updatedAt: now,
        })
        .returning();
      await enqueueJob(inTx, { kind: FINE_TUNE_JOB, payload: { modelId: id }, maxAttempts: 8 });
      return inserted;
    });
    ctx.deps.jobs.nudge();
    return toModel(row!);
  } catch (err) {
    if (isUniqueViolation(err)) throw new DomainError("CONFLICT", `A model with slug ${input.slug} already exists in this project`);
    throw err;
  }
}

/** POST /models: trains a model; training runs in the background (see the model's status). */
export async function createModel(ctx: Ctx, raw: CreateModelInput): Promise<Model> {
  const input = parseInput(CreateModelInput, raw);
  if (input.trainingConfig.provider === "trainer") return queueForTrainers(ctx, input);
  const { provider, baseModel, sft_hyperparameters, hyperparameters, ...rest } = input.trainingConfig as Record<string, unknown>;
  const flat = { ...(hyperparameters as object | undefined), ...(sft_hyperparameters as object | undefined), ...rest };
  // `openpipe`: the open-model backend the operator chose (HONE_OPEN_MODEL_BACKEND).
  const placed = provider === "openpipe" ? placeOpenModel(ctx.deps.config, String(baseModel), flat) : null;
  if (placed?.backend === "trainer") {
    return queueForTrainers(ctx, { ...input, trainingConfig: { provider: "trainer", baseModel: placed.baseModel, ...placed.settings } });
  }
  return startFineTune(ctx, {
    datasetId: input.datasetId,
    slug: input.slug,
    baseModel: placed?.baseModel ?? String(baseModel),
    // `openpipe` names open models: an OpenAI model asked for so is refused as before.
    provider: placed && findBaseModel(placed.baseModel)?.backend !== "openai" ? undefined : String(provider),
    hyperparameters: placed?.hyperparameters ?? flat,
    description: input.description,
    excludeFailing: input.excludeFailing,
    method: input.method,
    beta: input.beta,
  });
}

/** POST /unstable/finetune/create */
export async function createFineTune(ctx: Ctx, raw: CreateFineTuneInput): Promise<{ id: string }> {
  const input = parseInput(CreateFineTuneInput, raw);
  // The OpenPipe SDK's fine-tunes of open models go to the operator's open-model backend.
  const placed = placeOpenModel(ctx.deps.config, input.baseModel, input.overrides ?? {});
  const m =
    placed.backend === "trainer"
      ? await queueForTrainers(ctx, {
          datasetId: input.datasetId,
          slug: input.slug,
          trainingConfig: { provider: "trainer", baseModel: placed.baseModel, ...placed.settings },
        })
      : await startFineTune(ctx, { datasetId: input.datasetId, slug: input.slug, baseModel: placed.baseModel, hyperparameters: placed.hyperparameters });
  return { id: m.id };
}
