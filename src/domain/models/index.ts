export { advanceFineTune } from "./advance-fine-tune";
export { BASE_MODELS, catalogueCost, findBaseModel, type BaseModel } from "./catalogue";
export { createFineTune, createModel, FINE_TUNE_JOB } from "./create-model";
export { deleteModel, getModel, listModels } from "./get-models";
export { findModelRow } from "./internal";
export * from "./schemas";
export { assertTransition, canTransition } from "./state";
export { failFineTune } from "./fail-fine-tune";
