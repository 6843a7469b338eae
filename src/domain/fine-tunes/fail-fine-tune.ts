import { eq } from "drizzle-orm";
import { models } from "../../db/schema";
import type { Deps } from "../deps";
import { moveModel, isFinal } from "../models";
import type { ModelStatus } from "../models";

/**
 * Moves a fine-tune to ERROR when its job was given up for good (the worker kept stopping while
 * running it, or a step overran HONE_JOB_STEP_TIMEOUT_MS on its last attempt), so it does not stay
 * PENDING or TRAINING forever. A model already DEPLOYED or in ERROR keeps its state.
 */
export async function failFineTune(deps: Deps, input: { modelId: string; reason: string }): Promise<void> {
  const [row] = await deps.database.db.select().from(models).where(eq(models.id, input.modelId));
  if (!row || isFinal(row.status as ModelStatus)) return;
  await moveModel(deps.database.db, row, "ERROR", { errorMessage: `Training stopped: ${input.reason}` }, deps.clock());
}
