import { desc, eq, sql } from "drizzle-orm";
import { z } from "zod";
import { dbOf, type Ctx } from "../context";
import { requestLogs } from "../../db/schema";
import { parseInput } from "../../core/errors";
import { MAX_TAG_KEY_LENGTH, MAX_TAG_VALUE_LENGTH, MAX_TAG_VALUE_SUGGESTIONS, TAG_SUGGESTION_SAMPLE } from "../../core/limits";

export const ListTagValuesInput = z.strictObject({
  key: z.string().min(1).max(MAX_TAG_KEY_LENGTH),
  /** Only values starting with this (case-insensitive). */
  prefix: z.string().max(MAX_TAG_VALUE_LENGTH).nullish(),
});
export type ListTagValuesInput = z.input<typeof ListTagValuesInput>;

/**
 * The most frequent values of one tag key in the project's newest TAG_SUGGESTION_SAMPLE logs
 * (at most MAX_TAG_VALUE_SUGGESTIONS), optionally only those starting with `prefix`.
 */
export async function listTagValues(ctx: Ctx, raw: ListTagValuesInput): Promise<{ value: string; count: number }[]> {
  const input = parseInput(ListTagValuesInput, raw);
  const db = dbOf(ctx);
  const recent = db
    .select({ value: sql<string | null>`${requestLogs.tags} ->> ${input.key}`.as("value") })
    .from(requestLogs)
    .where(eq(requestLogs.projectId, ctx.projectId))
    .orderBy(desc(requestLogs.id))
    .limit(TAG_SUGGESTION_SAMPLE)
    .as("recent");
  const count = sql<number>`count(*)::int`;
  const prefix = input.prefix ? `${input.prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null;
  const rows = await db
    .select({ value: recent.value, count })
    .from(recent)
    .where(prefix ? sql`${recent.value} ilike ${prefix}` : sql`${recent.value} is not null`)
    .groupBy(recent.value)
    .orderBy(desc(count), recent.value)
    .limit(MAX_TAG_VALUE_SUGGESTIONS);
  return rows.map((r) => ({ value: r.value ?? "", count: r.count }));
}
