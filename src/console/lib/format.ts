const number = new Intl.NumberFormat("en-US");
const compact = new Intl.NumberFormat("en-US", { notation: "compact", maximumFractionDigits: 1 });

export const formatNumber = (n: number | null | undefined) => (n == null ? "–" : number.format(n));
export const formatCompact = (n: number | null | undefined) => (n == null ? "–" : compact.format(n));

export function formatCost(usd: number | null | undefined): string {
  if (usd == null) return "–";
  if (usd === 0) return "$0";
  if (Math.abs(usd) < 0.01) return `$${usd.toPrecision(2)}`;
  return `$${usd.toFixed(usd < 10 ? 4 : 2)}`;
}

/**
 * A sum of costs where some calls had no price: unknown is said as "no price" (never $0), and a
 * sum that left calls out says how many ("$0.0123 + 2 without a price").
 */
export function formatKnownCost(usd: number | null | undefined, unpriced = 0): string {
  if (usd == null) return "no price";
  return unpriced ? `${formatCost(usd)} + ${unpriced} without a price` : formatCost(usd);
}

export function formatMs(ms: number | null | undefined): string {
  if (ms == null) return "–";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

/** Local date and time to the second, e.g. 2026-11-23 14:05:09. */
const pad = (n: number) => String(n).padStart(2, "0");

/** The browser's time zone at an instant, short: "UTC", "GMT+1", "PST". */
export function zoneOf(d: Date = new Date()): string {
  return new Intl.DateTimeFormat("en-US", { timeZoneName: "short" }).formatToParts(d).find((p) => p.type === "timeZoneName")?.value ?? "local";
}

/** An instant in the browser's time, without its zone ("2026-12-02 15:33:00"): for columns that name the zone once. */
export function formatLocal(iso: string | Date | null | undefined): string {
  if (!iso) return "–";
  const d = typeof iso === "string" ? new Date(iso) : iso;
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** An instant in the browser's time with its zone: "2026-12-02 16:33:00 GMT+1". */
export function formatTime(iso: string | Date | null | undefined): string {
  if (!iso) return "–";
  const d = typeof iso === "string" ? new Date(iso) : iso;
  return `${formatLocal(d)} ${zoneOf(d)}`;
}

/** The same instant in UTC, for a hover: "2026-12-02 15:33:00 UTC". */
export function formatUtc(iso: string | Date | null | undefined): string {
  if (!iso) return "";
  const d = typeof iso === "string" ? new Date(iso) : iso;
  return `${d.toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

export function formatRelative(iso: string | null | undefined): string {
  if (!iso) return "never";
  const s = Math.round((Date.now() - new Date(iso).getTime()) / 1000);
  if (s < 60) return "just now";
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86_400)} d ago`;
}

/** "1 entry", "3 entries": a count with its noun. */
export const plural = (n: number, one: string, many = `${one}s`) => `${formatNumber(n)} ${n === 1 ? one : many}`;

/** Bytes in binary units: 512 B, 3.4 MiB, 16.0 GiB. */
export function formatBytes(n: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return i === 0 ? `${v} B` : `${v.toFixed(1)} ${units[i]}`;
}
