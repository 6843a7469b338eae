import { sql } from "drizzle-orm";
import { dbOf, type BaseCtx } from "../context";
import { logIdAt, resultRows } from "./internal";

/**
 * Deletes logs (and their bodies) older than `before`, across projects, in small batches so no
 * statement holds locks for long; dataset entries imported from them keep existing, their source
 * log cleared. With day partitions (dropExpiredLogPartitions drops the whole days first) this only
 * meets the logs of the one day the limit falls in. Returns how many were deleted.
 */
export async function deleteExpiredLogs(ctx: BaseCtx, input: { before: Date; batchSize?: number; maxBatches?: number }): Promise<number> {
  const bound = logIdAt(input.before);
  const batchSize = input.batchSize ?? 2_000;
  let deleted = 0;
  for (let i = 0; i < (input.maxBatches ?? Infinity); i++) {
    const n = await dbOf(ctx).transaction(async (tx) => {
      const ids = resultRows<{ id: string }>(
        await tx.execute(sql`select id from request_logs where id < ${bound} order by id limit ${batchSize} for update skip locked`),
      ).map((r) => r.id);
      if (!ids.length) return 0;
      const list = sql.join(
        ids.map((id) => sql`${id}`),
        sql`, `,
      );
      await tx.execute(sql`update dataset_entries set source_log_id = null where source_log_id in (${list})`);
      await tx.execute(sql`delete from request_log_bodies where log_id in (${list})`);
      await tx.execute(sql`delete from request_logs where id in (${list})`);
      return ids.length;
    });
    deleted += n;
    if (n < batchSize) break;
  }
  return deleted;
}
