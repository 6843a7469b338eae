import { defineRelations } from "drizzle-orm";
import * as schema from "./schema";

export const relations = defineRelations(schema, (r) => ({
  projects: {
    apiKeys: r.many.apiKeys(),
    datasets: r.many.datasets(),
  },
  apiKeys: {
    project: r.one.projects({ from: r.apiKeys.projectId, to: r.projects.id, optional: false }),
  },
  datasets: {
    project: r.one.projects({ from: r.datasets.projectId, to: r.projects.id, optional: false }),
    entries: r.many.datasetEntries(),
    models: r.many.models(),
  },
  models: {
    dataset: r.one.datasets({ from: r.models.datasetId, to: r.datasets.id }),
  },
  datasetEntries: {
    dataset: r.one.datasets({ from: r.datasetEntries.datasetId, to: r.datasets.id, optional: false }),
    sourceLog: r.one.requestLogs({ from: r.datasetEntries.sourceLogId, to: r.requestLogs.id }),
  },
  requestLogs: {
    body: r.one.requestLogBodies({ from: r.requestLogs.id, to: r.requestLogBodies.logId }),
  },
}));
