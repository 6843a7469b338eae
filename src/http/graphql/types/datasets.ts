import {
  addDatasetEntries,
  createDataset,
  CreateDatasetInput,
  deleteDataset,
  getDataset,
  listDatasets,
  revertDatasetEntryRelabel,
  type Dataset,
  type DatasetEntry,
  type EntryVerdict,
} from "../../../domain/datasets";
import { DomainError } from "../../../errors";
import { builder, projectCtx } from "../builder";
import { loadersOf } from "../loaders";

const SplitEnum = builder.enumType("Split", { values: ["TRAIN", "TEST"] as const });

const EntryVerdictRef = builder.objectRef<EntryVerdict>("EntryVerdict").implement({
  description: "The latest verdict of one criterion on a dataset entry",
  fields: (t) => ({
    criterionId: t.exposeID("criterionId"),
    version: t.exposeInt("version", { description: "The criterion version that judged" }),
    judgement: t.exposeString("judgement", { nullable: true, description: "PASS or FAIL; null when the judge failed (see error)" }),
    score: t.exposeFloat("score", { nullable: true, description: "1 for PASS, 0 for FAIL; null without a judgement" }),
    explanation: t.exposeString("explanation", { nullable: true }),
    error: t.exposeString("error", { nullable: true, description: "Why there is no judgement" }),
    judgedAt: t.field({ type: "DateTime", resolve: (v) => v.judgedAt }),
  }),
});

export const DatasetEntryRef = builder.objectRef<DatasetEntry>("DatasetEntry").implement({
  description: "One training example: chat messages whose last message is the assistant output",
  fields: (t) => ({
    id: t.exposeID("id"),
    datasetId: t.exposeID("datasetId"),
    split: t.field({ type: SplitEnum, resolve: (e) => e.split }),
    messages: t.field({ type: "JSON", resolve: (e) => e.messages }),
    tools: t.field({ type: "JSON", nullable: true, resolve: (e) => e.tools }),
    toolChoice: t.field({ type: "JSON", nullable: true, resolve: (e) => e.toolChoice }),
    responseFormat: t.field({ type: "JSON", nullable: true, resolve: (e) => e.responseFormat }),
    metadata: t.field({ type: "JSON", resolve: (e) => e.metadata }),
    createdAt: t.field({ type: "DateTime", resolve: (e) => e.createdAt }),
    originalMessages: t.field({ type: "JSON", nullable: true, description: "The messages before the first relabelling", resolve: (e) => e.originalMessages }),
    relabeledBy: t.exposeString("relabeledBy", { nullable: true, description: "The model that relabelled the entry; null when never relabelled" }),
    verdicts: t.field({
      type: [EntryVerdictRef],
      description: "The latest verdict of each criterion that judged the entry (judgeDatasetEntries, relabelDatasetEntries)",
      // Batched: a page of entries asks for its verdicts in one query.
      resolve: (e, _, context) => loadersOf(context).entryVerdicts.load(e.id),
    }),
  }),
});

const VerdictFilterInput = builder.inputType("VerdictFilterInput", {
  fields: (t) => ({ criterionId: t.string(), judgement: t.string({ description: "PASS or FAIL" }) }),
});

