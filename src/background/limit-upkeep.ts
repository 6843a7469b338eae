import type { Deps } from "../domain/deps";
import { purgeOldAudit } from "../domain/audit";
import { alertExpiringKeys, deleteOldCounters } from "../domain/webhooks";
import { startPeriodic, type Periodic } from "./periodic";

/** Every minute: alerts keys near expiry, deletes limit counters of windows long over and audit events past HONE_AUDIT_RETENTION_DAYS. */
export function startLimitUpkeep(deps: Deps, opts: { intervalMs?: number; firstRunMs?: number } = {}): Periodic {
  return startPeriodic({
    name: "limit upkeep",
    logger: deps.logger,
    intervalMs: opts.intervalMs ?? 60_000,
    firstRunMs: opts.firstRunMs ?? 5_000,
    run: async () => (await alertExpiringKeys(deps)) + (await deleteOldCounters(deps)) + (await purgeOldAudit(deps)),
  });
}
