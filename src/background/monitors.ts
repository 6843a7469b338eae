import type { Deps } from "../domain/deps";
import { runMonitorsOnce } from "../domain/monitors";
import { errorFields } from "../core/logger";

export type MonitorRunner = { stop(): Promise<void>; runOnce(): Promise<number>; readonly id: string };

/**
 * Examines the calls offered to the monitors: a pass at once after one that found work, else every
 * HONE_MONITOR_POLL_MS. Any number of runners (one per process) share the work by leases.
 */
export function startMonitorRunner(deps: Deps, opts: { pollMs?: number } = {}): MonitorRunner {
  const id = `monitor_${Bun.randomUUIDv7().replaceAll("-", "").slice(-12)}`;
  const pollMs = opts.pollMs ?? deps.config.monitorPollMs;
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | null = null;
  let current: Promise<number> | null = null;
  const runOnce = async () => {
    try {
      return await runMonitorsOnce(deps, { runnerId: id, signal: controller.signal });
    } catch (err) {
      deps.logger.error("monitor pass failed", errorFields(err));
      return 0;
    }
  };
  const loop = async () => {
    if (controller.signal.aborted) return;
    current = runOnce();
    const settled = await current;
    current = null;
    if (!controller.signal.aborted) timer = setTimeout(loop, settled > 0 ? 0 : pollMs);
  };
  timer = setTimeout(loop, Math.min(pollMs, 1_000));
  return {
    id,
    runOnce,
    async stop() {
      controller.abort();
      if (timer) clearTimeout(timer);
      await current;
    },
  };
}
