import { and, desc, eq } from "drizzle-orm";
import { dbOf, type Ctx } from "../context";
import { datasets } from "../../db/schema";
import { type ListPageInput, listPage } from "../list-page";
import { datasetColumns, toDataset } from "./internal";
import type { Dataset } from "./schemas";

/** A page of the project's datasets, newest first (list-page.ts). */
export async function listDatasets(ctx: Ctx, raw?: ListPageInput): Promise<Dataset[]> {
  const page = listPage(ctx, raw, datasets.id);
  const rows = await dbOf(ctx)
    .select(datasetColumns)
    .from(datasets)
    .where(and(eq(datasets.projectId, ctx.projectId), page.after))
    .orderBy(desc(datasets.id))
    .limit(page.limit);
  return rows.map(toDataset);
}
