import { z } from "zod";
import { ALIGNMENT_RUN_JOB, failAlignmentTask, runAlignmentStep } from "../domain/criteria";
import { DATASET_TASK_JOB, failDatasetTask, runDatasetTaskStep } from "../domain/datasets";
import { EVALUATION_JOB, failEvaluation, runEvaluationStep } from "../domain/evaluations";
import { failCostRecalculation, RECALCULATE_COSTS_JOB, runCostRecalculationStep } from "../domain/billing";
import { failRelabelRun, RELABEL_RUN_JOB, runRelabelStep } from "../domain/relabel-runs";
import { failMaskingBackfill, MASK_BACKFILL_JOB, runMaskingBackfillStep } from "../domain/mask-backfill";
import type { JobHandler } from "./worker";

const EvaluationPayload = z.object({ evaluationId: z.string().min(1) });
const TaskPayload = z.object({ taskId: z.string().min(1) });

/** Evaluations, dataset quality tasks, alignment runs and cost recalculations, a chunk of work per step. */
export const evaluationJobs: Record<string, JobHandler> = {
  [EVALUATION_JOB]: {
    run: (deps, payload, _job, signal) => runEvaluationStep(deps, EvaluationPayload.parse(payload), signal),
    failed: (deps, payload, reason) => failEvaluation(deps, { evaluationId: EvaluationPayload.parse(payload).evaluationId, reason }),
  },
  [DATASET_TASK_JOB]: {
    run: (deps, payload, _job, signal) => runDatasetTaskStep(deps, TaskPayload.parse(payload), signal),
    failed: (deps, payload, reason) => failDatasetTask(deps, { taskId: TaskPayload.parse(payload).taskId, reason }),
  },
  [RECALCULATE_COSTS_JOB]: {
    run: (deps, payload) => runCostRecalculationStep(deps, TaskPayload.parse(payload)),
    failed: (deps, payload, reason) => failCostRecalculation(deps, { taskId: TaskPayload.parse(payload).taskId, reason }),
  },
  [MASK_BACKFILL_JOB]: {
    run: (deps, payload) => runMaskingBackfillStep(deps, TaskPayload.parse(payload)),
    failed: (deps, payload, reason) => failMaskingBackfill(deps, { taskId: TaskPayload.parse(payload).taskId, reason }),
  },
  [RELABEL_RUN_JOB]: {
    run: (deps, payload, _job, signal) => runRelabelStep(deps, TaskPayload.parse(payload), signal),
    failed: (deps, payload, reason) => failRelabelRun(deps, { taskId: TaskPayload.parse(payload).taskId, reason }),
  },
  [ALIGNMENT_RUN_JOB]: {
    run: (deps, payload, _job, signal) => runAlignmentStep(deps, TaskPayload.parse(payload), signal),
    failed: (deps, payload, reason) => failAlignmentTask(deps, { taskId: TaskPayload.parse(payload).taskId, reason }),
  },
};
