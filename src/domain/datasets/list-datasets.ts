import { desc, eq } from "drizzle-orm";
import { dbOf, type Ctx } from "../../context";
import { datasets } from "../../db/schema";
import { datasetColumns, toDataset } from "./internal";
import type { Dataset } from "./schemas";

/** The project's datasets, newest first. */
export async function listDatasets(ctx: Ctx): Promise<Dataset[]> {
  const rows = await dbOf(ctx).select(datasetColumns).from(datasets).where(eq(datasets.projectId, ctx.projectId)).orderBy(desc(datasets.id));
  return rows.map(toDataset);
}
