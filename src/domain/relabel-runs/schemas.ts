import { z } from "zod";
import { MAX_ID_LENGTH, MAX_MODEL_LENGTH, MAX_PAGE_SIZE_CEILING } from "../../core/limits";
import type { RunVerdict } from "../../db/schema/relabel-runs";
import { DatasetId } from "../datasets";

export type { RunVerdict };
export const RelabelRunId = z.string().min(1).max(MAX_ID_LENGTH);
const EntryIds = z.array(z.string().min(1).max(MAX_ID_LENGTH)).min(1).max(1_000, "at most 1,000 entry ids; leave them out for all");

export const CreateRelabelRunInput = z.strictObject({
  datasetId: DatasetId,
  /** A name to tell runs apart (default: the model). */
  name: z.string().trim().min(1).max(200).nullish(),
  /** The model that writes the new outputs: any gateway model string. */
  model: z.string().trim().min(1).max(MAX_MODEL_LENGTH),
  /** Criteria that judge both the proposed and the current output (each pinned to its latest version now, or `@v<N>`). */
  criterionIds: z
    .array(
      z
        .string()
        .min(1)
        .max(MAX_ID_LENGTH + 12),
    )
    .max(5, "at most 5 criteria")
    .nullish(),
  /** Only the entries this monitor added. */
  monitorId: z.string().min(1).max(MAX_ID_LENGTH).nullish(),
  /** Only these entries (of the dataset). */
  entryIds: EntryIds.nullish(),
});
export type CreateRelabelRunInput = z.input<typeof CreateRelabelRunInput>;

export const RelabelRunIdInput = z.strictObject({ id: RelabelRunId });
export const ListRelabelRunsInput = z.strictObject({
  datasetId: DatasetId.nullish(),
  /** A page (list-page.ts): at most `first` (default and ceiling HONE_MAX_PAGE_SIZE), older than `after` (a run's id). */
  first: z.number().int().min(1, "first must be at least 1").nullish(),
  after: z.string().min(1).max(MAX_ID_LENGTH).nullish(),
});

export const RelabelOutputsInput = z.strictObject({
  id: RelabelRunId,
  /** UNDECIDED, ACCEPTED or REJECTED; absent: all. */
  decision: z.enum(["UNDECIDED", "ACCEPTED", "REJECTED"]).nullish(),
  first: z.number().int().min(1).max(MAX_PAGE_SIZE_CEILING).nullish(),
  after: z.string().max(200).nullish(),
});
export type RelabelOutputsInput = z.input<typeof RelabelOutputsInput>;

/** Accept or reject: some entries of the run, or (without entryIds) every undecided one. */
export const DecideRelabelInput = z.strictObject({ id: RelabelRunId, entryIds: EntryIds.nullish() });
export type DecideRelabelInput = z.input<typeof DecideRelabelInput>;

export type RelabelRunStatus = "QUEUED" | "RUNNING" | "DONE" | "ERROR" | "CANCELLED";

export type RelabelRun = {
  id: string;
  datasetId: string;
  name: string;
  model: string;
  criteria: string[];
  monitorId: string | null;
  status: RelabelRunStatus;
  progress: { done: number; total: number };
  decisions: { accepted: number; rejected: number; undecided: number; failed: number };
  costUsd: number;
  errorMessage: string | null;
  createdAt: Date;
  updatedAt: Date;
};

export type RelabelOutput = {
  entryId: string;
  /** The conversation before the output (the entry's messages without its final assistant turn). */
  input: unknown[];
  current: Record<string, unknown> | null;
  proposed: Record<string, unknown> | null;
  error: string | null;
  currentVerdicts: RunVerdict[];
  proposedVerdicts: RunVerdict[];
  decision: "ACCEPTED" | "REJECTED" | null;
  /** The entry was changed after the run read it: accepting would undo that change, so it is refused. */
  stale: boolean;
};

export type DecideResult = { accepted: number; rejected: number; stale: number };
