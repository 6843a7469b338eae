import { desc, eq, sql } from "drizzle-orm";
import { dbOf, type Ctx } from "../context";
import { requestLogs } from "../../db/schema";
import { MAX_TAG_VALUE_SUGGESTIONS, TAG_SUGGESTION_SAMPLE } from "../../core/limits";

/** `answered`: of `count`, the calls that got an answer (2xx): a model string that never answered is a typo, not a model. */
export type LogFacets = { models: { value: string; count: number; answered: number }[]; providers: { value: string; count: number }[] };

/**
 * The models and providers of the project's newest TAG_SUGGESTION_SAMPLE logs, most frequent
 * first (at most MAX_TAG_VALUE_SUGGESTIONS each): the filter bar's suggestions, read from one
 * short index walk however many logs the project holds.
 */
export async function listLogFacets(ctx: Ctx): Promise<LogFacets> {
  const db = dbOf(ctx);
  const recent = db
    .select({ model: requestLogs.model, provider: requestLogs.provider, status: requestLogs.statusCode })
    .from(requestLogs)
    .where(eq(requestLogs.projectId, ctx.projectId))
    .orderBy(desc(requestLogs.id))
    .limit(TAG_SUGGESTION_SAMPLE)
    .as("recent");
  const count = sql<number>`count(*)::int`;
  const [models, providers] = await Promise.all([
    db
      .select({ value: recent.model, count, answered: sql<number>`(count(*) filter (where ${recent.status} between 200 and 299))::int` })
      .from(recent)
      .where(sql`${recent.model} is not null`)
      .groupBy(recent.model)
      .orderBy(desc(count), recent.model)
      .limit(MAX_TAG_VALUE_SUGGESTIONS),
    db
      .select({ value: recent.provider, count })
      .from(recent)
      .where(sql`${recent.provider} is not null`)
      .groupBy(recent.provider)
      .orderBy(desc(count), recent.provider)
      .limit(MAX_TAG_VALUE_SUGGESTIONS),
  ]);
  const out = (rows: { value: string | null; count: number }[]) => rows.map((r) => ({ value: r.value ?? "", count: r.count }));
  return { models: models.map((r) => ({ value: r.value ?? "", count: r.count, answered: Number(r.answered) })), providers: out(providers) };
}
