import type { Metric } from "./schemas";

// The windows limits count in: requests and tokens per UTC minute, cost per UTC day and per UTC
// month. Fixed windows: a window's count starts again from zero at its end (so a client may spend
// one window's cap at its end and the next one's at the start of the next).

export type Window = { start: Date; end: Date };

export function windowOf(metric: Metric, at: Date): Window {
  const t = at.getTime();
  if (metric === "requests" || metric === "tokens") {
    const start = t - (t % 60_000);
    return { start: new Date(start), end: new Date(start + 60_000) };
  }
  if (metric === "usd_day") {
    const start = t - (t % 86_400_000);
    return { start: new Date(start), end: new Date(start + 86_400_000) };
  }
  const start = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1);
  return { start: new Date(start), end: new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1)) };
}

/** A duration as OpenAI's x-ratelimit-reset-* headers spell it: `1s`, `6m0s`, `20ms`, `1h2m3s`. */
export function resetText(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.ceil(ms))}ms`;
  let s = Math.ceil(ms / 1000);
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  return `${h ? `${h}h` : ""}${h || m ? `${m}m` : ""}${s}s`;
}
