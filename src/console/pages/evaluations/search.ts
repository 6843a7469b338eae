// The evaluation page's tab, compared models and entry filter, kept in the URL so a view can be
// shared; and the list's `?new=1&model=&datasetId=`, which opens "New evaluation" filled in.
export type EvaluationSearch = { tab?: "summary" | "entries" | "h2h"; a?: string; b?: string; differ?: boolean };
export type EvaluationsSearch = { new?: true; model?: string; datasetId?: string };

const text = (v: unknown) => (typeof v === "string" && v.trim() ? v.slice(0, 300) : undefined);

export function parseEvaluationSearch(s: Record<string, unknown>): EvaluationSearch {
  return {
    tab: s.tab === "entries" || s.tab === "h2h" ? s.tab : undefined,
    a: text(s.a),
    b: text(s.b),
    differ: s.differ === true || s.differ === "true" ? true : undefined,
  };
}

export function parseEvaluationsSearch(s: Record<string, unknown>): EvaluationsSearch {
  const out: EvaluationsSearch = {};
  if (s.new === 1 || s.new === "1" || s.new === true || s.new === "true") out.new = true;
  const model = text(s.model);
  if (model) out.model = model;
  const datasetId = text(s.datasetId);
  if (datasetId) out.datasetId = datasetId;
  return out;
}
