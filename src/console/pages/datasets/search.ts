// The dataset page's filters, kept in the URL so a view can be shared as a link.
export const SPLITS = ["TRAIN", "TEST"] as const;
export const SOURCES = ["log", "upload", "manual"] as const;
export const JUDGEMENTS = ["PASS", "FAIL", "ERROR", "NONE"] as const;

export type EntriesSearch = {
  split?: (typeof SPLITS)[number];
  source?: (typeof SOURCES)[number];
  criterion?: string;
  judgement?: (typeof JUDGEMENTS)[number];
  q?: string;
  /** Only relabelled entries awaiting review. */
  review?: boolean;
  /** The dense table or full cards (the default: cards when reviewing relabelled entries, else the table). */
  view?: "table" | "cards";
  /** The entry open in the drawer: a link to it opens it. */
  entry?: string;
};

const oneOf = <T extends string>(values: readonly T[], v: unknown): T | undefined => (values.includes(v as T) ? (v as T) : undefined);
const text = (v: unknown, max: number): string | undefined => (typeof v === "string" && v.trim() ? v.slice(0, max) : undefined);

export function parseEntriesSearch(s: Record<string, unknown>): EntriesSearch {
  return {
    split: oneOf(SPLITS, s.split),
    source: oneOf(SOURCES, s.source),
    criterion: text(s.criterion, 200),
    judgement: oneOf(JUDGEMENTS, s.judgement),
    q: text(s.q, 200),
    review: s.review === true || s.review === "true" ? true : undefined,
    view: s.view === "cards" || s.view === "table" ? s.view : undefined,
    entry: typeof s.entry === "string" && /^[A-Za-z0-9_-]{1,100}$/.test(s.entry) ? s.entry : undefined,
  };
}

/** The list's view: as chosen, else cards when reviewing relabelled entries (each shows its diff), else the table. */
export const viewOf = (s: EntriesSearch): "table" | "cards" => s.view ?? (s.review ? "cards" : "table");

/** The API's entry filter for a search. */
export function entryFilterOf(s: EntriesSearch) {
  return {
    split: s.split ?? null,
    source: s.source ?? null,
    verdict: s.criterion ? { criterionId: s.criterion, judgement: s.judgement ?? "FAIL" } : null,
    search: s.q ?? null,
    pendingReview: s.review ? true : null,
  };
}
