import { sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import { dbOf, type Ctx } from "../context";
import { requestLogs } from "../../db/schema";
import { DomainError, parseInput } from "../../core/errors";
import { MAX_TAG_KEY_LENGTH, MAX_TAG_VALUE_LENGTH, MAX_TAGS, TAG_UPDATE_BATCH } from "../../core/limits";
import { LogFilter } from "./inputs";
import { logConditions, resultRows, whereAll } from "./internal";
import { refreshRollupsForLogs } from "./store/rollups";

const TagKey = z.string().min(1).max(MAX_TAG_KEY_LENGTH, `a tag key may be at most ${MAX_TAG_KEY_LENGTH} characters`);

export const SetLogTagsInput = z
  .strictObject({
    /** The logs to change: a filter, or a selection (`filter.ids`); an empty filter is every log of the project. */
    filter: LogFilter,
    /** Tags to add or replace. */
    set: z
      .record(TagKey, z.string().max(MAX_TAG_VALUE_LENGTH, `a tag value may be at most ${MAX_TAG_VALUE_LENGTH} characters`))
      .refine((t) => Object.keys(t).length <= MAX_TAGS, `at most ${MAX_TAGS} tags (MAX_TAGS)`)
      .nullish(),
    /** Tag keys to remove. */
    remove: z.array(TagKey).max(MAX_TAGS, `at most ${MAX_TAGS} keys to remove`).nullish(),
  })
  .superRefine((v, c) => {
    const set = Object.keys(v.set ?? {});
    if (!set.length && !v.remove?.length) c.addIssue({ code: "custom", path: ["set"], message: "nothing to change: give set or remove" });
    const both = set.find((k) => v.remove?.includes(k));
    if (both !== undefined) c.addIssue({ code: "custom", path: ["remove"], message: `tag ${both} is both set and removed` });
  });
export type SetLogTagsInput = z.input<typeof SetLogTagsInput>;

/**
 * Adds, replaces and removes tags on every log of the project matching the filter, as
 * update-metadata does (values are strings, a removed key is gone). Logs are changed
 * TAG_UPDATE_BATCH at a time, newest first, each batch its own statement, so a filter matching
 * millions of logs never holds one long transaction. Refused whole (VALIDATION, nothing changed)
 * when a log would end up with more than MAX_TAGS tags. Returns how many logs matched.
 */
export async function setLogTags(ctx: Ctx, raw: SetLogTagsInput): Promise<{ updated: number }> {
  const input = parseInput(SetLogTagsInput, raw);
  await ctx.deps.logWriter.flush(); // logs of calls that already returned are included
  return { updated: await changeTags(ctx, logConditions(ctx.projectId, input.filter), input.set ?? {}, input.remove ?? [], ["set"]) };
}

/**
 * Sets and removes tags on every log of the project matching `where`, TAG_UPDATE_BATCH logs at a
 * time (newest first, each batch its own transaction), after checking no log would end up with
 * more than MAX_TAGS tags (a VALIDATION error at `path`, nothing changed). The usage rollups follow
 * when the usage tag key changes. Returns how many logs matched.
 */
export async function changeTags(ctx: Ctx, where: SQL[], set: Record<string, string>, remove: string[], path: string[]): Promise<number> {
  const db = dbOf(ctx);
  const merged: SQL = sql`((${requestLogs.tags}${sql.join(remove.map((k) => sql` - ${k}::text`))}) || ${JSON.stringify(set)}::text::jsonb)`;

  if (Object.keys(set).length) {
    const [over] = resultRows<{ id: string }>(
      await db.execute(sql`select ${requestLogs.id} as id from ${requestLogs}
        where ${whereAll(where)} and (select count(*) from jsonb_object_keys(${merged})) > ${MAX_TAGS} limit 1`),
    );
    if (over) {
      const message = `log ${over.id} would have more than ${MAX_TAGS} tags (MAX_TAGS); remove some first`;
      throw new DomainError("VALIDATION", message, { issues: [{ message, path }] });
    }
  }

  const tagKey = ctx.deps.config.usageTagKey;
  const rollupTag = tagKey in set || remove.includes(tagKey);
  let updated = 0;
  let before: string | null = null;
  for (;;) {
    const batchWhere: SQL[] = before === null ? where : [...where, sql`${requestLogs.id} < ${before}`];
    const rows: { id: string }[] = await db.transaction(async (tx) => {
      const changed = resultRows<{ id: string }>(
        await tx.execute(sql`
          with batch as (
            select ${requestLogs.id} as id from ${requestLogs} where ${whereAll(batchWhere)}
            order by ${requestLogs.id} desc limit ${TAG_UPDATE_BATCH}
          )
          update ${requestLogs} set metadata = ${merged} from batch where ${requestLogs.id} = batch.id
          returning ${requestLogs.id} as id`),
      );
      // The usage rollups are split by this key: the closed hours of these logs are summed again.
      if (rollupTag)
        await refreshRollupsForLogs(
          tx,
          ctx.projectId,
          changed.map((r) => r.id),
        );
      return changed;
    });
    updated += rows.length;
    if (rows.length < TAG_UPDATE_BATCH) return updated;
    before = rows.map((r) => r.id).sort()[0]!; // the oldest of the batch
  }
}
