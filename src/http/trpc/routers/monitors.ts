import { ListPageInput } from "../../../domain/list-page";
import {
  backfillMonitor,
  BackfillMonitorInput,
  createMonitor,
  CreateMonitorInput,
  deleteMonitor,
  getMonitor,
  listMonitors,
  type Monitor,
  MonitorIdInput,
  updateMonitor,
  UpdateMonitorInput,
} from "../../../domain/monitors";
import { toWireDate } from "../../dates";
import { projectProcedure, router } from "../init";

const monitorOut = (m: Monitor) => ({ ...m, createdAt: toWireDate(m.createdAt), updatedAt: toWireDate(m.updatedAt) });

export const monitorsRouter = router({
  list: projectProcedure.input(ListPageInput).query(async ({ ctx, input }) => (await listMonitors(ctx.project, input)).map(monitorOut)),
  get: projectProcedure.input(MonitorIdInput).query(async ({ ctx, input }) => monitorOut(await getMonitor(ctx.project, input))),
  create: projectProcedure.input(CreateMonitorInput).mutation(async ({ ctx, input }) => monitorOut(await createMonitor(ctx.project, input))),
  /** Changes what it keeps (from the next calls on), or pauses (status PAUSED) and resumes (ACTIVE) it. */
  update: projectProcedure.input(UpdateMonitorInput).mutation(async ({ ctx, input }) => monitorOut(await updateMonitor(ctx.project, input))),
  delete: projectProcedure.input(MonitorIdInput).mutation(({ ctx, input }) => deleteMonitor(ctx.project, input)),
  /** Offers it the calls of a time range, as if it had been running then. */
  backfill: projectProcedure.input(BackfillMonitorInput).mutation(({ ctx, input }) => backfillMonitor(ctx.project, input)),
});
