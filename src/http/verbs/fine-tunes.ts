import { retryFineTune } from "../../domain/fine-tunes";
import { verbField } from "../graphql/verb-field";
import { ModelRef } from "../graphql/types/models";
import { modelOut } from "../trpc/routers/models";
import { verbMutation } from "../trpc/verb-procedure";

// The fine-tunes area's verbs declared with verb(): tRPC `models.*` beside the hand-written ones.

/** tRPC, spread into `models`. */
export const fineTunesProcedures = {
  retry: verbMutation(retryFineTune, modelOut),
};

/** GraphQL: fields named as the verbs. */
export function fineTunesFields(): void {
  verbField(retryFineTune, { type: ModelRef });
}
