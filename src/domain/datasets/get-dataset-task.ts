import { and, desc, eq } from "drizzle-orm";
import { z } from "zod";
import { dbOf, type Ctx } from "../context";
import { datasetTasks } from "../../db/schema";
import { notFound, parseInput } from "../../core/errors";
import { findDataset, toDatasetTask } from "./internal";
import { DatasetId, DatasetTaskIdInput, type DatasetTask } from "./schemas";

export const DatasetIdOnlyInput = z.strictObject({ datasetId: DatasetId });

export async function getDatasetTask(ctx: Ctx, raw: DatasetTaskIdInput): Promise<DatasetTask> {
  const { id } = parseInput(DatasetTaskIdInput, raw);
  const [r] = await dbOf(ctx)
    .select()
    .from(datasetTasks)
    .where(and(eq(datasetTasks.id, id), eq(datasetTasks.projectId, ctx.projectId)));
  if (!r) throw notFound("Dataset task", id);
  return toDatasetTask(r);
}

/** The dataset's 10 most recent judge and relabel tasks, newest first. */
export async function listDatasetTasks(ctx: Ctx, raw: { datasetId: string }): Promise<DatasetTask[]> {
  const dataset = await findDataset(ctx, parseInput(DatasetIdOnlyInput, raw).datasetId);
  const rows = await dbOf(ctx).select().from(datasetTasks).where(eq(datasetTasks.datasetId, dataset.id)).orderBy(desc(datasetTasks.id)).limit(10);
  return rows.map(toDatasetTask);
}
