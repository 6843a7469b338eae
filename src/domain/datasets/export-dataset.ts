import { and, asc, eq, gt, type SQL } from "drizzle-orm";
import { z } from "zod";
import { dbOf, type Ctx } from "../../context";
import { datasetEntries } from "../../db/schema";
import { parseInput } from "../../errors";
import { findDataset, verdictCondition } from "./internal";
import { DatasetId, Split, VerdictFilter } from "./schemas";

export const ExportDatasetInput = z.object({ datasetId: DatasetId, split: Split.nullish(), verdict: VerdictFilter.nullish() });

export type ExportRow = { messages: unknown[]; tools: unknown[] | null; tool_choice: unknown; split: "TRAIN" | "TEST"; metadata: Record<string, string>; response_format?: unknown };

/**
 * The dataset's entries as JSONL rows, read 1,000 at a time by key: memory stays flat whatever
 * the dataset's size. Checks the dataset before the first row, so a 404 is still possible.
 */
export async function exportDataset(
  ctx: Ctx,
  raw: { datasetId: string; split?: string | null; verdict?: { criterionId: string; judgement: string } | null },
): Promise<AsyncGenerator<ExportRow>> {
  const input = parseInput(ExportDatasetInput, raw);
  await findDataset(ctx, input.datasetId);
  const db = dbOf(ctx);
  return (async function* () {
    let after: string | null = null;
    for (;;) {
      const where: SQL[] = [eq(datasetEntries.datasetId, input.datasetId), eq(datasetEntries.projectId, ctx.projectId)];
      if (input.split) where.push(eq(datasetEntries.split, input.split));
      if (input.verdict) where.push(verdictCondition(input.verdict));
      if (after) where.push(gt(datasetEntries.id, after));
      const page = await db
        .select({
          id: datasetEntries.id,
          messages: datasetEntries.messages,
          tools: datasetEntries.tools,
          toolChoice: datasetEntries.toolChoice,
          responseFormat: datasetEntries.responseFormat,
          split: datasetEntries.split,
          metadata: datasetEntries.metadata,
        })
        .from(datasetEntries)
        .where(and(...where))
        .orderBy(asc(datasetEntries.id))
        .limit(1000);
      for (const e of page) {
        yield {
          messages: e.messages,
          tools: e.tools ?? null,
          tool_choice: e.toolChoice ?? null,
          split: e.split,
          metadata: e.metadata,
          ...(e.responseFormat ? { response_format: e.responseFormat } : {}),
        };
      }
      if (page.length < 1000) return;
      after = page.at(-1)!.id;
    }
  })();
}
