export { cancelTraining, failTrainingJob, finishTrainingJob, saveTrainingCheckpoint } from "./finish-training-job";
export { heartbeatTrainingJob } from "./heartbeat-training-job";
export { leaseTrainingJob } from "./lease-training-job";
export * from "./schemas";
export { trainingJobEntries } from "./training-job-entries";
export { readCheckpointFile, removeTrainingFiles, storeTrainingFile, type StoredFile } from "./training-files";
export { modelWeights, type WeightsFile } from "./model-weights";
export { listTrainingEvents, ListTrainingEventsInput, type TrainingProgress } from "./list-training-events";
export { listTrainers, type TrainerInfo } from "./list-trainers";
