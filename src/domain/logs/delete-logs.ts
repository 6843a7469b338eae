import { lt, type SQL, sql } from "drizzle-orm";
import { z } from "zod";
import { dbOf, type Ctx } from "../../context";
import { requestLogs } from "../../db/schema";
import { DomainError, parseInput } from "../../errors";
import { LogFilter } from "./inputs";
import { logConditions, resultRows, whereAll } from "./internal";
import { timeSlices } from "./list-logs";
import { subtractFromRollups } from "./store/rollups";

export const DeleteLogsInput = z.object({
  filter: LogFilter.nullish(),
  /** Count what would be deleted, delete nothing. */
  dryRun: z.boolean().nullish(),
  /** Required to delete with an empty filter: every log of the project. */
  all: z.boolean().nullish(),
});
export type DeleteLogsInput = z.input<typeof DeleteLogsInput>;

/** A partition bound (a log id the catalog gave) as an SQL string literal. */
const literal = (v: string) => `'${v.replaceAll("'", "''")}'`;

/** Logs deleted per transaction. */
export const DELETE_BATCH = 1_000;
/** A call stops starting batches after this long and answers done: false (call again). */
const DELETE_BUDGET_MS = 20_000;

// An empty list of ids matches nothing, so it is not an empty filter; an empty list of tag
// pairs matches everything, so it is.
const isEmptyFilter = (f: Record<string, unknown> | null | undefined) =>
  !f || Object.entries(f).every(([k, v]) => v === null || v === undefined || (k === "tags" && Array.isArray(v) && !v.length));

/**
 * Deletes the project's logs matching a filter (a privacy request: "everything tagged user=u42"),
 * with their bodies, DELETE_BATCH at a time, each batch its own transaction, walking the id
 * downwards day partition by day partition (keyset: a batch never reads again past the rows the
 * previous ones deleted): dataset entries imported from them keep existing with their source
 * cleared, and they are subtracted from the usage rollups of their hours. An empty filter deletes
 * nothing unless `all` is true. After about 20 s (`budgetMs`) it stops and answers done: false;
 * calling again continues. dryRun only counts.
 */
export async function deleteLogs(
  ctx: Ctx,
  raw: DeleteLogsInput,
  opts: { batchSize?: number; budgetMs?: number } = {},
): Promise<{ deleted: number; done: boolean }> {
  const input = parseInput(DeleteLogsInput, raw);
  if (isEmptyFilter(input.filter as Record<string, unknown> | null) && !input.all) {
    const message = "an empty filter would delete every log of the project; pass all: true to mean it";
    throw new DomainError("VALIDATION", `Refused: ${message}`, { issues: [{ message, path: ["filter"] }] });
  }
  await ctx.deps.logWriter.flush(); // logs of calls that already returned are included
  const db = dbOf(ctx);
  if (input.dryRun) {
    const where = logConditions(ctx.projectId, input.filter);
    const [r] = resultRows<{ n: number }>(await db.execute(sql`select count(*)::int as n from ${requestLogs} where ${whereAll(where)}`));
    return { deleted: Number(r?.n ?? 0), done: true };
  }
  const batch = opts.batchSize ?? DELETE_BATCH;
  const deadline = performance.now() + (opts.budgetMs ?? DELETE_BUDGET_MS);
  let deleted = 0;
  // Day partition by day partition, newest first (as the export walks): a batch of a broad tag or
  // text filter then reads one day's matches, not every match left in the project.
  const slices = await timeSlices(db, ctx.deps);
  for (const [i, slice] of slices.entries()) {
    const within = logConditions(ctx.projectId, input.filter, slice);
    let before: string | null = null;
    for (;;) {
      const batchWhere: SQL[] = before === null ? within : [...within, lt(requestLogs.id, before)];
      const ids: string[] = await db.transaction(async (tx) => {
        // Locked, not SKIP LOCKED: a row another transaction holds (a tag update) is waited for
        // rather than left behind while the answer says done.
        const ids = resultRows<{ id: string }>(
          await tx.execute(
            sql`select ${requestLogs.id} as id from ${requestLogs} where ${whereAll(batchWhere)} order by ${requestLogs.id} desc limit ${batch} for update`,
          ),
        ).map((r) => r.id);
        if (!ids.length) return ids;
        // One array parameter, and the slice's bounds written into the statement: the planner
        // reads the slice's one day partition instead of probing every partition for every id.
        const list = sql`any(string_to_array(${ids.join(",")}, ','))`;
        const bounds = (col: string) =>
          sql.raw(`${slice.lo !== null ? ` and ${col} >= ${literal(slice.lo)}` : ""}${slice.hi !== null ? ` and ${col} < ${literal(slice.hi)}` : ""}`);
        // Reads the rows' rollup dimensions, so before they go.
        await subtractFromRollups(tx, ctx.projectId, ids, bounds("id"));
        // One statement: dataset entries unlinked, bodies deleted explicitly (no foreign key ties
        // a body to its log: both tables are partitioned), then the rows.
        await tx.execute(sql`with entries as (update dataset_entries set source_log_id = null where project_id = ${ctx.projectId} and source_log_id = ${list}),
          bodies as (delete from request_log_bodies where log_id = ${list}${bounds("log_id")})
          delete from request_logs where project_id = ${ctx.projectId} and id = ${list}${bounds("id")}`);
        return ids;
      });
      deleted += ids.length;
      const sliceDone = ids.length < batch;
      if (sliceDone && i === slices.length - 1) return { deleted, done: true };
      // Only after deleting something: every call that answers done: false has made progress.
      if (ids.length && performance.now() > deadline) return { deleted, done: false };
      if (sliceDone) break;
      before = ids.at(-1)!; // the oldest of the batch (read newest first)
    }
  }
  return { deleted, done: true };
}
