import { and, eq, inArray } from "drizzle-orm";
import { evaluations } from "../../db/schema";
import type { Deps } from "../deps";

/**
 * Ends an evaluation in ERROR when its job was given up for good (steps kept failing, overran
 * HONE_JOB_STEP_TIMEOUT_MS, or the worker kept stopping), so it does not show RUNNING forever.
 * One that already finished or was cancelled keeps its state.
 */
export async function failEvaluation(deps: Deps, input: { evaluationId: string; reason: string }): Promise<void> {
  await deps.database.db
    .update(evaluations)
    .set({ status: "ERROR", errorMessage: `The evaluation stopped: ${input.reason}`, updatedAt: deps.clock() })
    .where(and(eq(evaluations.id, input.evaluationId), inArray(evaluations.status, ["QUEUED", "RUNNING"])));
}
