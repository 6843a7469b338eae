import { z } from "zod";
import { DATASET_TASK_JOB, runDatasetTaskStep } from "../domain/datasets";
import { EVALUATION_JOB, runEvaluationStep } from "../domain/evaluations";
import type { JobHandler } from "./worker";

const EvaluationPayload = z.object({ evaluationId: z.string().min(1) });
const TaskPayload = z.object({ taskId: z.string().min(1) });

/** Evaluations and dataset quality tasks, a chunk of work per step. */
export const evaluationJobs: Record<string, JobHandler> = {
  [EVALUATION_JOB]: (deps, payload) => runEvaluationStep(deps, EvaluationPayload.parse(payload)),
  [DATASET_TASK_JOB]: (deps, payload) => runDatasetTaskStep(deps, TaskPayload.parse(payload)),
};
