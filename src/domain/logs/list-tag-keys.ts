import { desc, eq, sql } from "drizzle-orm";
import { dbOf, type Ctx } from "../context";
import { requestLogs } from "../../db/schema";
import { MAX_TAG_KEY_SUGGESTIONS, TAG_SUGGESTION_SAMPLE } from "../../core/limits";

/**
 * The tag keys of the project's newest TAG_SUGGESTION_SAMPLE logs with how many of them carry
 * each, most frequent first (at most MAX_TAG_KEY_SUGGESTIONS): suggestions for a filter bar, read
 * from a bounded sample so the cost does not grow with the project.
 */
export async function listTagKeys(ctx: Ctx): Promise<{ key: string; count: number }[]> {
  const db = dbOf(ctx);
  const recent = db
    .select({ metadata: requestLogs.tags })
    .from(requestLogs)
    .where(eq(requestLogs.projectId, ctx.projectId))
    .orderBy(desc(requestLogs.id))
    .limit(TAG_SUGGESTION_SAMPLE)
    .as("recent");
  const count = sql<number>`count(*)::int`;
  const key = sql<string>`k.key`;
  return db
    .select({ key, count })
    .from(recent)
    .innerJoin(sql`jsonb_each_text(${recent.metadata}) as k`, sql`true`)
    .groupBy(key)
    .orderBy(desc(count), key)
    .limit(MAX_TAG_KEY_SUGGESTIONS);
}
