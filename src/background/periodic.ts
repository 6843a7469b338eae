import type { Logger } from "../core/logger";
import { errorFields } from "../core/logger";

export type Periodic = { stop(): void; runOnce(): Promise<number> };

/**
 * Runs a cleanup shortly after start and then every intervalMs, never two at once in this
 * process. Failures are logged and retried at the next tick.
 */
export function startPeriodic(opts: {
  name: string;
  logger: Logger;
  intervalMs: number;
  firstRunMs: number;
  run: () => Promise<number>;
  enabled?: boolean;
}): Periodic {
  const runOnce = async () => {
    try {
      const n = await opts.run();
      if (n) opts.logger.info(opts.name, { count: n });
      return n;
    } catch (err) {
      opts.logger.error(`${opts.name} failed`, errorFields(err));
      return 0;
    }
  };
  if (opts.enabled === false) return { stop() {}, runOnce };
  let timer: ReturnType<typeof setTimeout> | null = null;
  let stopped = false;
  const loop = async () => {
    await runOnce();
    if (!stopped) timer = setTimeout(loop, opts.intervalMs);
  };
  timer = setTimeout(loop, opts.firstRunMs);
  return {
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
    runOnce,
  };
}
