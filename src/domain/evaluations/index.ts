export { createEvaluation, EVALUATION_JOB } from "./create-evaluation";
export { cancelEvaluation, evaluationSummary, getEvaluation, headToHead, listEvaluationResults, listEvaluations } from "./get-evaluation";
export { runEvaluationStep } from "./run-evaluation";
export * from "./schemas";
export { failEvaluation } from "./fail-evaluation";
