import { getLog, ListLogsInput, listLogs, loadLogBodies, LogIdInput, type RequestLog } from "../../../domain/logs";
import { toWireDate } from "../../dates";
import { projectProcedure, router } from "../init";

const logOut = (l: RequestLog) => ({
  ...l,
  requestedAt: toWireDate(l.requestedAt),
  receivedAt: toWireDate(l.receivedAt),
  createdAt: toWireDate(l.createdAt),
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
