// The evaluation page's tab, compared models and entry filter, kept in the URL so a view can be shared.
export type EvaluationSearch = { tab?: "summary" | "entries" | "h2h"; a?: string; b?: string; differ?: boolean };

const text = (v: unknown) => (typeof v === "string" && v.trim() ? v.slice(0, 300) : undefined);

export function parseEvaluationSearch(s: Record<string, unknown>): EvaluationSearch {
  return {
    tab: s.tab === "entries" || s.tab === "h2h" ? s.tab : undefined,
    a: text(s.a),
    b: text(s.b),
    differ: s.differ === true || s.differ === "true" ? true : undefined,
  };
}
