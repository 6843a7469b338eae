import { z } from "zod";
import { FilterDate } from "../filter-date";
import { LogFilter } from "../logs";

export const RecalculateCostsInput = z.strictObject({ filter: LogFilter.nullish() });
export type RecalculateCostsInput = z.input<typeof RecalculateCostsInput>;

export type CostRecalculation = {
  id: string;
  status: "QUEUED" | "RUNNING" | "DONE" | "ERROR";
  total: number;
  done: number;
  changed: number;
  errorMessage: string | null;
  createdAt: Date;
  updatedAt: Date;
};

export const InvoiceLinesInput = z
  .strictObject({
    /** UTC days, from (inclusive) to (exclusive): 2026-11-01 .. 2026-12-01 is November. */
    from: FilterDate,
    to: FilterDate,
    /** A page: at most `first` lines (default and ceiling HONE_MAX_PAGE_SIZE), after the line whose `cursor` is `after`. */
    first: z.number().int().min(1, "first must be at least 1").nullish(),
    after: z.string().min(1).max(2_000).nullish(),
  })
  .superRefine((v, c) => {
    const day = 86_400_000;
    if (v.from.getTime() % day || v.to.getTime() % day) c.addIssue({ code: "custom", path: ["from"], message: "from and to must be UTC days (YYYY-MM-DD)" });
    if (v.to.getTime() <= v.from.getTime()) c.addIssue({ code: "custom", path: ["to"], message: "to must be after from" });
    else if (v.to.getTime() - v.from.getTime() > 400 * day) c.addIssue({ code: "custom", path: ["to"], message: "a range may span at most 400 days" });
  });
export type InvoiceLinesInput = z.input<typeof InvoiceLinesInput>;

/** One line of a provider invoice's shape: a day, provider, model and token class, with its tokens and cost. */
export type InvoiceLine = {
  day: string;
  provider: string | null;
  model: string | null;
  tokenClass: string;
  tokens: number;
  costUsd: number | null;
  /** Where this line stands in the range's order: the next page starts `after` it. */
  cursor: string;
};
