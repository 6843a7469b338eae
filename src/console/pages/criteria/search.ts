// The criterion page's tab and view, kept in the URL so a view can be shared as a link.
export type CriterionSearch = { tab?: "prompt" | "set" | "runs"; view?: "label" | "table" };

export function parseCriterionSearch(s: Record<string, unknown>): CriterionSearch {
  return {
    tab: s.tab === "set" || s.tab === "runs" ? s.tab : undefined,
    view: s.view === "table" ? "table" : undefined,
  };
}
