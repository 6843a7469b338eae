import { asInputOf } from "../../../core/verb-input";
import {
  addDatasetEntries,
  createDataset,
  CreateDatasetInput,
  deleteDataset,
  getDataset,
  listDatasets,
  revertDatasetEntryRelabel,
  acceptDatasetEntryRelabel,
  renameDataset,
  countDatasetEntries,
  updateDatasetEntry,
  deleteDatasetEntries,
  setDatasetEntriesSplit,
  exportDatasetPage,
  importDatasetJsonl,
  AddDatasetEntriesInput,
  type EntryFilter,
  type Dataset,
  type DatasetEntry,
  type EntryVerdict,
} from "../../../domain/datasets";
import { DomainError } from "../../../core/errors";
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
    source: t.exposeString("source", { description: "log (imported from a logged call), upload (JSONL import) or manual (added by hand or the API)" }),
    messages: t.field({ type: "JSON", resolve: (e) => e.messages }),
    tools: t.field({ type: "JSON", nullable: true, resolve: (e) => e.tools }),
    toolChoice: t.field({ type: "JSON", nullable: true, resolve: (e) => e.toolChoice }),
    responseFormat: t.field({ type: "JSON", nullable: true, resolve: (e) => e.responseFormat }),
    metadata: t.field({ type: "JSON", resolve: (e) => e.metadata }),
    createdAt: t.field({ type: "DateTime", resolve: (e) => e.createdAt }),
    originalMessages: t.field({ type: "JSON", nullable: true, description: "The messages before the first relabelling", resolve: (e) => e.originalMessages }),
    relabeledBy: t.exposeString("relabeledBy", { nullable: true, description: "The model that relabelled the entry; null when never relabelled" }),
    rejectedOutputs: t.field({
      type: "JSON",
      description: "Preference data: outputs judged worse than the entry's own, newest last, each {message, source: relabel | edit | best-of-n, ref, at}",
      resolve: (e) => e.rejectedOutputs,
    }),
    monitorId: t.exposeString("monitorId", { nullable: true, description: "The monitor that added the entry" }),
    verdicts: t.field({
      type: [EntryVerdictRef],
      description: "The latest verdict of each criterion that judged the entry (judgeDatasetEntries, relabelDatasetEntries)",
      // Batched: a page of entries asks for its verdicts in one query.
      resolve: (e, _, context) => loadersOf(context).entryVerdicts.load(e.id),
    }),
  }),
});

const VerdictFilterInput = builder.inputType("VerdictFilterInput", {
  fields: (t) => ({
    criterionId: t.string(),
    judgement: t.string({ description: "PASS or FAIL; ERROR: the judge gave no judgement; NONE: the criterion never judged the entry" }),
  }),
});

const DatasetEntryFilterInput = builder.inputType("DatasetEntryFilterInput", {
  description: "Which entries of a dataset: every condition given must hold",
  fields: (t) => ({
    split: t.string({ required: false, description: "TRAIN or TEST" }),
    source: t.string({ required: false, description: "log, upload or manual" }),
    verdict: t.field({ type: VerdictFilterInput, required: false, description: "the latest verdict of a criterion" }),
    search: t.string({ required: false, description: "text in the messages (contents, tool calls), case-insensitive" }),
    pendingReview: t.boolean({ required: false, description: "true: relabelled entries awaiting accept or revert; false: the others" }),
  }),
});

// GraphQL inputs are checked by the verb's zod schema: the strings here become its enums.
const entryFilterOf = (
  f: { split?: string | null; source?: string | null; verdict?: unknown; search?: string | null; pendingReview?: boolean | null } | null | undefined,
) => (f ?? {}) as EntryFilter;

