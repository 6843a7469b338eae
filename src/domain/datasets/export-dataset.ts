import { and, asc, eq, gt, type SQL } from "drizzle-orm";
import { z } from "zod";
import { dbOf, type Ctx } from "../../context";
import { datasetEntries } from "../../db/schema";
import { parseInput } from "../../errors";
import { findDataset, verdictCondition, verdictsOfEntries } from "./internal";
import { DatasetId, Split, VerdictFilter } from "./schemas";

const ExportDatasetInput = z.object({
  datasetId: DatasetId,
  split: Split.nullish(),
  verdict: VerdictFilter.nullish(),
  // A query string gives "true"/"false"; anything else is refused rather than read as false.
  includeVerdicts: z
    .union([z.boolean(), z.enum(["true", "false"], { error: "includeVerdicts must be true or false" }).transform((v) => v === "true")])
    .nullish(),
});

/** One verdict in an exported row: the REST wire's snake_case names. */
type ExportVerdict = {
  criterion_id: string;
  version: number;
  judgement: "PASS" | "FAIL" | null;
  score: number | null;
  explanation: string | null;
  error: string | null;
  judged_at: string;
};

type ExportRow = {
  messages: unknown[];
  tools: unknown[] | null;
  tool_choice: unknown;
  split: "TRAIN" | "TEST";
  metadata: Record<string, string>;
  response_format?: unknown;
  /** Only when asked (includeVerdicts): the latest verdict of each criterion, [] when never judged. */
  verdicts?: ExportVerdict[];
};

/**
 * The dataset's entries as JSONL rows, read 1,000 at a time by key: memory stays flat whatever
 * the dataset's size. Checks the dataset before the first row, so a 404 is still possible.
 */
export async function exportDataset(
  ctx: Ctx,
  raw: { datasetId: string; split?: string | null; verdict?: { criterionId: string; judgement: string } | null; includeVerdicts?: boolean | string | null },
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
      const verdicts = input.includeVerdicts
        ? await verdictsOfEntries(
            db,
            ctx.projectId,
            page.map((e) => e.id),
          )
        : null;
      for (const e of page) {
        yield {
          messages: e.messages,
          tools: e.tools ?? null,
          tool_choice: e.toolChoice ?? null,
          split: e.split,
          metadata: e.metadata,
          ...(e.responseFormat ? { response_format: e.responseFormat } : {}),
          ...(verdicts
            ? {
                verdicts: (verdicts.get(e.id) ?? []).map((v) => ({
                  criterion_id: v.criterionId,
                  version: v.version,
                  judgement: v.judgement,
                  score: v.score,
                  explanation: v.explanation,
                  error: v.error,
                  judged_at: v.judgedAt.toISOString(),
                })),
              }
            : {}),
        };
      }
      if (page.length < 1000) return;
      after = page.at(-1)!.id;
    }
  })();
}
