/** A span of time as a person reads it: "under 1 s", "42 s", "3 min 5 s", "2 h 4 min", "3 d 2 h". */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 1000) return "under 1 s";
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return s % 60 ? `${m} min ${s % 60} s` : `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 24) return m % 60 ? `${h} h ${m % 60} min` : `${h} h`;
  const d = Math.floor(h / 24);
  return h % 24 ? `${d} d ${h % 24} h` : `${d} d`;
}
