import type { Ctx } from "../context";
import { parseInput } from "../../core/errors";
import { JudgeDatasetEntriesInput, type DatasetTask } from "./schemas";
import { startDatasetTask } from "./start-dataset-task";

/** Judges every entry of a dataset (its final assistant turn) with a criterion, in the background. */
export async function judgeDatasetEntries(ctx: Ctx, raw: JudgeDatasetEntriesInput): Promise<DatasetTask> {
  const input = parseInput(JudgeDatasetEntriesInput, raw);
  return startDatasetTask(ctx, { ...input, kind: "judge" });
}
