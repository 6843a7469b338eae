import { sql } from "drizzle-orm";
import type { PgTable } from "drizzle-orm/pg-core";
import { type BaseCtx, dbOf } from "./context";
import { resultRows } from "./logs";

/**
 * Deletes a table's rows created before `before` (its `id` and `created_at` columns), across
 * projects, in batches so no statement holds locks for long (rows another deleter holds are
 * skipped). Returns how many went. Retention uses it for what sums up or holds the logs.
 */
export async function deleteOlderThan(ctx: BaseCtx, table: PgTable, input: { before: Date; batchSize?: number }): Promise<number> {
  const batchSize = input.batchSize ?? 2_000;
  let deleted = 0;
  for (;;) {
    const gone = resultRows<{ id: string }>(
      await dbOf(ctx).execute(sql`delete from ${table} where id in (
        select id from ${table} where created_at < ${input.before.toISOString()}::timestamptz order by created_at limit ${batchSize} for update skip locked)
        returning id`),
    );
    deleted += gone.length;
    if (gone.length < batchSize) return deleted;
  }
}
