import { type Ctx, withTx } from "../context";
import { models } from "../../db/schema";
import { isUniqueViolation } from "../../core/sql-errors";
import { DomainError, parseInput, validationError } from "../../core/errors";
import { pruningTextsOf } from "../datasets";
import { enqueueJob } from "../jobs";
import {
  BASE_MODELS,
  findBaseModel,
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
  const base = findBaseModel(input.baseModel);
  if (!base) {
    throw bad(`Unknown base model ${input.baseModel}. Supported: ${BASE_MODELS.map((m) => m.id).join(", ")}`, ["baseModel"]);
  }
  const backend = base.backend;
  const endsOn = trainingEndsOn(base, ctx.deps.config);
  if (endsOn && ctx.deps.clock().toISOString().slice(0, 10) >= endsOn) {
    throw bad(
      `${backend === "openai" ? "OpenAI" : backend} takes no new fine-tunes since ${endsOn}: train an open model with Hone's trainer (trainingConfig.provider "trainer") or on Together (provider "together")`,
      ["trainingConfig", "baseModel"],
    );
  }
  if (input.provider && !(input.provider === backend || (input.provider === "openpipe" && backend === "together"))) {
    throw bad(`Base model ${base.id} is trained by the ${backend} backend, not ${input.provider}`, ["trainingConfig", "provider"]);
  }
  const schema: z.ZodType<Record<string, unknown>> = backend === "openai" ? OpenAiHyperparameters : TogetherHyperparameters;
  const hp = schema.safeParse(input.hyperparameters);
  if (!hp.success) throw validationError(hp.error);
  const baseNames = new Set(
    BASE_MODELS.flatMap((m) => [m.id.toLowerCase(), m.id.split("/").at(-1)!.toLowerCase(), m.id.replace(/-\d{4}-\d{2}-\d{2}$/, "").toLowerCase()]),
  );
  if (baseNames.has(input.slug)) throw bad(`The slug ${input.slug} is the name of a base model; choose another`, ["slug"]);
  const { dataset, excludeFailing, method } = await prepareTraining(ctx, input);
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
  return startFineTune(ctx, {
    datasetId: input.datasetId,
    slug: input.slug,
    baseModel: String(baseModel),
    provider: String(provider),
    hyperparameters: flat,
    description: input.description,
    excludeFailing: input.excludeFailing,
    method: input.method,
    beta: input.beta,
  });
}

/** POST /unstable/finetune/create */
export async function createFineTune(ctx: Ctx, raw: CreateFineTuneInput): Promise<{ id: string }> {
  const input = parseInput(CreateFineTuneInput, raw);
  const m = await startFineTune(ctx, { datasetId: input.datasetId, slug: input.slug, baseModel: input.baseModel, hyperparameters: input.overrides ?? {} });
  return { id: m.id };
}
