import { getLog, ListLogsInput, listLogs, loadLogBodies, LogIdInput, type RequestLog } from "../../../domain/logs";
import { projectProcedure, router } from "../init";

const logOut = (l: RequestLog) => ({
  ...l,
  requestedAt: l.requestedAt?.toISOString() ?? null,
  receivedAt: l.receivedAt?.toISOString() ?? null,
  createdAt: l.createdAt.toISOString(),
});

export const logsRouter = router({
  list: projectProcedure.input(ListLogsInput).query(async ({ ctx, input }) => {
    const page = await listLogs(ctx.project, input);
    return { ...page, logs: page.logs.map(logOut) };
  }),
  get: projectProcedure.input(LogIdInput).query(async ({ ctx, input }) => {
    const log = await getLog(ctx.project, input);
    const body = (await loadLogBodies(ctx.project, [log.id])).get(log.id);
    return { ...logOut(log), reqPayload: body?.reqPayload ?? null, respPayload: body?.respPayload ?? null };
  }),
});
