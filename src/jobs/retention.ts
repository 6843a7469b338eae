import { systemCtx } from "../context";
import type { Deps } from "../deps";
import { deleteExpiredLogs } from "../domain/logs";
import { errorFields } from "../logger";

const HOUR = 60 * 60 * 1000;

/**
 * Enforces HONE_LOG_RETENTION_DAYS: shortly after start and then hourly, deletes logs older than
 * the limit in small batches. Several processes may run it at once; their deletes do not conflict.
 */
export function startLogRetention(deps: Deps, opts: { intervalMs?: number; firstRunMs?: number } = {}): { stop(): void; runOnce(): Promise<number> } {
  const days = deps.config.logRetentionDays;
  const runOnce = async () => {
    if (!days) return 0;
    const before = new Date(deps.clock().getTime() - days * 24 * HOUR);
    try {
      const deleted = await deleteExpiredLogs(systemCtx(deps, "log-retention"), { before });
      if (deleted) deps.logger.info("log retention", { deleted, before: before.toISOString() });
      return deleted;
    } catch (err) {
      deps.logger.error("log retention failed", errorFields(err));
      return 0;
    }
  };
  if (!days) return { stop() {}, runOnce };
  let timer: ReturnType<typeof setTimeout> | null = null;
  let stopped = false;
  const loop = async () => {
    await runOnce();
    if (!stopped) timer = setTimeout(loop, opts.intervalMs ?? HOUR);
  };
  timer = setTimeout(loop, opts.firstRunMs ?? 10_000);
  return {
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
    runOnce,
  };
}
