import { dbOf, type Ctx } from "../context";
import { datasets } from "../../db/schema";
import { parseInput } from "../../core/errors";
import { toDataset } from "./internal";
import { CreateDatasetInput, type Dataset } from "./schemas";

export async function createDataset(ctx: Ctx, raw: CreateDatasetInput): Promise<Dataset> {
  const input = parseInput(CreateDatasetInput, raw);
  const now = ctx.deps.clock();
  const [row] = await dbOf(ctx)
    .insert(datasets)
    .values({ id: ctx.deps.ids("dataset"), projectId: ctx.projectId, name: input.name, createdAt: now, updatedAt: now })
    .returning({ id: datasets.id, name: datasets.name, createdAt: datasets.createdAt, updatedAt: datasets.updatedAt });
  return toDataset({ ...row!, entryCount: 0, testCount: 0, fineTuneCount: 0 });
}
