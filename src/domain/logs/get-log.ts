import { and, desc, eq, inArray } from "drizzle-orm";
import { dbOf, type Ctx } from "../../context";
import { requestLogBodies, requestLogs } from "../../db/schema";
import { notFound, parseInput } from "../../errors";
import { LogIdInput, type RequestLog, type RequestLogBody } from "./inputs";
import { logColumns } from "./internal";

export async function getLog(ctx: Ctx, raw: { id: string }): Promise<RequestLog> {
  const { id } = parseInput(LogIdInput, raw);
  const [row] = await dbOf(ctx)
    .select(logColumns)
    .from(requestLogs)
    .where(and(eq(requestLogs.id, id), eq(requestLogs.projectId, ctx.projectId)));
  if (!row) throw notFound("Log", id);
  return row;
}

/** Bodies of several logs of the project in one query (for batched loading in GraphQL). */
export async function loadLogBodies(ctx: Ctx, ids: readonly string[]): Promise<Map<string, RequestLogBody>> {
  if (ids.length === 0) return new Map();
  const rows = await dbOf(ctx)
    .select({
      logId: requestLogBodies.logId,
      reqPayload: requestLogBodies.reqPayload,
      respPayload: requestLogBodies.respPayload,
      reqPayloadOriginal: requestLogBodies.reqPayloadOriginal,
      respPayloadOriginal: requestLogBodies.respPayloadOriginal,
    })
    .from(requestLogBodies)
    .innerJoin(requestLogs, eq(requestLogs.id, requestLogBodies.logId))
    .where(and(inArray(requestLogBodies.logId, [...ids]), eq(requestLogs.projectId, ctx.projectId)));
  return new Map(rows.map(({ logId, ...body }) => [logId, body]));
}

/** The newest log of the project with its bodies, or null (for the SDKs' test route). */
export async function getLatestLog(ctx: Ctx): Promise<(RequestLog & RequestLogBody) | null> {
  await ctx.deps.logWriter.flush();
  const [row] = await dbOf(ctx).select(logColumns).from(requestLogs).where(eq(requestLogs.projectId, ctx.projectId)).orderBy(desc(requestLogs.id)).limit(1);
  if (!row) return null;
  const body = (await loadLogBodies(ctx, [row.id])).get(row.id);
  return { ...row, reqPayload: null, respPayload: null, reqPayloadOriginal: null, respPayloadOriginal: null, ...body };
}

/** Several logs of the project by id, in one query. */
export async function loadLogs(ctx: Ctx, ids: readonly string[]): Promise<Map<string, RequestLog>> {
  if (!ids.length) return new Map();
  const rows = await dbOf(ctx)
    .select(logColumns)
    .from(requestLogs)
    .where(and(inArray(requestLogs.id, [...ids]), eq(requestLogs.projectId, ctx.projectId)));
  return new Map(rows.map((r) => [r.id, r]));
}
