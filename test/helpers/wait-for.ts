export type WaitForOptions<T> = {
  /** Give up after this long (default 10 s): a stuck condition fails the test instead of hanging it. */
  timeoutMs?: number;
  /** Pause between polls (default 20 ms). */
  intervalMs?: number;
  /** What was awaited, for the failure message; a function also sees the last value polled. */
  message?: string | ((last: T | undefined) => string);
  /** When given, the polled value is returned once it satisfies this; otherwise once it is truthy. */
  until?: (value: T) => boolean;
};

/**
 * Polls `probe` until its value is truthy (or satisfies `until`) and returns that value. Tests wait for
 * the state they need instead of sleeping a fixed time: fast when the state arrives early, and a clear
 * message (with the last value or error seen) when it never does. A probe that throws counts as
 * "not yet", so it can read rows that do not exist yet.
 */
export async function waitFor<T>(probe: () => T | Promise<T>, opts: WaitForOptions<T> = {}): Promise<NonNullable<T>> {
  const { timeoutMs = 10_000, intervalMs = 20, until } = opts;
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  let lastError: unknown;
  for (;;) {
    try {
      last = await probe();
      lastError = undefined;
      if (until ? until(last) : last) return last as NonNullable<T>;
    } catch (e) {
      lastError = e;
    }
    if (Date.now() >= deadline) break;
    await Bun.sleep(intervalMs);
  }
  const what = typeof opts.message === "function" ? opts.message(last) : (opts.message ?? "condition");
  const seen = lastError !== undefined ? `last error: ${lastError instanceof Error ? lastError.message : String(lastError)}` : `last value: ${preview(last)}`;
  throw new Error(`waitFor: ${what} not met within ${timeoutMs} ms (${seen})`);
}

function preview(v: unknown): string {
  let s: string;
  try {
    s = JSON.stringify(v) ?? String(v);
  } catch {
    s = String(v);
  }
  return s.length > 300 ? `${s.slice(0, 300)}...` : s;
}
