import { systemCtx } from "../domain/context";
import type { Deps } from "../domain/deps";
import { deleteExpiredCacheEntries } from "../domain/cache";
import { startPeriodic, type Periodic } from "./periodic";

/** Removes expired cache entries every 10 minutes (they are never served in between either). */
export function startCacheSweep(deps: Deps, opts: { intervalMs?: number; firstRunMs?: number } = {}): Periodic {
  return startPeriodic({
    name: "cache sweep",
    logger: deps.logger,
    intervalMs: opts.intervalMs ?? 10 * 60 * 1000,
    firstRunMs: opts.firstRunMs ?? 30_000,
    run: () => deleteExpiredCacheEntries(systemCtx(deps, "cache-sweep")),
  });
}
