import { z } from "zod";
import type { RejectedOutput } from "../../db/schema/datasets";
import { ChatEntry, Metadata, modelName, Split } from "../chat";
import { MAX_ID_LENGTH, MAX_PAGE_SIZE_CEILING } from "../../core/limits";

export const DatasetId = z.string().min(1).max(100);
export { Split };

export const CreateDatasetInput = z.strictObject({
  name: z.string().trim().min(1, "name must not be empty").max(256, "name must be at most 256 characters"),
});
export type CreateDatasetInput = z.input<typeof CreateDatasetInput>;

export const DatasetIdInput = z.strictObject({ datasetId: DatasetId });
export type DatasetIdInput = z.input<typeof DatasetIdInput>;

/** One training example: a conversation whose last message is the assistant output to learn (the chat area's entry shape). */
export const DatasetEntryInput = ChatEntry;
export type DatasetEntryInput = ChatEntry;

const MAX_ENTRIES_PER_REQUEST = 100;

// The request as a whole: its shape and the type of each entry's metadata. The content of each
// entry is checked one by one, so that one bad entry does not reject the good ones.
export const AddDatasetEntriesInput = z.strictObject({
  datasetId: DatasetId,
  entries: z
    .array(z.looseObject({ metadata: Metadata.optional() }), { error: "entries must be an array of objects" })
    .min(1, "entries must hold at least 1 entry")
    .max(MAX_ENTRIES_PER_REQUEST, `entries must hold at most ${MAX_ENTRIES_PER_REQUEST} entries`),
});
export type AddDatasetEntriesInput = z.input<typeof AddDatasetEntriesInput>;

/**
 * Entries whose latest verdict of a criterion is this judgement: PASS or FAIL; ERROR when the
 * judge gave none (its error is recorded); NONE when the criterion never judged the entry.
 */
export const VerdictFilter = z.strictObject({
  criterionId: z.string().min(1).max(MAX_ID_LENGTH),
  judgement: z.enum(["PASS", "FAIL", "ERROR", "NONE"], { error: "judgement must be PASS, FAIL, ERROR or NONE" }),
});
export type VerdictFilter = z.infer<typeof VerdictFilter>;

export const EntrySource = z.enum(["log", "upload", "manual"], { error: "source must be log, upload or manual" });
export type EntrySource = z.infer<typeof EntrySource>;

export const MAX_ENTRY_SEARCH_LENGTH = 200;

/** Which entries of a dataset: every condition given must hold. */
export const EntryFilterFields = {
  split: Split.nullish(),
  /** log: imported from a logged call; upload: a JSONL import; manual: added by hand or by the API. */
  source: EntrySource.nullish(),
  verdict: VerdictFilter.nullish(),
  /** true: relabelled entries whose new answer awaits review (accept or revert); false: the others. */
  pendingReview: z.boolean().nullish(),
  /** Text in the messages (contents, content parts, tool call names and arguments, refusals), case-insensitive. */
  search: z.string().max(MAX_ENTRY_SEARCH_LENGTH, `search must be at most ${MAX_ENTRY_SEARCH_LENGTH} characters`).nullish(),
};
export const EntryFilter = z.strictObject(EntryFilterFields);
export type EntryFilter = z.infer<typeof EntryFilter>;

export const ListDatasetEntriesInput = z.strictObject({
  datasetId: DatasetId,
  first: z.number().int().min(1).max(MAX_PAGE_SIZE_CEILING).optional(),
  after: z.string().max(200).nullable().optional(),
  ...EntryFilterFields,
});
export type ListDatasetEntriesInput = z.input<typeof ListDatasetEntriesInput>;

/** One entry of a dataset, by its id (another dataset's or project's: not found). */
export const GetDatasetEntryInput = z.strictObject({ datasetId: DatasetId, entryId: z.string().min(1).max(100) });
export type GetDatasetEntryInput = z.input<typeof GetDatasetEntryInput>;

export const CountDatasetEntriesInput = z.strictObject({ datasetId: DatasetId, filter: EntryFilter.nullish() });
export type CountDatasetEntriesInput = z.input<typeof CountDatasetEntriesInput>;

