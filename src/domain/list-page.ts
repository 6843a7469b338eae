import { and, type AnyColumn, eq, lt, type SQL, sql } from "drizzle-orm";
import type { PgTable } from "drizzle-orm/pg-core";
import { z } from "zod";
import { type BaseCtx, type Ctx, dbOf } from "./context";
import { DomainError, parseInput } from "../core/errors";
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
  // null as well as absent: a raw tRPC call of a list that took no input before may still send null.
  .nullish();
export type ListPageInput = z.input<typeof ListPageInput>;

/** The page asked for, checked: its size, and the condition on the id column that starts it. */
export function listPage(ctx: Ctx, raw: ListPageInput, id: AnyColumn): { limit: number; after: SQL | undefined } {
  const page = parseInput(ListPageInput, raw) ?? {};
  const max = ctx.deps.config.maxPageSize;
  checkPageSize(page.first, max);
  return { limit: page.first ?? max, after: page.after ? lt(id, page.after) : undefined };
}

/**
 * A page of a list kept in an order of its own (by name, by subject, by when it was made): at most
 * `first` items (default and ceiling HONE_MAX_PAGE_SIZE), the next page `after` the last item's id.
 * The order is `by` then the id, all ascending (or all descending); the page starts past the `after`
 * item's place in it, read in the same statement. An `after` that is not an item of this list (one
 * deleted since, or another project's) is a 400 saying so, not a silently empty page.
 */
export async function orderedPage(
  ctx: BaseCtx,
  raw: ListPageInput,
  list: { table: PgTable; id: AnyColumn; by?: (AnyColumn | SQL)[]; scope: SQL; desc?: boolean; what: string },
): Promise<{ limit: number; after: SQL | undefined; order: SQL[] }> {
  const page = parseInput(ListPageInput, raw) ?? {};
  const max = ctx.deps.config.maxPageSize;
  checkPageSize(page.first, max);
  const keys = [...(list.by ?? []), list.id];
  const order = keys.map((k) => (list.desc ? sql`${k} desc` : sql`${k} asc`));
  if (!page.after) return { limit: page.first ?? max, after: undefined, order };
  const tuple = sql.join(
    keys.map((k) => sql`${k}`),
    sql`, `,
  );
  const [found] = await dbOf(ctx)
    .select({ one: sql<number>`1` })
    .from(list.table)
    .where(and(list.scope, eq(list.id, page.after)))
    .limit(1);
  if (!found) {
    const message = `after: ${page.after} is not one of the ${list.what} (deleted since the page was read?); start again from the first page`;
    throw new DomainError("VALIDATION", message, { issues: [{ message, path: ["after"] }] });
  }
  const anchor = sql`(select ${tuple} from ${list.table} where ${list.scope} and ${list.id} = ${page.after})`;
  return { limit: page.first ?? max, after: sql`(${tuple}) ${sql.raw(list.desc ? "<" : ">")} ${anchor}`, order };
}
