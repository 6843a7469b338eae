import { and, eq } from "drizzle-orm";
import { dbOf, type Ctx } from "../context";
import { datasets } from "../../db/schema";
import { notFound, parseInput } from "../../core/errors";
import { DatasetIdInput } from "./schemas";
import { type Deleted, deleted as deletedAs } from "../deleted";

/** Deletes a dataset and, through the foreign key's cascade, all of its entries. */
export async function deleteDataset(ctx: Ctx, raw: DatasetIdInput): Promise<Deleted> {
  const input = parseInput(DatasetIdInput, raw);
  const deleted = await dbOf(ctx)
    .delete(datasets)
    .where(and(eq(datasets.id, input.datasetId), eq(datasets.projectId, ctx.projectId)))
    .returning({ id: datasets.id });
  if (!deleted[0]) throw notFound("Dataset", input.datasetId);
  return deletedAs(deleted[0].id);
}