export const DatasetRef = builder.objectRef<Dataset>("Dataset").implement({
  fields: (t) => ({
    id: t.exposeID("id"),
    name: t.exposeString("name"),
    createdAt: t.field({ type: "DateTime", resolve: (d) => d.createdAt }),
    updatedAt: t.field({ type: "DateTime", resolve: (d) => d.updatedAt }),
    entryCount: t.exposeInt("entryCount"),
    fineTuneCount: t.exposeInt("fineTuneCount"),
    entries: t.connection({
      type: DatasetEntryRef,
      args: {
        // A String, as CONTRACT.md names it (TRAIN or TEST, checked by the verb).
        split: t.arg.string({ required: false, description: "TRAIN or TEST" }),
        verdict: t.arg({ type: VerdictFilterInput, required: false, description: "only entries whose latest verdict of the criterion is this" }),
      },
      resolve: async (dataset, args, context) => {
        if (args.last != null || args.before != null) {
          throw new DomainError("VALIDATION", "Input validation failed", {
            issues: [{ message: "entries pages forward only: use first and after" }],
          });
        }
        // Batched: under a page of parents (entries -> dataset -> entries) every dataset's page comes
        // from one query, and parents that are the same dataset share it.
        const page = await loadersOf(context)
          .entryPages({
            first: args.first ?? undefined,
            after: args.after ?? undefined,
            split: (args.split ?? undefined) as "TRAIN" | "TEST" | undefined,
            verdict: (args.verdict as { criterionId: string; judgement: "PASS" | "FAIL" } | null | undefined) ?? undefined,
          })
          .load(dataset.id);
        return {
          edges: page.entries.map((node) => ({ cursor: Buffer.from(node.id).toString("base64url"), node })),
          pageInfo: {
            hasNextPage: page.hasNextPage,
            hasPreviousPage: false,
            startCursor: page.entries[0] ? Buffer.from(page.entries[0].id).toString("base64url") : null,
            endCursor: page.endCursor,
          },
        };
      },
    }),
  }),
});

const EntryError = builder.objectRef<{ entryIndex: number; message: string }>("DatasetEntryError").implement({
  fields: (t) => ({ entryIndex: t.exposeInt("entryIndex"), message: t.exposeString("message") }),
});

const AddEntriesResult = builder.objectRef<{ entriesCreated: number; errors: { entryIndex: number; message: string }[] }>("AddDatasetEntriesResult").implement({
  fields: (t) => ({
    entriesCreated: t.exposeInt("entriesCreated"),
    errors: t.field({ type: [EntryError], resolve: (r) => r.errors }),
  }),
});

const DeletedResult = builder.objectRef<{ id: string }>("DeletedDataset").implement({
  fields: (t) => ({ id: t.exposeID("id"), deleted: t.boolean({ resolve: () => true }) }),
});

const CreateDatasetInputRef = builder.inputType("CreateDatasetInput", {
  fields: (t) => ({ name: t.string() }),
  validate: { schema: CreateDatasetInput },
});

const AddDatasetEntriesInputRef = builder.inputType("AddDatasetEntriesInput", {
  fields: (t) => ({
    datasetId: t.id(),
    entries: t.field({ type: ["JSON"], description: "1 to 100 entries: {messages, tools?, tool_choice?, response_format?, metadata?, split?}" }),
  }),
});

builder.queryFields((t) => ({
  datasets: t.field({
    type: [DatasetRef],
    description: "The project's datasets, newest first",
    resolve: (_, __, context) => listDatasets(projectCtx(context)),
  }),
  dataset: t.field({
    type: DatasetRef,
    args: { id: t.arg.id() },
    resolve: (_, args, context) => getDataset(projectCtx(context), { datasetId: String(args.id) }),
  }),
}));

builder.mutationFields((t) => ({
  createDataset: t.field({
    type: DatasetRef,
    args: { input: t.arg({ type: CreateDatasetInputRef }) },
    resolve: (_, args, context) => createDataset(projectCtx(context), args.input),
  }),
  deleteDataset: t.field({
    type: DeletedResult,
    args: { id: t.arg.id() },
    resolve: (_, args, context) => deleteDataset(projectCtx(context), { datasetId: String(args.id) }),
  }),
  revertDatasetEntry: t.field({
    type: DatasetEntryRef,
    description: "Gives a relabelled entry back the messages it had before its first relabelling; verdicts given since go",
    args: { id: t.arg.id() },
    resolve: (_, args, context) => revertDatasetEntryRelabel(projectCtx(context), { entryId: String(args.id) }),
  }),
  addDatasetEntries: t.field({
    type: AddEntriesResult,
    args: { input: t.arg({ type: AddDatasetEntriesInputRef }) },
    resolve: (_, args, context) =>
      addDatasetEntries(projectCtx(context), {
        datasetId: String(args.input.datasetId),
        entries: args.input.entries as never,
      }),
  }),
}));