export const RenameDatasetInput = z.strictObject({ id: DatasetId, name: CreateDatasetInput.shape.name });
export type RenameDatasetInput = z.input<typeof RenameDatasetInput>;

/** Entries one bulk call (deleteEntries, setSplit) may name. */
export const MAX_ENTRY_IDS = 1_000;
const EntryIds = z
  .array(z.string().min(1).max(MAX_ID_LENGTH))
  .min(1, "entryIds must hold at least 1 id")
  .max(MAX_ENTRY_IDS, `entryIds must hold at most ${MAX_ENTRY_IDS} ids`);

/** Entries one transaction of a bulk call by filter touches: "all matching" goes in batches of this many. */
export const ENTRY_BATCH = 1_000;

/**
 * Which entries a bulk call touches: the ids named (up to 1,000), or every entry of the dataset
 * matching a filter (the filter of listEntries and countEntries; `{}` is every entry). One of the two.
 */
const oneSelection = (v: { entryIds?: unknown; filter?: unknown }, c: z.RefinementCtx) => {
  const ids = v.entryIds !== undefined;
  const filter = v.filter !== undefined && v.filter !== null;
  if (ids === filter) {
    c.addIssue({
      code: "custom",
      path: ids ? ["filter"] : ["entryIds"],
      message: ids ? "give entryIds or filter, not both" : "give entryIds (the entries to change) or filter (every entry matching it)",
    });
  }
};

export const DeleteDatasetEntriesInput = z
  .strictObject({ datasetId: DatasetId, entryIds: EntryIds.optional(), filter: EntryFilter.nullish() })
  .superRefine(oneSelection);
export type DeleteDatasetEntriesInput = z.input<typeof DeleteDatasetEntriesInput>;

export const SetDatasetEntriesSplitInput = z
  .strictObject({ datasetId: DatasetId, entryIds: EntryIds.optional(), filter: EntryFilter.nullish(), split: Split })
  .superRefine(oneSelection);
export type SetDatasetEntriesSplitInput = z.input<typeof SetDatasetEntriesSplitInput>;

/**
 * Splits entries at random: those named by `entryIds`, or those matching `filter` (every entry
 * when neither is given); exactly round(testRatio x n) of the n go to TEST, chosen uniformly, the
 * rest to TRAIN.
 */
export const ResplitDatasetEntriesInput = z
  .strictObject({
    datasetId: DatasetId,
    entryIds: EntryIds.optional(),
    filter: EntryFilter.nullish(),
    testRatio: z.number({ error: "testRatio must be a number from 0 to 1" }).min(0, "testRatio must be at least 0").max(1, "testRatio must be at most 1"),
  })
  .superRefine((v, c) => {
    if (v.entryIds !== undefined && v.filter != null) c.addIssue({ code: "custom", path: ["filter"], message: "give entryIds or filter, not both" });
  });
export type ResplitDatasetEntriesInput = z.input<typeof ResplitDatasetEntriesInput>;
export type ResplitResult = { matched: number; test: number; train: number };

/**
 * An edit of one entry: the fields given replace the stored ones (null clears tools, toolChoice and
 * responseFormat); the result is checked as a whole by DatasetEntryInput, as an added entry is.
 */
export const UpdateDatasetEntryInput = z.strictObject({
  datasetId: DatasetId,
  entryId: z.string().min(1).max(MAX_ID_LENGTH),
  // The content is checked after the merge, by DatasetEntryInput, so its issues carry field paths.
  messages: z.array(z.unknown(), { error: "messages must be an array of messages" }).optional(),
  tools: z.array(z.unknown(), { error: "tools must be an array of tools or null" }).nullish(),
  toolChoice: z.unknown().optional(),
  responseFormat: z.unknown().optional(),
  metadata: Metadata.optional(),
  split: Split.optional(),
});
export type UpdateDatasetEntryInput = z.input<typeof UpdateDatasetEntryInput>;

