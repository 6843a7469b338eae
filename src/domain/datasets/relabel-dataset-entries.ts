import type { Ctx } from "../context";
import { parseInput } from "../../core/errors";
import { RelabelDatasetEntriesInput, type DatasetTask } from "./schemas";
import { startDatasetTask } from "./start-dataset-task";
import { requireKeyMayCall } from "../projects";

/**
 * Does the whole quality job of a criterion in one background task: first judges the entries that
 * have no verdict of it yet, then regenerates with the given model the final assistant turn of every
 * entry whose latest verdict is FAIL, then judges each relabelled entry again (its new verdict
 * replaces the old). The first original is kept (originalMessages) for audit and revert. Progress
 * counts the entries handled out of those whose latest verdict was not PASS.
 */
export async function relabelDatasetEntries(ctx: Ctx, raw: RelabelDatasetEntriesInput): Promise<DatasetTask> {
  const input = parseInput(RelabelDatasetEntriesInput, raw);
  requireKeyMayCall(ctx, [input.model]);
  return startDatasetTask(ctx, { ...input, kind: "relabel" });
}
