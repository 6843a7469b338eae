import { z } from "zod";
import { ChatMessage, Metadata, modelName, ResponseFormat, Tool, ToolChoice } from "../chat/schemas";
import { MAX_ID_LENGTH, MAX_PAGE_SIZE_CEILING } from "../../limits";

export const DatasetId = z.string().min(1).max(100);
export const Split = z.enum(["TRAIN", "TEST"]);
export type Split = z.infer<typeof Split>;

export const CreateDatasetInput = z.object({
  name: z.string().trim().min(1, "name must not be empty").max(256, "name must be at most 256 characters"),
});
export type CreateDatasetInput = z.input<typeof CreateDatasetInput>;

export const DatasetIdInput = z.object({ datasetId: DatasetId });
export type DatasetIdInput = z.input<typeof DatasetIdInput>;

/** One training example: a conversation whose last message is the assistant output to learn. */
export const DatasetEntryInput = z
  .strictObject({
    messages: z.array(ChatMessage).min(1, "messages must hold at least one message"),
    tools: z.array(Tool).nullable().optional(),
    tool_choice: ToolChoice.nullable().optional(),
    response_format: ResponseFormat.nullable().optional(),
    metadata: Metadata.optional(),
    split: Split.optional(),
  })
  .superRefine((entry, c) => {
    const last = entry.messages.at(-1);
    if (last && last.role !== "assistant") {
      c.addIssue({
        code: "custom",
        path: ["messages", entry.messages.length - 1],
        message: "the last message must have role `assistant` (the output the model should learn)",
      });
    }
  });
export type DatasetEntryInput = z.output<typeof DatasetEntryInput>;

const MAX_ENTRIES_PER_REQUEST = 100;

// The request as a whole: its shape and the type of each entry's metadata. The content of each
// entry is checked one by one, so that one bad entry does not reject the good ones.
export const AddDatasetEntriesInput = z.object({
  datasetId: DatasetId,
  entries: z
    .array(z.looseObject({ metadata: Metadata.optional() }), { error: "entries must be an array of objects" })
    .min(1, "entries must hold at least 1 entry")
    .max(MAX_ENTRIES_PER_REQUEST, `entries must hold at most ${MAX_ENTRIES_PER_REQUEST} entries`),
});
export type AddDatasetEntriesInput = z.input<typeof AddDatasetEntriesInput>;

/** Entries whose latest verdict of a criterion is this judgement. */
export const VerdictFilter = z.object({ criterionId: z.string().min(1), judgement: z.enum(["PASS", "FAIL"]) });

export const ListDatasetEntriesInput = z.object({
  datasetId: DatasetId,
  first: z.number().int().min(1).max(MAX_PAGE_SIZE_CEILING).optional(),
  after: z.string().max(200).nullable().optional(),
  split: Split.nullable().optional(),
  verdict: VerdictFilter.nullish(),
});
export type ListDatasetEntriesInput = z.input<typeof ListDatasetEntriesInput>;

/** A JSONL file as one text (tRPC and GraphQL); REST streams the lines instead. */
export const ImportDatasetJsonlInput = z.object({ datasetId: DatasetId, jsonl: z.string() });
export type ImportDatasetJsonlInput = z.input<typeof ImportDatasetJsonlInput>;

export const JudgeDatasetEntriesInput = z.object({ datasetId: z.string().min(1), criterionId: z.string().min(1) });
export type JudgeDatasetEntriesInput = z.input<typeof JudgeDatasetEntriesInput>;

export const RelabelDatasetEntriesInput = JudgeDatasetEntriesInput.extend({ model: modelName("model") });
export type RelabelDatasetEntriesInput = z.input<typeof RelabelDatasetEntriesInput>;

export const DatasetTaskIdInput = z.object({ id: z.string().min(1).max(MAX_ID_LENGTH) });
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
  updatedAt: Date;
  entryCount: number;
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
  /** Before the first relabelling, for audit (null when never relabelled). */
  originalMessages: unknown[] | null;
  relabeledBy: string | null;
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
export const RevertEntryInput = z.object({ entryId: z.string().min(1).max(100) });
