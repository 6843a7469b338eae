import { cancelTraining } from "../../domain/trainers";
import { ModelRef } from "../graphql/types/models";
import { verbField } from "../graphql/verb-field";
import { modelOut } from "../trpc/routers/models";
import { verbMutation } from "../trpc/verb-procedure";

// The trainers area's verbs for people (the trainer API itself is REST: src/http/rest/trainer.routes.ts).

/** tRPC `trainers.*`. */
export const trainersProcedures = {
  cancel: verbMutation(cancelTraining, modelOut),
};

/** GraphQL: fields named as the verbs. */
export function trainersFields(): void {
  verbField(cancelTraining, { type: ModelRef });
}
