import { z } from "zod";
import { PlaygroundRunInput, runPlayground } from "../../../domain/completions";
import { addDatasetEntries } from "../../../domain/datasets";
import { projectProcedure, router } from "../init";

const SaveEntryInput = z.strictObject({
  datasetId: z.string().min(1).max(100),
  /** The conversation up to the output, then the output (an assistant message) last. */
  messages: z.array(z.unknown()).min(2).max(200),
  tools: z.array(z.unknown()).max(64).nullish(),
});

/** The console's playground: gateway calls streamed back to the browser, and saving a good answer. */
export const playgroundRouter = router({
  /**
   * Streams events (deltas per choice, then `done` or `error`) with httpBatchStreamLink; stopping
   * the run (the client aborts) aborts the upstream call.
   */
  run: projectProcedure.input(PlaygroundRunInput).mutation(async function* ({ ctx, input, signal }) {
    yield* runPlayground(ctx.project, input, signal ?? new AbortController().signal);
  }),
  /** Adds the conversation and a chosen output as one dataset entry (the rules of addEntries). */
  saveEntry: projectProcedure
    .input(SaveEntryInput)
    .mutation(({ ctx, input }) =>
      addDatasetEntries(ctx.project, { datasetId: input.datasetId, entries: [{ messages: input.messages, tools: input.tools ?? null }] }),
    ),
});
