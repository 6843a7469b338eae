import { systemCtx } from "../context";
import type { Deps } from "../deps";
import { deleteExpiredLogs } from "../domain/logs";
import { startPeriodic, type Periodic } from "./periodic";

const HOUR = 60 * 60 * 1000;

/**
 * Enforces HONE_LOG_RETENTION_DAYS: shortly after start and then hourly, deletes logs older than
 * the limit in small batches. Several processes may run it at once; their deletes do not conflict.
 */
export function startLogRetention(deps: Deps, opts: { intervalMs?: number; firstRunMs?: number } = {}): Periodic {
  const days = deps.config.logRetentionDays;
  return startPeriodic({
    name: "log retention",
    logger: deps.logger,
    intervalMs: opts.intervalMs ?? HOUR,
    firstRunMs: opts.firstRunMs ?? 10_000,
    enabled: Boolean(days),
    run: async () => {
      if (!days) return 0;
      const before = new Date(deps.clock().getTime() - days * 24 * HOUR);
      return deleteExpiredLogs(systemCtx(deps, "log-retention"), { before });
    },
  });
}
