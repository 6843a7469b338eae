import { sql } from "drizzle-orm";
import { z } from "zod";
import { dbOf, type Ctx } from "../context";
import { parseInput } from "../../core/errors";
import { MAX_ID_LENGTH } from "../../core/limits";
import { logIdAt, resultRows } from "../logs";
import { findModelRow, modelNotFound } from "./internal";

export const ModelUsageInput = z.strictObject({
  slug: z.string().min(1).max(MAX_ID_LENGTH),
  /** The last this many days (default 30). */
  days: z.number().int().min(1).max(90).nullish(),
});
export type ModelUsageInput = z.input<typeof ModelUsageInput>;

export type ModelUsage = {
  days: number;
  /** The application's calls to hone:<slug> (not through a route), answered or not. */
  requests: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  /** Tokens its pruning rules removed from those requests before they went upstream (prompt tokens not paid for). */
  prunedTokens: number;
};

/**
 * What the application's calls to a fine-tune used over the last days, and what its pruning rules
 * saved on them: from the logs of calls made to `hone:<slug>` (calls through a route are counted
 * under the route).
 */
export async function modelUsage(ctx: Ctx, raw: ModelUsageInput): Promise<ModelUsage> {
  const input = parseInput(ModelUsageInput, raw);
  const row = await findModelRow(ctx, input.slug);
  if (!row) throw modelNotFound(input.slug);
  const days = input.days ?? 30;
  const since = logIdAt(new Date(ctx.deps.clock().getTime() - days * 86_400_000));
  const [r] = resultRows<{ requests: number; input: number | null; output: number | null; cost: number | null; pruned: number | null }>(
    await dbOf(ctx).execute(sql`
      select count(*)::int as requests, sum(input_tokens)::float8 as input, sum(output_tokens)::float8 as output,
        sum(cost_usd) as cost, sum(pruned_tokens)::float8 as pruned
      from request_logs
      where project_id = ${ctx.projectId} and id >= ${since} and model = ${`${ctx.deps.config.modelPrefixes[0]}:${row.slug}`} and source = 'gateway'`),
  );
  return {
    days,
    requests: Number(r?.requests ?? 0),
    inputTokens: Number(r?.input ?? 0),
    outputTokens: Number(r?.output ?? 0),
    costUsd: Number(r?.cost ?? 0),
    prunedTokens: Number(r?.pruned ?? 0),
  };
}
