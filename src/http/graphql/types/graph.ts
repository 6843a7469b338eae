// The fields that join logs, entries and datasets, each resolved through a batch loader.
import { domainLogFilter } from "../../log-filter-wire";
import { asInputOf } from "../../../core/verb-input";
import { importLogsToDataset, type ImportLogsResult } from "../../../domain/datasets";
import { LogFilter } from "../../../domain/logs";
import { builder, projectCtx } from "../builder";
import { loadersOf } from "../loaders";
import { DatasetEntryRef, DatasetRef } from "./datasets";
import { LogFilterInput, RequestLogRef } from "./logs";

builder.objectFields(DatasetEntryRef, (t) => ({
  sourceLog: t.field({
    type: RequestLogRef,
    nullable: true,
    description: "The logged call this entry was imported from (null for entries added otherwise, or whose log expired)",
    resolve: (e, _, c) => (e.sourceLogId ? loadersOf(c).logs.load(e.sourceLogId) : null),
  }),
  dataset: t.field({ type: DatasetRef, resolve: async (e, _, c) => (await loadersOf(c).datasets.load(e.datasetId))! }),
}));

builder.objectFields(RequestLogRef, (t) => ({
  datasetEntries: t.field({
    type: [DatasetEntryRef],
    description: "The dataset entries made from this call",
    resolve: (l, _, c) => loadersOf(c).entriesBySourceLog.load(l.id),
  }),
}));

const ImportLogError = builder.objectRef<{ logId: string; message: string }>("ImportLogError").implement({
  fields: (t) => ({ logId: t.exposeID("logId"), message: t.exposeString("message") }),
});

const ImportLogsResultRef = builder.objectRef<ImportLogsResult>("ImportLogsResult").implement({
  fields: (t) => ({
    datasetId: t.exposeID("datasetId", { description: "The dataset the entries went to (the new one, with newDatasetName)" }),
    entriesCreated: t.exposeInt("entriesCreated"),
    duplicatesSkipped: t.exposeInt("duplicatesSkipped"),
    invalidLogs: t.exposeInt("invalidLogs"),
    errors: t.field({ type: [ImportLogError], resolve: (r) => r.errors }),
  }),
});

const ImportLogsToDatasetInput = builder.inputType("ImportLogsToDatasetInput", {
  fields: (t) => ({
    datasetId: t.id({ required: false, description: "the dataset to add to (or give newDatasetName)" }),
    newDatasetName: t.string({ required: false, description: "create a dataset of this name and add to it" }),
    filter: t.field({ type: LogFilterInput, required: false }),
    logIds: t.idList({ required: false }),
    limit: t.int({ required: false, description: "import a random sample of this many matching logs" }),
  }),
});

builder.mutationFields((t) => ({
  importLogsToDataset: t.field({
    type: ImportLogsResultRef,
    description: "Adds successful (status 200) logged calls to a dataset; duplicates of entries already there are skipped",
    args: { input: t.arg({ type: ImportLogsToDatasetInput }) },
    resolve: (_, a, c) =>
      importLogsToDataset(projectCtx(c), {
        datasetId: a.input.datasetId == null ? a.input.datasetId : String(a.input.datasetId),
        newDatasetName: a.input.newDatasetName,
        filter: asInputOf(LogFilter, domainLogFilter(a.input.filter)),
        logIds: a.input.logIds?.map(String),
        limit: a.input.limit,
      }),
  }),
}));