/** A page of a JSONL export (the rows GET /datasets/{id}/export writes), for a browser download. */
export const MAX_DATASET_EXPORT_PAGE = 500;
export const ExportDatasetPageInput = z.strictObject({
  datasetId: DatasetId,
  ...EntryFilterFields,
  after: z.string().max(200).nullish(),
  first: z.number().int().min(1).max(MAX_DATASET_EXPORT_PAGE, `first may be at most ${MAX_DATASET_EXPORT_PAGE}`).nullish(),
});
export type ExportDatasetPageInput = z.input<typeof ExportDatasetPageInput>;

/**
 * A JSONL file as one text (tRPC and GraphQL); REST streams the lines instead. A big file can be
 * sent in chunks of lines: firstLine is the number of this chunk's first line in the file, so the
 * per-line errors name the file's lines.
 */
export const ImportDatasetJsonlInput = z.strictObject({
  datasetId: DatasetId,
  jsonl: z.string(),
  firstLine: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).nullish(),
});
export type ImportDatasetJsonlInput = z.input<typeof ImportDatasetJsonlInput>;

export const JudgeDatasetEntriesInput = z.strictObject({ datasetId: z.string().min(1), criterionId: z.string().min(1) });
export type JudgeDatasetEntriesInput = z.input<typeof JudgeDatasetEntriesInput>;

export const RelabelDatasetEntriesInput = JudgeDatasetEntriesInput.extend({ model: modelName("model") });
export type RelabelDatasetEntriesInput = z.input<typeof RelabelDatasetEntriesInput>;

export const DatasetTaskIdInput = z.strictObject({ id: z.string().min(1).max(MAX_ID_LENGTH) });
export type DatasetTaskIdInput = z.input<typeof DatasetTaskIdInput>;

export type DatasetTask = {
  id: string;
  datasetId: string;
  kind: "judge" | "relabel";
  criterionId: string;
  criterionVersion: number;
  model: string | null;
  status: "QUEUED" | "RUNNING" | "DONE" | "ERROR";
  progress: { done: number; total: number };
  errorMessage: string | null;
  createdAt: Date;
};

export type Dataset = {
  id: string;
  name: string;
  createdAt: Date;
  /** Changed by every write to the dataset or its entries (add, import, edit, delete, re-split, rename). */
  updatedAt: Date;
  entryCount: number;
  /** entryCount = trainCount + testCount, all counted on read (exact). */
  trainCount: number;
  testCount: number;
  fineTuneCount: number;
};

export type DatasetEntry = {
  id: string;
  datasetId: string;
  split: Split;
  messages: unknown[];
  tools: unknown[] | null;
  toolChoice: unknown;
  responseFormat: Record<string, unknown> | null;
  metadata: Record<string, string>;
  createdAt: Date;
  sourceLogId: string | null;
  /** How the entry came in: log (imported from a logged call), upload (JSONL import), manual (by hand or the API). */
  source: EntrySource;
  /** Before the first relabelling, for audit (null when never relabelled). */
  originalMessages: unknown[] | null;
  relabeledBy: string | null;
  /** Preference data: outputs judged worse than its own (a relabel replaced, a person edited away, a best-of-N loser), newest last. */
  rejectedOutputs: RejectedOutput[];
  /** The monitor that added it. */
  monitorId: string | null;
};

/** The latest verdict of one criterion on an entry (one per criterion: a new judgement replaces it). */
export type EntryVerdict = {
  criterionId: string;
  /** The criterion version that judged. */
  version: number;
  /** null when the judge could not give one (see error). */
  judgement: "PASS" | "FAIL" | null;
  /** 1 for PASS, 0 for FAIL, as the judge API scores; null without a judgement. */
  score: number | null;
  explanation: string | null;
  error: string | null;
  judgedAt: Date;
};

export type DatasetEntryWithVerdicts = DatasetEntry & { verdicts: EntryVerdict[] };

export type AddDatasetEntriesResult = {
  entriesCreated: number;
  errors: { entryIndex: number; message: string }[];
};

export type DatasetEntryPage<E extends DatasetEntry = DatasetEntry> = {
  entries: E[];
  hasNextPage: boolean;
  endCursor: string | null;
};

/** revertDatasetEntry: the entry whose relabelling is rejected. */
export const RevertEntryInput = z.strictObject({ entryId: z.string().min(1).max(100) });
