import { and, eq } from "drizzle-orm";
import { dbOf, type Ctx } from "../context";
import { datasets } from "../../db/schema";
import { notFound, parseInput } from "../../core/errors";
import { findDataset } from "./internal";
import { RenameDatasetInput, type Dataset } from "./schemas";

/** Renames a dataset (the name rules of createDataset); another project's dataset is not found. */
export async function renameDataset(ctx: Ctx, raw: RenameDatasetInput): Promise<Dataset> {
  const input = parseInput(RenameDatasetInput, raw);
  const [row] = await dbOf(ctx)
    .update(datasets)
    .set({ name: input.name, updatedAt: ctx.deps.clock() })
    .where(and(eq(datasets.id, input.id), eq(datasets.projectId, ctx.projectId)))
    .returning({ id: datasets.id });
  if (!row) throw notFound("Dataset", input.id);
  return findDataset(ctx, row.id);
}
