export { claimJob, enqueueJob, settleJob, type Job } from "./queue";
