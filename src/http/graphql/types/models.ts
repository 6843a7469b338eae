import { CreateModelInput, deleteModel, getModel, listModels, type Model, type ModelUsage, ModelUsageInput, modelUsage } from "../../../domain/models";
import { createModel } from "../../../domain/fine-tunes";
import { asInputOf } from "../../../core/verb-input";
import { builder, projectCtx } from "../builder";
import { loadersOf } from "../loaders";
import { DatasetRef } from "./datasets";

const TrainingPointRef = builder.objectRef<Model["trainingCurve"][number]>("TrainingPoint").implement({
  fields: (t) => ({
    step: t.exposeInt("step"),
    trainLoss: t.exposeFloat("trainLoss", { nullable: true }),
    validLoss: t.exposeFloat("validLoss", { nullable: true }),
  }),
});

const CheckpointRef = builder.objectRef<Model["checkpoints"][number]>("TrainingCheckpoint").implement({
  fields: (t) => ({
    id: t.exposeString("id"),
    step: t.exposeInt("step"),
    model: t.exposeString("model", { nullable: true, description: "The checkpoint's model name, callable at the backend" }),
    trainLoss: t.exposeFloat("trainLoss", { nullable: true }),
    validLoss: t.exposeFloat("validLoss", { nullable: true }),
    at: t.exposeString("at", { nullable: true }),
  }),
});

const ModelFailureRef = builder.objectRef<NonNullable<Model["failure"]>>("ModelFailure").implement({
  description: "What a fine-tune's failure points at, and what to check before retrying (retryModel)",
  fields: (t) => ({ kind: t.exposeString("kind"), hint: t.exposeString("hint") }),
});

export const ModelRef = builder.objectRef<Model>("Model").implement({
  description: "A fine-tuned model of the project, served as hone:<slug> once DEPLOYED",
  fields: (t) => ({
    id: t.exposeID("slug", { description: "The slug (what the REST API calls the model's id)" }),
    slug: t.exposeString("slug"),
    description: t.exposeString("description", { nullable: true }),
    status: t.exposeString("status", { description: "PENDING, QUEUED, TRAINING, DEPLOYED or ERROR" }),
    baseModel: t.exposeString("baseModel"),
    backend: t.exposeString("backend"),
    datasetId: t.exposeID("datasetId", { nullable: true }),
    hyperparameters: t.field({ type: "JSON", resolve: (m) => m.hyperparameters }),
    method: t.exposeString("method", { description: "sft, or dpo (trained on the dataset's preference pairs)" }),
    dpoBeta: t.exposeFloat("dpoBeta", { nullable: true, description: "DPO's beta (null: the backend's default)" }),
    pruningRules: t.exposeStringList("pruningRules", { description: "The texts removed from its training prompts and from requests to it" }),
    prunedTokens: t.exposeInt("prunedTokens", { nullable: true, description: "Tokens the pruning rules removed from its training file" }),
    trainingCurve: t.field({
      type: [TrainingPointRef],
      description: "Training and validation loss over steps, from the backend's events while it trains (the latest 2,000 steps)",
      resolve: (m) => m.trainingCurve,
    }),
    checkpoints: t.field({ type: [CheckpointRef], description: "The backend's checkpoints, by step", resolve: (m) => m.checkpoints }),
    errorMessage: t.exposeString("errorMessage", { nullable: true }),
    failure: t.field({
      type: ModelFailureRef,
      nullable: true,
      description: "A failed model's kind of failure (key, base_url, backend, data, trainer, cancelled, unknown) and what to check",
      resolve: (m) => m.failure,
    }),
    trainingEntries: t.exposeInt("trainingEntries", { nullable: true }),
    createdAt: t.field({ type: "DateTime", resolve: (m) => m.createdAt }),
    updatedAt: t.field({ type: "DateTime", resolve: (m) => m.updatedAt }),
    dataset: t.field({ type: DatasetRef, nullable: true, resolve: (m, _, c) => (m.datasetId ? loadersOf(c).datasets.load(m.datasetId) : null) }),
  }),
});

builder.objectFields(DatasetRef, (t) => ({
  models: t.field({ type: [ModelRef], description: "Models fine-tuned on this dataset", resolve: (d, _, c) => loadersOf(c).modelsByDataset.load(d.id) }),
}));

const CreateModelInputRef = builder.inputType("CreateModelInput", {
  fields: (t) => ({
    datasetId: t.id(),
    slug: t.string(),
    description: t.string({ required: false }),
    trainingConfig: t.field({ type: "JSON", description: "{provider: openai | together, baseModel, ...hyperparameters}" }),
    method: t.string({ required: false, description: "sft (default), or dpo: train on the TRAIN entries' preference pairs (rejected outputs)" }),
    beta: t.float({ required: false, description: "DPO's beta, above 0 and at most 2 (absent: the backend's default)" }),
  }),
});

const ModelUsageRef = builder.objectRef<ModelUsage>("ModelUsage").implement({
  description: "The application's calls to a fine-tune (hone:<slug>, not through a route) over the last days",
  fields: (t) => ({
    days: t.exposeInt("days"),
    requests: t.exposeInt("requests"),
    inputTokens: t.exposeFloat("inputTokens", { description: "Prompt tokens sent upstream (after pruning)" }),
    outputTokens: t.exposeFloat("outputTokens"),
    costUsd: t.exposeFloat("costUsd"),
    prunedTokens: t.exposeFloat("prunedTokens", { description: "Prompt tokens its pruning rules removed from those requests before they went upstream" }),
  }),
});

builder.queryFields((t) => ({
  models: t.field({
    type: [ModelRef],
    description: "A page of the project's models, newest first: at most `first` (default and ceiling HONE_MAX_PAGE_SIZE), older than `after` (an id)",
    args: { first: t.arg.int({ required: false }), after: t.arg.string({ required: false }) },
    resolve: (_, a, c) => listModels(projectCtx(c), { first: a.first, after: a.after }),
  }),
  modelUsage: t.field({
    type: ModelUsageRef,
    description: "A fine-tune's calls over the last days (default 30, at most 90) and the tokens its pruning rules saved on them",
    args: { slug: t.arg.string(), days: t.arg.int({ required: false }) },
    resolve: (_, a, c) => modelUsage(projectCtx(c), asInputOf(ModelUsageInput, a)),
  }),
  model: t.field({ type: ModelRef, args: { slug: t.arg.string() }, resolve: (_, a, c) => getModel(projectCtx(c), { slug: a.slug }) }),
}));

builder.mutationFields((t) => ({
  createModel: t.field({
    type: ModelRef,
    args: { input: t.arg({ type: CreateModelInputRef }) },
    resolve: (_, a, c) =>
      createModel(projectCtx(c), {
        ...a.input,
        method: a.input.method as "sft" | "dpo" | null | undefined,
        datasetId: String(a.input.datasetId),
        trainingConfig: asInputOf(CreateModelInput.shape.trainingConfig, a.input.trainingConfig),
      }),
  }),
  deleteModel: t.field({
    type: "String",
    description: "Deletes a model (cancelling its training if it is still training); returns its slug",
    args: { slug: t.arg.string() },
    resolve: async (_, a, c) => (await deleteModel(projectCtx(c), { slug: a.slug })).id,
  }),
}));
