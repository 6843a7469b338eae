/** A ratio (precision, recall, F1) to two decimals, or a dash when there is none. */
export const formatRatio = (v: number | null | undefined) => (v == null ? "–" : v.toFixed(2));
