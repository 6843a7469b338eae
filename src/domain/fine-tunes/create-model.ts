import { and, eq, sql } from "drizzle-orm";
import { type Ctx, dbOf, withTx } from "../context";
import { datasetEntries, models, routes } from "../../db/schema";
import { isUniqueViolation } from "../../core/sql-errors";
import { DomainError, parseInput, validationError } from "../../core/errors";
import { findDataset, pruningTextsOf } from "../datasets";
import { resolveCriterion } from "../criteria";
import { enqueueJob } from "../jobs";
import {
  BASE_MODELS,
  findBaseModel,
  toModel,
  CreateFineTuneInput,
  CreateModelInput,
  OpenAiHyperparameters,
  TogetherHyperparameters,
  type Model,
} from "../models";
import type { z } from "zod";

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
  const [route] = await dbOf(ctx)
    .select({ id: routes.id })
    .from(routes)
    .where(and(eq(routes.projectId, ctx.projectId), eq(routes.slug, input.slug)));
  if (route) throw new DomainError("CONFLICT", `A route is named ${input.slug}: a fine-tune and a route share hone:<slug>`);
  const dataset = await findDataset(ctx, input.datasetId);
  const excludeFailing: string[] = [];
  for (const ref of input.excludeFailing ?? []) excludeFailing.push((await resolveCriterion(ctx, ref)).criterionId);
  if (dataset.entryCount === 0) throw bad(`Dataset ${dataset.id} has no entries to train on`, ["datasetId"]);
  const method = input.method ?? "sft";
  if (input.beta != null && method !== "dpo") throw bad("beta applies to DPO fine-tunes only (method: dpo)", ["beta"]);
  if (method === "dpo") {
    const [pair] = await dbOf(ctx)
      .select({ id: datasetEntries.id })
      .from(datasetEntries)
      .where(and(eq(datasetEntries.datasetId, dataset.id), eq(datasetEntries.split, "TRAIN"), sql`jsonb_array_length(${datasetEntries.rejectedOutputs}) > 0`))
      .limit(1);
    if (!pair) {
      throw bad(
        `Dataset ${dataset.id} has no TRAIN entry with a rejected output: DPO trains on preference pairs (accept a relabel run, edit an output, or import best-of-N calls judged by criteria)`,
        ["method"],
      );
    }
  }

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
