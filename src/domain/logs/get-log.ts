import { and, desc, eq, inArray, sql } from "drizzle-orm";
import { dbOf, type Ctx } from "../context";
import { requestLogBodies, requestLogs } from "../../db/schema";
import { notFound, parseInput } from "../../core/errors";
import { LogIdInput, type RequestLog, type RequestLogBody } from "./inputs";
import { chargeEach, LOGS_INSTEAD } from "../answer-budget";
import { logColumns } from "./internal";
import { payloadSizes } from "./store/payload-sizes";

export async function getLog(ctx: Ctx, raw: { id: string }): Promise<RequestLog> {
  const { id } = parseInput(LogIdInput, raw);
  const [row] = await dbOf(ctx)
    .select(logColumns)
    .from(requestLogs)
    .where(and(eq(requestLogs.id, id), eq(requestLogs.projectId, ctx.projectId)));
  if (!row) throw notFound("Log", id);
  return row;
}

/** Which payloads a read wants: the request (with its original), the response (likewise), or all four. */
export type LogBodyPart = "request" | "response" | "all";

/**
 * Bodies of several logs of the project in one query (batched loading in GraphQL, the detail
 * view, export pages). Their stored size is charged to the answer first (ctx.answer), once per id
 * given: an id asked for twice (two aliases) is in the answer twice. Only the columns of `part`
 * are read.
 */
export async function loadLogBodies(ctx: Ctx, ids: readonly string[], part: LogBodyPart = "all"): Promise<Map<string, RequestLogBody>> {
  if (ids.length === 0) return new Map();
  const unique = [...new Set(ids)];
  if (ctx.answer) {
    const sizes = await payloadSizes(dbOf(ctx), ctx.projectId, unique);
    const ofPart = new Map([...sizes].map(([id, s]) => [id, part === "request" ? s.req : part === "response" ? s.resp : s.req + s.resp]));
    chargeEach(ctx, ids, ofPart, LOGS_INSTEAD);
  }
  const none = sql<null>`null`;
  const rows = await dbOf(ctx)
    .select({
      logId: requestLogBodies.logId,
      reqPayload: part === "response" ? none : requestLogBodies.reqPayload,
      respPayload: part === "request" ? none : requestLogBodies.respPayload,
      reqPayloadOriginal: part === "response" ? none : requestLogBodies.reqPayloadOriginal,
      respPayloadOriginal: part === "request" ? none : requestLogBodies.respPayloadOriginal,
    })
    .from(requestLogBodies)
    .innerJoin(requestLogs, eq(requestLogs.id, requestLogBodies.logId))
    .where(and(inArray(requestLogBodies.logId, unique), eq(requestLogs.projectId, ctx.projectId)));
  return new Map(rows.map(({ logId, ...body }) => [logId, body]));
}

/** The log of the project stored last, with its bodies, or null (for the SDKs' test route). */
export async function getLatestLog(ctx: Ctx): Promise<(RequestLog & RequestLogBody) | null> {
  await ctx.deps.logWriter.flush();
  // The last one stored: ids hold the time of the call, which a report may set in the past. (A
  // testing route: its scan of the project's logs by storage time is fine.)
  const [row] = await dbOf(ctx)
    .select(logColumns)
    .from(requestLogs)
    .where(eq(requestLogs.projectId, ctx.projectId))
    .orderBy(desc(requestLogs.createdAt), desc(requestLogs.id))
    .limit(1);
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
