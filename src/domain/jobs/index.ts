export { failAbandonedJobs } from "./fail-abandoned-jobs";
export { claimJob, enqueueJob, settleJob, type Job } from "./queue";
export { renewJobLease } from "./renew-job-lease";
export { runTaskStep, type StepResult, type StepTools, type TaskKind } from "./run-task-step";
