import { systemCtx } from "../domain/context";
import type { Deps } from "../domain/deps";
import { deleteExpiredLogs, dropExpiredLogPartitions, dropExpiredUsageRollups, ensureLogPartitions } from "../domain/logs";
import { deleteExpiredResponses } from "../domain/protocols";
import { deleteExpiredMonitorLogs } from "../domain/monitors";
import { deleteExpiredRouteVerdicts } from "../domain/routing";
import { deleteExpiredSpans } from "../domain/traces";
import { startPeriodic, type Periodic } from "./periodic";

const HOUR = 60 * 60 * 1000;

/**
 * Keeps the log partitions: shortly after start and then hourly, creates the day partitions ahead
 * and enforces HONE_LOG_RETENTION_DAYS by dropping the days wholly past the limit (hour-aligned),
 * then deleting in small batches what is past it in the day it falls in, the usage rollups of the
 * hours that are gone, and the stored Responses API conversations as old. Several processes may run it at once: an advisory lock gives partition
 * work to one of them, and their batched deletes do not conflict.
 */
export function startLogRetention(deps: Deps, opts: { intervalMs?: number; firstRunMs?: number } = {}): Periodic {
  const days = deps.config.logRetentionDays;
  return startPeriodic({
    name: "log partitions and retention",
    logger: deps.logger,
    intervalMs: opts.intervalMs ?? HOUR,
    firstRunMs: opts.firstRunMs ?? 10_000,
    run: async () => {
      const ctx = systemCtx(deps, "log-retention");
      const now = deps.clock();
      await ensureLogPartitions(ctx, now);
      if (!days) return 0;
      const before = new Date(Math.floor((now.getTime() - days * 24 * HOUR) / HOUR) * HOUR);
      await dropExpiredLogPartitions(ctx, before);
      const deleted = await deleteExpiredLogs(ctx, { before });
      await dropExpiredUsageRollups(ctx, before);
      // The Responses API's stored conversations hold what the logs hold: kept as long.
      await deleteExpiredResponses(ctx, { before });
      // Routes' judged samples sum up the logs: kept as long.
      await deleteExpiredRouteVerdicts(ctx, { before });
      // What monitors remember of calls that are gone.
      await deleteExpiredMonitorLogs(ctx, { before });
      // Traces' spans (docs/traces.md): kept as long as their logs.
      await deleteExpiredSpans(ctx, { before });
      return deleted;
    },
  });
}
