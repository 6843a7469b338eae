import { eq } from "drizzle-orm";
import { dbOf, type Ctx } from "../context";
import { alignmentRows } from "../../db/schema";
import { parseInput } from "../../core/errors";
import { judgeAlignmentRows, storeAlignmentStats } from "./alignment";
import { resolveCriterion } from "./internal";
import { RunAlignmentInput, type AlignmentStats } from "./schemas";

/**
 * Runs one criterion version (the latest when none is given) over the whole alignment set within
 * the request and answers its statistics (the GraphQL `runAlignment` contract). The verdicts and
 * statistics are stored, replacing those of an earlier run of the same version. For a large set,
 * `startAlignmentRun` does the same in the background.
 */
export async function runAlignment(ctx: Ctx, raw: RunAlignmentInput): Promise<AlignmentStats> {
  const input = parseInput(RunAlignmentInput, raw);
  const criterion = await resolveCriterion(ctx, input.version ? `${input.criterionId}@v${input.version}` : input.criterionId);
  const rows = await dbOf(ctx).select().from(alignmentRows).where(eq(alignmentRows.criterionId, criterion.criterionId));
  await judgeAlignmentRows(ctx, criterion, rows);
  return storeAlignmentStats(ctx, criterion);
}
