import { and, eq } from "drizzle-orm";
import { dbOf, type Ctx } from "../../context";
import { datasetTasks } from "../../db/schema";
import { notFound, parseInput } from "../../errors";
import { toDatasetTask } from "./internal";
import { DatasetTaskIdInput, type DatasetTask } from "./schemas";

export async function getDatasetTask(ctx: Ctx, raw: DatasetTaskIdInput): Promise<DatasetTask> {
  const { id } = parseInput(DatasetTaskIdInput, raw);
  const [r] = await dbOf(ctx)
    .select()
    .from(datasetTasks)
    .where(and(eq(datasetTasks.id, id), eq(datasetTasks.projectId, ctx.projectId)));
  if (!r) throw notFound("Dataset task", id);
  return toDatasetTask(r);
}
