import { eq, inArray, sql, type SQL } from "drizzle-orm";
import type { Ctx } from "../context";
import { requestLogs } from "../../db/schema";
import { parseInput } from "../../core/errors";
import { UpdateTagsInput } from "./inputs";
import { modelSpellings } from "./internal";
import { changeTags } from "./set-log-tags";

/**
 * Merges tags into every log of the project matching all filters (an empty list matches all); a
 * null value deletes the key. Returns how many logs matched. (REST's update-metadata.) Batched and
 * capped as setLogTags is: no log ends up with more than MAX_TAGS tags.
 */
export async function updateLogTags(ctx: Ctx, raw: UpdateTagsInput): Promise<{ matchedLogs: number }> {
  const input = parseInput(UpdateTagsInput, raw);
  await ctx.deps.logWriter.flush(); // logs of calls that already returned are included
  const where: SQL[] = [eq(requestLogs.projectId, ctx.projectId)];
  const contains: Record<string, string> = {};
  for (const f of input.filters) {
    const value = String(f.equals);
    if (f.field === "model") where.push(inArray(requestLogs.model, modelSpellings(value)));
    else if (f.field === "completionId") where.push(eq(requestLogs.completionId, value));
    else contains[f.field.slice(f.field.indexOf(".") + 1)] = value;
  }
  if (Object.keys(contains).length) where.push(sql`${requestLogs.tags} @> ${JSON.stringify(contains)}::text::jsonb`);
  const set: Record<string, string> = {};
  const remove: string[] = [];
  for (const [k, v] of Object.entries(input.tags)) {
    if (v === null) remove.push(k);
    else set[k] = String(v);
  }
  return { matchedLogs: await changeTags(ctx, where, set, remove, ["metadata"]) };
}
