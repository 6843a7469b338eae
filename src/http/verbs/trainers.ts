import { cancelTraining, listTrainers, listTrainingEvents, type TrainerInfo, type TrainingProgress } from "../../domain/trainers";
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

/** tRPC `trainers.*`. */
export const trainersProcedures = {
  cancel: verbMutation(cancelTraining, modelOut),
  list: verbQuery(listTrainers, (list) => list.map((r) => ({ ...r, lastSeenAt: toWireDate(r.lastSeenAt) }))),
  events: verbQuery(listTrainingEvents, (list) => list.map((e) => ({ ...e, at: toWireDate(e.at) }))),
};

/** GraphQL: fields named as the verbs. */
export function trainersFields(): void {
  verbField(cancelTraining, { type: ModelRef });
  verbField(listTrainingEvents, { type: [TrainingProgressRef] });
  verbField(listTrainers, { type: [TrainerRef] });
}
