import { sql } from "drizzle-orm";
import { type BaseCtx, dbOf } from "../context";
import { resultRows } from "../logs";

/**
 * Deletes the spans stored before `before` (HONE_LOG_RETENTION_DAYS: a trace is kept as long as its
 * logs), across projects, in batches so no statement holds locks for long. Returns how many.
 */
export async function deleteExpiredSpans(ctx: BaseCtx, input: { before: Date; batchSize?: number }): Promise<number> {
  const batchSize = input.batchSize ?? 2_000;
  let deleted = 0;
  for (;;) {
    const gone = resultRows<{ n: number }>(
      await dbOf(ctx).execute(sql`with gone as (delete from trace_spans where ctid in (
        select ctid from trace_spans where created_at < ${input.before.toISOString()}::timestamptz order by created_at limit ${batchSize} for update skip locked)
        returning 1) select count(*)::int as n from gone`),
    );
    const n = Number(gone[0]?.n ?? 0);
    deleted += n;
    if (n < batchSize) return deleted;
  }
}
