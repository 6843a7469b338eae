// Online evaluation: a share of the application's answers judged by criteria after they were sent,
// per model (an online evaluation, manage-online-evals.ts) or per route (its `judge`); pass rates
// over time (pass-rates.ts) and an alert when one falls (judge-sample.ts).
export * from "./schemas";
export {
  createOnlineEval,
  deleteOnlineEval,
  getOnlineEval,
  listOnlineEvals,
  MAX_ONLINE_EVALS,
  updateOnlineEval,
} from "./manage-online-evals";
export { passRates } from "./pass-rates";
export type { JudgedInput } from "./judge-sample";
export { judgeSample } from "./judge-sample";
export { sampleModelCall } from "./judge-sample";
