import { inArray, lt } from "drizzle-orm";
import { dbOf, type BaseCtx } from "../../context";
import { requestLogs } from "../../db/schema";
import { logIdAt } from "./internal";

/**
 * Deletes logs (and their bodies) older than `before`, across projects, in small batches so no
 * statement holds locks for long. Returns how many were deleted.
 */
export async function deleteExpiredLogs(ctx: BaseCtx, input: { before: Date; batchSize?: number; maxBatches?: number }): Promise<number> {
  const bound = logIdAt(input.before);
  const batchSize = input.batchSize ?? 2_000;
  let deleted = 0;
  for (let i = 0; i < (input.maxBatches ?? Infinity); i++) {
    const oldest = dbOf(ctx).select({ id: requestLogs.id }).from(requestLogs).where(lt(requestLogs.id, bound)).orderBy(requestLogs.id).limit(batchSize);
    const rows = await dbOf(ctx).delete(requestLogs).where(inArray(requestLogs.id, oldest)).returning({ id: requestLogs.id });
    deleted += rows.length;
    if (rows.length < batchSize) break;
  }
  return deleted;
}
