/**
 * Merges tag sources into one string-to-string map: later sources win, numbers and booleans
 * become strings, null drops the key (CONTRACT.md). Anything that is not an object is ignored.
 */
export function mergeTags(...sources: unknown[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const source of sources) {
    if (!source || typeof source !== "object" || Array.isArray(source)) continue;
    for (const [k, v] of Object.entries(source)) {
      if (v === null || v === undefined) {
        delete out[k];
        continue;
      }
      out[k] = typeof v === "string" ? v : typeof v === "number" || typeof v === "boolean" ? String(v) : JSON.stringify(v);
    }
  }
  return out;
}
