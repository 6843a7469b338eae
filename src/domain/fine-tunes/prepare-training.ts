import { and, eq, sql } from "drizzle-orm";
import { type Ctx, dbOf } from "../context";
import { datasetEntries, routes } from "../../db/schema";
import { DomainError } from "../../core/errors";
import { findDataset } from "../datasets";
import { resolveCriterion } from "../criteria";

function bad(message: string, path: (string | number)[]): DomainError {
  return new DomainError("VALIDATION", message, { issues: [{ message, path }] });
}

/** What every fine-tune checks before it is made: its slug is free of routes, its dataset has what the method trains on. */
export async function prepareTraining(
  ctx: Ctx,
  input: { datasetId: string; slug: string; excludeFailing?: string[] | null; method?: "sft" | "dpo" | null; beta?: number | null },
): Promise<{ dataset: Awaited<ReturnType<typeof findDataset>>; excludeFailing: string[]; method: "sft" | "dpo"; trainEntries: number }> {
  const [route] = await dbOf(ctx)
    .select({ id: routes.id })
    .from(routes)
    .where(and(eq(routes.projectId, ctx.projectId), eq(routes.slug, input.slug)));
  if (route) throw new DomainError("CONFLICT", `A route is named ${input.slug}: a fine-tune and a route share hone:<slug>`);
  const dataset = await findDataset(ctx, input.datasetId);
  const excludeFailing: string[] = [];
  for (const ref of input.excludeFailing ?? []) excludeFailing.push((await resolveCriterion(ctx, ref)).criterionId);
  if (dataset.entryCount === 0) throw bad(`Dataset ${dataset.id} has no entries to train on`, ["datasetId"]);
  const method = input.method ?? "sft";
  if (input.beta != null && method !== "dpo") throw bad("beta applies to DPO fine-tunes only (method: dpo)", ["beta"]);
  if (method === "dpo") {
    const [pair] = await dbOf(ctx)
      .select({ id: datasetEntries.id })
      .from(datasetEntries)
      .where(and(eq(datasetEntries.datasetId, dataset.id), eq(datasetEntries.split, "TRAIN"), sql`jsonb_array_length(${datasetEntries.rejectedOutputs}) > 0`))
      .limit(1);
    if (!pair) {
      throw bad(
        `Dataset ${dataset.id} has no TRAIN entry with a rejected output: DPO trains on preference pairs (accept a relabel run, edit an output, or import best-of-N calls judged by criteria)`,
        ["method"],
      );
    }
  }

  // The TRAIN entries as the model is made (the backend's step counts them again, less those it leaves out).
  const [counted] = await dbOf(ctx)
    .select({ n: sql<number>`count(*)::int` })
    .from(datasetEntries)
    .where(and(eq(datasetEntries.datasetId, dataset.id), eq(datasetEntries.split, "TRAIN")));
  return { dataset, excludeFailing, method, trainEntries: Number(counted?.n ?? 0) };
}
