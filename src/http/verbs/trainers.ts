import type { AdapterServer } from "../../domain/models";
import {
  cancelTraining,
  listTrainers,
  listTrainingEvents,
  type ModelServing,
  modelServing,
  type TrainerInfo,
  type TrainingProgress,
} from "../../domain/trainers";
import { builder } from "../graphql/builder";
import { toWireDate } from "../dates";
import { ModelRef } from "../graphql/types/models";
import { verbField } from "../graphql/verb-field";
import { modelOut } from "../trpc/routers/models";
import { verbMutation, verbQuery } from "../trpc/verb-procedure";

// The trainers area's verbs for people (the trainer API itself is REST: src/http/rest/trainer.routes.ts).

const TrainingProgressRef = builder.objectRef<TrainingProgress>("TrainingProgress").implement({
  description: "One step a Hone trainer reported",
  fields: (t) => ({
    step: t.exposeInt("step"),
    totalSteps: t.exposeInt("totalSteps"),
    loss: t.exposeFloat("loss", { nullable: true }),
    evalLoss: t.exposeFloat("evalLoss", { nullable: true, description: "On the dataset's TEST entries, where the trainer measured it" }),
    learningRate: t.exposeFloat("learningRate", { nullable: true }),
    tokensPerSecond: t.exposeFloat("tokensPerSecond", { nullable: true }),
    etaSeconds: t.exposeFloat("etaSeconds", { nullable: true }),
    gpuMemoryBytes: t.exposeFloat("gpuMemoryBytes", { nullable: true, description: "Null on a CPU" }),
    at: t.field({ type: "DateTime", resolve: (e) => e.at }),
  }),
});

const TrainerRef = builder.objectRef<TrainerInfo>("Trainer").implement({
  description: "A machine running hone-trainer work for this project",
  fields: (t) => ({
    name: t.exposeString("name"),
    host: t.exposeString("host"),
    gpus: t.field({ type: "JSON", resolve: (r) => r.gpus }),
    versions: t.field({ type: "JSON", resolve: (r) => r.versions }),
    lastSeenAt: t.field({ type: "DateTime", resolve: (r) => r.lastSeenAt }),
    online: t.exposeBoolean("online", { description: "Heard from within two lease lengths" }),
    training: t.exposeString("training", { nullable: true, description: "The slug of the model it trains now" }),
  }),
});

const AdapterServerRef = builder.objectRef<AdapterServer>("AdapterServer").implement({
  description: "A vLLM server (custom provider of kind vllm) of a model's base, as its hone-trainer sync last reported",
  fields: (t) => ({
    provider: t.exposeString("slug", { description: "The custom provider's slug" }),
    loaded: t.exposeBoolean("loaded", { description: "Its last report lists the adapter loaded" }),
    fresh: t.exposeBoolean("fresh", { description: "Reported within 180 s: the gateway routes by it" }),
    host: t.exposeString("host", { nullable: true }),
    error: t.exposeString("error", { nullable: true, description: "The error of its last round, as sync said it" }),
    reportedAt: t.field({ type: "DateTime", nullable: true, resolve: (s) => s.reportedAt }),
  }),
});

const ArtifactFileRef = builder.objectRef<{ path: string; bytes: number; sha256: string }>("ArtifactFile").implement({
  fields: (t) => ({ path: t.exposeString("path"), bytes: t.exposeFloat("bytes"), sha256: t.exposeString("sha256") }),
});

const ModelServingRef = builder.objectRef<ModelServing>("ModelServing").implement({
  description: "Where a model of Hone's trainers is: who trained it, its weights, and where it is served",
  fields: (t) => ({
    trainedBy: t.exposeString("trainedBy", { nullable: true }),
    weights: t.exposeString("weights", { nullable: true, description: "adapter, full, or null before it is trained" }),
    files: t.field({ type: [ArtifactFileRef], resolve: (s) => s.files }),
    served: t.exposeBoolean("served", { description: "hone:<slug> answers through the gateway now" }),
    servers: t.field({ type: [AdapterServerRef], resolve: (s) => s.servers }),
  }),
});

/** tRPC `trainers.*`. */
export const trainersProcedures = {
  cancel: verbMutation(cancelTraining, modelOut),
  list: verbQuery(listTrainers, (list) => list.map((r) => ({ ...r, lastSeenAt: toWireDate(r.lastSeenAt) }))),
  events: verbQuery(listTrainingEvents, (list) => list.map((e) => ({ ...e, at: toWireDate(e.at) }))),
  serving: verbQuery(modelServing, (s) => ({
    ...s,
    servers: s.servers.map(({ providerId: _, baseModel: __, slug, reportedAt, ...r }) => ({
      ...r,
      provider: slug,
      reportedAt: reportedAt ? toWireDate(reportedAt) : null,
    })),
  })),
};

/** GraphQL: fields named as the verbs. */
export function trainersFields(): void {
  verbField(cancelTraining, { type: ModelRef });
  verbField(listTrainingEvents, { type: [TrainingProgressRef] });
  verbField(listTrainers, { type: [TrainerRef] });
  verbField(modelServing, { type: ModelServingRef });
}