export const DatasetRef = builder.objectRef<Dataset>("Dataset").implement({
  fields: (t) => ({
    id: t.exposeID("id"),
    name: t.exposeString("name"),
    createdAt: t.field({ type: "DateTime", resolve: (d) => d.createdAt }),
    updatedAt: t.field({ type: "DateTime", resolve: (d) => d.updatedAt }),
    entryCount: t.exposeInt("entryCount"),
    trainCount: t.exposeInt("trainCount"),
    testCount: t.exposeInt("testCount"),
    fineTuneCount: t.exposeInt("fineTuneCount"),
    entries: t.connection({
      type: DatasetEntryRef,
      args: {
        // A String, as CONTRACT.md names it (TRAIN or TEST, checked by the verb).
        split: t.arg.string({ required: false, description: "TRAIN or TEST" }),
        verdict: t.arg({ type: VerdictFilterInput, required: false, description: "only entries whose latest verdict of the criterion is this" }),
        source: t.arg.string({ required: false, description: "log, upload or manual" }),
        search: t.arg.string({ required: false, description: "text in the messages, case-insensitive" }),
        pendingReview: t.arg.boolean({ required: false, description: "true: relabelled entries awaiting accept or revert" }),
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
            ...entryFilterOf({ split: args.split, verdict: args.verdict, source: args.source, search: args.search, pendingReview: args.pendingReview }),
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

const RenameDatasetInputRef = builder.inputType("RenameDatasetInput", {
  fields: (t) => ({ id: t.id(), name: t.string() }),
});

const UpdateDatasetEntryInputRef = builder.inputType("UpdateDatasetEntryInput", {
  description: "The fields given replace the stored ones (null clears tools, toolChoice, responseFormat); the result is checked as an added entry is",
  fields: (t) => ({
    datasetId: t.id(),
    entryId: t.id(),
    messages: t.field({ type: ["JSON"], required: false }),
    tools: t.field({ type: ["JSON"], required: false }),
    toolChoice: t.field({ type: "JSON", required: false }),
    responseFormat: t.field({ type: "JSON", required: false }),
    metadata: t.field({ type: "JSON", required: false, description: "string values" }),
    split: t.string({ required: false, description: "TRAIN or TEST" }),
  }),
});

const DatasetEntryIdsInput = builder.inputType("DatasetEntryIdsInput", {
  fields: (t) => ({ datasetId: t.id(), entryIds: t.idList({ description: "1 to 1,000 entry ids of this dataset (others are skipped)" }) }),
});

const SetDatasetEntriesSplitInputRef = builder.inputType("SetDatasetEntriesSplitInput", {
  fields: (t) => ({
    datasetId: t.id(),
    entryIds: t.idList({ description: "1 to 1,000 entry ids of this dataset (others are skipped)" }),
    split: t.string({ description: "TRAIN or TEST" }),
  }),
});

const ImportDatasetJsonlInputRef = builder.inputType("ImportDatasetJsonlInput", {
  fields: (t) => ({
    datasetId: t.id(),
    jsonl: t.string({ description: "JSONL rows {messages, tools?, tool_choice?, response_format?, split?, metadata?}" }),
    firstLine: t.int({ required: false, description: "the file's line number of the first line given (default 1), for a file sent in chunks" }),
  }),
});

const DeletedEntriesRef = builder.objectRef<{ deleted: number }>("DeletedDatasetEntries").implement({
  fields: (t) => ({ deleted: t.exposeInt("deleted", { description: "entries deleted" }) }),
});
const UpdatedEntriesRef = builder.objectRef<{ updated: number }>("UpdatedDatasetEntries").implement({
  fields: (t) => ({ updated: t.exposeInt("updated", { description: "entries of the dataset named (those already in the split included)" }) }),
});
const JsonlImportError = builder.objectRef<{ line: number; message: string }>("DatasetImportError").implement({
  fields: (t) => ({ line: t.exposeInt("line"), message: t.exposeString("message") }),
});
const JsonlImportResult = builder
  .objectRef<{ entriesCreated: number; errorCount: number; errors: { line: number; message: string }[] }>("DatasetJsonlImportResult")
  .implement({
    fields: (t) => ({
      entriesCreated: t.exposeInt("entriesCreated"),
      errorCount: t.exposeInt("errorCount", { description: "lines that could not be imported" }),
      errors: t.field({ type: [JsonlImportError], description: "the first 1,000 of them", resolve: (r) => r.errors }),
    }),
  });
const ExportPageRef = builder.objectRef<{ lines: string[]; endCursor: string | null; hasNextPage: boolean }>("DatasetExportPage").implement({
  fields: (t) => ({
    lines: t.exposeStringList("lines", { description: "JSONL lines, as GET /datasets/{id}/export writes them" }),
    endCursor: t.exposeString("endCursor", { nullable: true }),
    hasNextPage: t.exposeBoolean("hasNextPage"),
  }),
});

builder.queryFields((t) => ({
  datasetEntryCount: t.int({
    description: "How many entries of the dataset match the filter, exactly",
    args: { datasetId: t.arg.id(), filter: t.arg({ type: DatasetEntryFilterInput, required: false }) },
    resolve: async (_, a, c) => (await countDatasetEntries(projectCtx(c), { datasetId: String(a.datasetId), filter: entryFilterOf(a.filter) })).count,
  }),
  datasetExportPage: t.field({
    type: ExportPageRef,
    description: "A page of the dataset's JSONL export (up to 500 lines); loop on endCursor",
    args: {
      datasetId: t.arg.id(),
      filter: t.arg({ type: DatasetEntryFilterInput, required: false }),
      first: t.arg.int({ required: false }),
      after: t.arg.string({ required: false }),
    },
    resolve: (_, a, c) => exportDatasetPage(projectCtx(c), { datasetId: String(a.datasetId), ...entryFilterOf(a.filter), first: a.first, after: a.after }),
  }),
  datasets: t.field({
    type: [DatasetRef],
    description: "A page of the project's datasets, newest first: at most `first` (default and ceiling HONE_MAX_PAGE_SIZE), older than `after` (an id)",
    args: { first: t.arg.int({ required: false }), after: t.arg.string({ required: false }) },
    resolve: (_, a, context) => listDatasets(projectCtx(context), { first: a.first, after: a.after }),
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
  renameDataset: t.field({
    type: DatasetRef,
    args: { input: t.arg({ type: RenameDatasetInputRef }) },
    resolve: (_, a, c) => renameDataset(projectCtx(c), { id: String(a.input.id), name: a.input.name }),
  }),
  updateDatasetEntry: t.field({
    type: DatasetEntryRef,
    description:
      "Edits one entry, checked as an added entry is (issues with field paths); CONFLICT when it would duplicate another entry; a content change drops the entry's verdicts",
    args: { input: t.arg({ type: UpdateDatasetEntryInputRef }) },
    resolve: (_, a, c) => {
      const i = a.input;
      return updateDatasetEntry(projectCtx(c), {
        datasetId: String(i.datasetId),
        entryId: String(i.entryId),
        // Absent stays absent (kept); null is passed on (clears, or is refused where not allowed).
        ...(i.messages !== undefined ? { messages: i.messages as unknown[] } : {}),
        ...(i.tools !== undefined ? { tools: i.tools as unknown[] | null } : {}),
        ...(i.toolChoice !== undefined ? { toolChoice: i.toolChoice } : {}),
        ...(i.responseFormat !== undefined ? { responseFormat: i.responseFormat } : {}),
        ...(i.metadata !== undefined ? { metadata: i.metadata as Record<string, string> } : {}),
        ...(i.split !== undefined ? { split: i.split as "TRAIN" } : {}),
      });
    },
  }),
  deleteDatasetEntries: t.field({
    type: DeletedEntriesRef,
    args: { input: t.arg({ type: DatasetEntryIdsInput }) },
    resolve: (_, a, c) => deleteDatasetEntries(projectCtx(c), { datasetId: String(a.input.datasetId), entryIds: a.input.entryIds.map(String) }),
  }),
  setDatasetEntriesSplit: t.field({
    type: UpdatedEntriesRef,
    args: { input: t.arg({ type: SetDatasetEntriesSplitInputRef }) },
    resolve: (_, a, c) =>
      setDatasetEntriesSplit(projectCtx(c), { datasetId: String(a.input.datasetId), entryIds: a.input.entryIds.map(String), split: a.input.split as "TRAIN" }),
  }),
  importDatasetJsonl: t.field({
    type: JsonlImportResult,
    description: "Imports JSONL text (within the request body limit); bad lines are listed by number, good ones stored",
    args: { input: t.arg({ type: ImportDatasetJsonlInputRef }) },
    resolve: (_, a, c) =>
      importDatasetJsonl(projectCtx(c), { datasetId: String(a.input.datasetId), lines: a.input.jsonl.split("\n"), firstLine: a.input.firstLine }),
  }),
  revertDatasetEntry: t.field({
    type: DatasetEntryRef,
    description: "Gives a relabelled entry back the messages it had before its first relabelling; verdicts given since go",
    args: { id: t.arg.id() },
    resolve: (_, args, context) => revertDatasetEntryRelabel(projectCtx(context), { entryId: String(args.id) }),
  }),
  acceptDatasetEntryRelabel: t.field({
    type: DatasetEntryRef,
    description: "Keeps a relabelled entry's new answer and lets the original go (it leaves the review queue)",
    args: { id: t.arg.id() },
    resolve: (_, args, context) => acceptDatasetEntryRelabel(projectCtx(context), { entryId: String(args.id) }),
  }),
  addDatasetEntries: t.field({
    type: AddEntriesResult,
    args: { input: t.arg({ type: AddDatasetEntriesInputRef }) },
    resolve: (_, args, context) =>
      addDatasetEntries(projectCtx(context), {
        datasetId: String(args.input.datasetId),
        entries: asInputOf(AddDatasetEntriesInput.shape.entries, args.input.entries),
      }),
  }),
}));
