/**
 * Polls `probe` until it returns something truthy (or `until` accepts it), instead of sleeping a
 * fixed time and hoping: fast when the condition comes early, and a clear failure naming what was
 * awaited (with the last value seen) when it never comes.
 */
export async function waitFor<T>(
  probe: () => T | Promise<T>,
  opts: { until?: (value: T) => boolean; timeoutMs?: number; intervalMs?: number; message?: string } = {},
): Promise<T> {
  const { until = (v: T) => Boolean(v), timeoutMs = 10_000, intervalMs = 20, message = "condition" } = opts;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (until(value)) return value;
    if (Date.now() > deadline) {
      const seen = JSON.stringify(value)?.slice(0, 300);
      throw new Error(`waitFor: ${message} not reached within ${timeoutMs} ms (last value: ${seen})`);
    }
    await Bun.sleep(intervalMs);
  }
}
