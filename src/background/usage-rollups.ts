import { systemCtx } from "../domain/context";
import type { Deps } from "../domain/deps";
import { closeUsageHours } from "../domain/logs";
import { startPeriodic, type Periodic } from "./periodic";

/** Every minute, closes the hours that ended (HONE_USAGE_CLOSE_GRACE_MS ago) into the usage rollups. */
export function startUsageRollups(deps: Deps, opts: { intervalMs?: number; firstRunMs?: number } = {}): Periodic {
  return startPeriodic({
    name: "usage rollups",
    logger: deps.logger,
    intervalMs: opts.intervalMs ?? 60_000,
    firstRunMs: opts.firstRunMs ?? 5_000,
    run: () => closeUsageHours(systemCtx(deps, "usage-rollups"), deps.clock()),
  });
}
