import { desc, lt } from "drizzle-orm";
import { dbOf, type Ctx } from "../../context";
import { requestLogs } from "../../db/schema";
import { parseInput } from "../../errors";
import { checkPageSize } from "../../limits";
import { ListLogsInput, type RequestLogPage } from "./inputs";
import { decodeLogCursor, encodeLogCursor, logColumns, logConditions, whereAll } from "./internal";

/**
 * The project's logs, newest first, keyset-paginated on the time-ordered id: logs inserted while
 * a client pages never shift or repeat the pages it has yet to read.
 */
export async function listLogs(ctx: Ctx, raw: ListLogsInput): Promise<RequestLogPage> {
  const input = parseInput(ListLogsInput, raw);
  checkPageSize(input.first, ctx.deps.config.maxPageSize);
  const first = input.first ?? 50;
  const where = logConditions(ctx.projectId, input.filter);
  if (input.after) where.push(lt(requestLogs.id, decodeLogCursor(input.after)));
  const rows = await dbOf(ctx)
    .select(logColumns)
    .from(requestLogs)
    .where(whereAll(where))
    .orderBy(desc(requestLogs.id))
    .limit(first + 1);
  const logs = rows.slice(0, first);
  return { logs, hasNextPage: rows.length > first, endCursor: logs.length ? encodeLogCursor(logs.at(-1)!.id) : null };
}
