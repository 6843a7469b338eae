import { and, eq, inArray } from "drizzle-orm";
import { datasetTasks } from "../../db/schema";
import type { Deps } from "../deps";

/**
 * Ends a judge or relabel task in ERROR when its job was given up for good (steps kept failing,
 * overran HONE_JOB_STEP_TIMEOUT_MS, or the worker kept stopping), so it does not show RUNNING
 * forever. A task that already finished keeps its state.
 */
export async function failDatasetTask(deps: Deps, input: { taskId: string; reason: string }): Promise<void> {
  await deps.database.db
    .update(datasetTasks)
    .set({ status: "ERROR", errorMessage: `The task stopped: ${input.reason}`, updatedAt: deps.clock() })
    .where(and(eq(datasetTasks.id, input.taskId), inArray(datasetTasks.status, ["QUEUED", "RUNNING"])));
}
