export { advanceFineTune } from "./advance-fine-tune";
export { createFineTune, createModel, FINE_TUNE_JOB } from "./create-model";
export { EstimateFineTuneInput, estimateFineTune, type FineTuneEstimate } from "./estimate-fine-tune";
export { failFineTune } from "./fail-fine-tune";
export { retryFineTune } from "./retry-fine-tune";
