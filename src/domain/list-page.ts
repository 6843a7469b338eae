import { type AnyColumn, lt, type SQL } from "drizzle-orm";
import { z } from "zod";
import type { Ctx } from "./context";
import { parseInput } from "../core/errors";
import { checkPageSize, MAX_ID_LENGTH } from "../core/limits";

// A page of a list that grows with use (datasets, criteria, models, evaluations): newest first, at
// most `first` items (default and ceiling HONE_MAX_PAGE_SIZE; more is refused, never clamped), the
// next page `after` the last id of this one.

export const ListPageInput = z
  .strictObject({
    first: z.number().int().min(1, "first must be at least 1").nullish(),
    /** The last id of the previous page: the items older than it. */
    after: z.string().min(1).max(MAX_ID_LENGTH).nullish(),
  })
  .optional();
export type ListPageInput = z.input<typeof ListPageInput>;

/** The page asked for, checked: its size, and the condition on the id column that starts it. */
export function listPage(ctx: Ctx, raw: ListPageInput, id: AnyColumn): { limit: number; after: SQL | undefined } {
  const page = parseInput(ListPageInput, raw) ?? {};
  const max = ctx.deps.config.maxPageSize;
  checkPageSize(page.first, max);
  return { limit: page.first ?? max, after: page.after ? lt(id, page.after) : undefined };
}
