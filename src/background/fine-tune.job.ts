import { z } from "zod";
import { advanceFineTune, failFineTune, FINE_TUNE_JOB } from "../domain/fine-tunes";
import type { JobHandler } from "./worker";

const Payload = z.object({ modelId: z.string().min(1) });

/** Drives one fine-tune a step at a time until it is DEPLOYED or ERROR. */
export const fineTuneJob: Record<string, JobHandler> = {
  [FINE_TUNE_JOB]: {
    run: (deps, payload, job) => advanceFineTune(deps, { modelId: Payload.parse(payload).modelId, lastAttempt: job.attempts >= job.maxAttempts }),
    failed: (deps, payload, reason) => failFineTune(deps, { modelId: Payload.parse(payload).modelId, reason }),
  },
};
