import { asc, eq, inArray, sql } from "drizzle-orm";
import { dbOf, type Ctx } from "../../context";
import { alignmentRows, alignmentVerdicts } from "../../db/schema";
import { parseInput } from "../../errors";
import { chargeAnswer, ROWS_INSTEAD } from "../answer-budget";
import { ownCriterionId } from "./internal";
import { CriterionIdInput, type AlignmentRow, type AlignmentVerdict } from "./schemas";

/**
 * The whole alignment set (at most MAX_ALIGNMENT_ROWS per import), oldest first, each row with the
 * verdict of every version that judged it, oldest version first.
 */
export async function listAlignmentRows(ctx: Ctx, raw: CriterionIdInput): Promise<(AlignmentRow & { verdicts: AlignmentVerdict[] })[]> {
  const criterionId = await ownCriterionId(ctx, parseInput(CriterionIdInput, raw).criterionId);
  if (ctx.answer) {
    // Sized first (kept by a trigger on every write; measured for older rows), charged, then read.
    const [sized] = await dbOf(ctx)
      .select({
        bytes: sql<number>`coalesce(sum(coalesce(${alignmentRows.bytes}, octet_length(${alignmentRows.messages}::text)
          + coalesce(octet_length(${alignmentRows.tools}::text), 0) + coalesce(octet_length(${alignmentRows.toolChoice}::text), 0)
          + octet_length(${alignmentRows.output}::text))), 0)`,
      })
      .from(alignmentRows)
      .where(eq(alignmentRows.criterionId, criterionId));
    chargeAnswer(ctx, Number(sized?.bytes ?? 0), ROWS_INSTEAD);
  }
  const rows = await dbOf(ctx).select().from(alignmentRows).where(eq(alignmentRows.criterionId, criterionId)).orderBy(asc(alignmentRows.id));
  const verdicts = rows.length
    ? await dbOf(ctx)
        .select()
        .from(alignmentVerdicts)
        .where(
          inArray(alignmentVerdicts.rowId, dbOf(ctx).select({ id: alignmentRows.id }).from(alignmentRows).where(eq(alignmentRows.criterionId, criterionId))),
        )
        .orderBy(asc(alignmentVerdicts.version))
    : [];
  const byRow = new Map<string, AlignmentVerdict[]>();
  for (const v of verdicts) {
    const list = byRow.get(v.rowId) ?? [];
    list.push({ version: v.version, verdict: v.verdict, explanation: v.explanation, error: v.error, judgedAt: v.createdAt });
    byRow.set(v.rowId, list);
  }
  return rows.map(({ criterionId: _, ...r }) => ({ ...r, verdicts: byRow.get(r.id) ?? [] }));
}
