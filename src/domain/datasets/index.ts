export { addDatasetEntries } from "./add-dataset-entries";
export { createDataset } from "./create-dataset";
export { deleteDataset } from "./delete-dataset";
export { getDataset } from "./get-dataset";
export { listDatasetEntries } from "./list-dataset-entries";
export { listDatasets } from "./list-datasets";
export * from "./schemas";
