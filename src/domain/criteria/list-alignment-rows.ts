import { and, asc, gt, inArray, sql } from "drizzle-orm";
import { z } from "zod";
import { dbOf, type Ctx } from "../context";
import { alignmentRows, alignmentVerdicts, criteria } from "../../db/schema";
import { parseInput } from "../../core/errors";
import { checkPageSize, MAX_ID_LENGTH } from "../../core/limits";
import { chargeAnswer, ROWS_INSTEAD } from "../answer-budget";
import { resultRows } from "../logs";
import { ownCriterionId } from "./internal";
import type { AlignmentRow, AlignmentVerdict } from "./schemas";

export const ListAlignmentRowsInput = z.strictObject({
  criterionId: z.string().min(1).max(120),
  /** Rows per page (default and ceiling HONE_MAX_PAGE_SIZE), oldest first. */
  first: z.number().int().min(1, "first must be at least 1").nullish(),
  /** The last row id of the previous page. */
  after: z.string().min(1).max(MAX_ID_LENGTH).nullish(),
});
export type ListAlignmentRowsInput = z.input<typeof ListAlignmentRowsInput>;

export type AlignmentRowWithVerdicts = AlignmentRow & { verdicts: AlignmentVerdict[] };
export type AlignmentRowPageArgs = { first?: number | null; after?: string | null };

/**
 * A page of a criterion's alignment set (oldest first), each row with the verdict of every version
 * that judged it, oldest version first.
 */
export async function listAlignmentRows(ctx: Ctx, raw: ListAlignmentRowsInput): Promise<AlignmentRowWithVerdicts[]> {
  const input = parseInput(ListAlignmentRowsInput, raw);
  const criterionId = await ownCriterionId(ctx, input.criterionId);
  return (await loadAlignmentRowPages(ctx, [criterionId], input)).get(criterionId) ?? [];
}

/**
 * The same page of several criteria of the project at once (a GraphQL list of criteria asking for
 * their rows): three queries whatever their number. The page's stored size is charged to the
 * answer before its content is read.
 */
export async function loadAlignmentRowPages(
  ctx: Ctx,
  criterionIds: readonly string[],
  page: AlignmentRowPageArgs,
): Promise<Map<string, AlignmentRowWithVerdicts[]>> {
  const out = new Map<string, AlignmentRowWithVerdicts[]>();
  if (!criterionIds.length) return out;
  checkPageSize(page.first, ctx.deps.config.maxPageSize);
  const first = page.first ?? ctx.deps.config.maxPageSize;
  const db = dbOf(ctx);
  // The page of each (of the project's criteria only), numbered within it, with each row's stored size.
  const numbered = sql`
    select ${alignmentRows.id} as id, coalesce(${alignmentRows.bytes}, octet_length(${alignmentRows.messages}::text)
        + coalesce(octet_length(${alignmentRows.tools}::text), 0) + coalesce(octet_length(${alignmentRows.toolChoice}::text), 0)
        + octet_length(${alignmentRows.output}::text)) as size,
      row_number() over (partition by ${alignmentRows.criterionId} order by ${alignmentRows.id}) as n
    from ${alignmentRows} join ${criteria} c on c.id = ${alignmentRows.criterionId} and c.project_id = ${ctx.projectId}
    where ${and(inArray(alignmentRows.criterionId, [...criterionIds]), page.after ? gt(alignmentRows.id, page.after) : undefined)}`;
  const [sized] = resultRows<{ bytes: number | null; n: number }>(
    await db.execute(sql`select sum(size)::float8 as bytes, count(*)::int as n from (${numbered}) x where n <= ${first}`),
  );
  if (!Number(sized?.n ?? 0)) return out;
  chargeAnswer(ctx, Number(sized?.bytes ?? 0), ROWS_INSTEAD);
  const inPage = sql`${alignmentRows.id} in (select id from (${numbered}) x where n <= ${first})`;
  const rows = await db.select().from(alignmentRows).where(inPage).orderBy(asc(alignmentRows.id));
  const verdicts = await db
    .select()
    .from(alignmentVerdicts)
    .where(sql`${alignmentVerdicts.rowId} in (select id from (${numbered}) x where n <= ${first})`)
    .orderBy(asc(alignmentVerdicts.version));
  const byRow = new Map<string, AlignmentVerdict[]>();
  for (const v of verdicts) {
    const list = byRow.get(v.rowId) ?? [];
    list.push({ version: v.version, verdict: v.verdict, explanation: v.explanation, error: v.error, judgedAt: v.createdAt });
    byRow.set(v.rowId, list);
  }
  for (const { criterionId, ...r } of rows) {
    const list = out.get(criterionId) ?? [];
    list.push({ ...r, verdicts: byRow.get(r.id) ?? [] });
    out.set(criterionId, list);
  }
  return out;
}
