import { and, eq, sql } from "drizzle-orm";
import { dbOf, type Ctx } from "../context";
import { datasetEntries } from "../../db/schema";
import { parseInput } from "../../core/errors";
import { findDataset } from "./internal";
import { entryConditions } from "./entry-queries";
import { CountDatasetEntriesInput } from "./schemas";

/** How many entries of a dataset match a filter (the filter of listDatasetEntries), exactly. */
export async function countDatasetEntries(ctx: Ctx, raw: CountDatasetEntriesInput): Promise<{ count: number }> {
  const input = parseInput(CountDatasetEntriesInput, raw);
  await findDataset(ctx, input.datasetId);
  const [row] = await dbOf(ctx)
    .select({ n: sql<number>`count(*)::int` })
    .from(datasetEntries)
    .where(and(eq(datasetEntries.datasetId, input.datasetId), eq(datasetEntries.projectId, ctx.projectId), ...entryConditions(input.filter)));
  return { count: Number(row?.n ?? 0) };
}
