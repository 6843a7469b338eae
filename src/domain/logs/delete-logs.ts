import { sql } from "drizzle-orm";
import { z } from "zod";
import { dbOf, type Ctx } from "../../context";
import { requestLogs } from "../../db/schema";
import { DomainError, parseInput } from "../../errors";
import { LogFilter } from "./inputs";
import { logConditions, resultRows, whereAll } from "./internal";
import { subtractFromRollups } from "./usage-rollups";

export const DeleteLogsInput = z.object({
  filter: LogFilter.nullish(),
  /** Count what would be deleted, delete nothing. */
  dryRun: z.boolean().nullish(),
  /** Required to delete with an empty filter: every log of the project. */
  all: z.boolean().nullish(),
});
export type DeleteLogsInput = z.input<typeof DeleteLogsInput>;

/** Logs deleted per transaction. */
export const DELETE_BATCH = 1_000;
/** A call stops starting batches after this long and answers done: false (call again). */
const DELETE_BUDGET_MS = 20_000;

// An empty list of ids matches nothing, so it is not an empty filter.
const isEmptyFilter = (f: Record<string, unknown> | null | undefined) => !f || Object.values(f).every((v) => v === null || v === undefined);

/**
 * Deletes the project's logs matching a filter (a privacy request: "everything tagged user=u42"),
 * with their bodies, DELETE_BATCH at a time, each batch its own transaction: dataset entries
 * imported from them keep existing with their source cleared, and they are subtracted from the
 * usage rollups of their hours. An empty filter deletes nothing unless `all` is true. After
 * about 20 s it stops and answers done: false; calling again continues. dryRun only counts.
 */
export async function deleteLogs(ctx: Ctx, raw: DeleteLogsInput, opts: { batchSize?: number } = {}): Promise<{ deleted: number; done: boolean }> {
  const input = parseInput(DeleteLogsInput, raw);
  if (isEmptyFilter(input.filter as Record<string, unknown> | null) && !input.all) {
    const message = "an empty filter would delete every log of the project; pass all: true to mean it";
    throw new DomainError("VALIDATION", `Refused: ${message}`, { issues: [{ message, path: ["filter"] }] });
  }
  await ctx.deps.logWriter.flush(); // logs of calls that already returned are included
  const where = logConditions(ctx.projectId, input.filter);
  const db = dbOf(ctx);
  if (input.dryRun) {
    const [r] = resultRows<{ n: number }>(await db.execute(sql`select count(*)::int as n from ${requestLogs} where ${whereAll(where)}`));
    return { deleted: Number(r?.n ?? 0), done: true };
  }
  const batch = opts.batchSize ?? DELETE_BATCH;
  const started = Date.now();
  let deleted = 0;
  for (;;) {
    const n = await db.transaction(async (tx) => {
      const ids = resultRows<{ id: string }>(
        await tx.execute(
          sql`select ${requestLogs.id} as id from ${requestLogs} where ${whereAll(where)} order by ${requestLogs.id} desc limit ${batch} for update skip locked`,
        ),
      ).map((r) => r.id);
      if (!ids.length) return 0;
      // One array parameter: pruned at run time instead of planned id by id across the partitions.
      const list = sql`any(string_to_array(${ids.join(",")}, ','))`;
      await tx.execute(sql`update dataset_entries set source_log_id = null where project_id = ${ctx.projectId} and source_log_id = ${list}`);
      await subtractFromRollups(tx, ctx.projectId, ids);
      await tx.execute(sql`delete from request_log_bodies where log_id = ${list}`);
      await tx.execute(sql`delete from request_logs where project_id = ${ctx.projectId} and id = ${list}`);
      return ids.length;
    });
    deleted += n;
    if (n < batch) return { deleted, done: true };
    if (Date.now() - started > DELETE_BUDGET_MS) return { deleted, done: false };
  }
}
