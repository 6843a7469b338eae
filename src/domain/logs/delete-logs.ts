import { lt, sql } from "drizzle-orm";
import { z } from "zod";
import { dbOf, type Ctx } from "../context";
import { requestLogs } from "../../db/schema";
import { DomainError, parseInput } from "../../core/errors";
import { LogFilter } from "./inputs";
import { logConditions, resultRows, sliceBounds, whereAll } from "./internal";
import { timeSlices } from "./list-logs";
import { closedHours, GONE_COLUMNS, noteGone, prepareGone, subtractGone } from "./store/rollups";

export const DeleteLogsInput = z.strictObject({
  filter: LogFilter.nullish(),
  /** Count what would be deleted, delete nothing. */
  dryRun: z.boolean().nullish(),
  /** Required to delete with an empty filter: every log of the project. */
  all: z.boolean().nullish(),
});
export type DeleteLogsInput = z.input<typeof DeleteLogsInput>;

/** Logs deleted per transaction. */
export const DELETE_BATCH = 1_000;
/** Batches run at once on a Postgres server (each on a connection of the pool). */
const DELETE_WORKERS = 2;
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
 * previous ones deleted; a batch not yet full goes on into the older days): dataset entries
 * imported from them keep existing with their source cleared, and they are subtracted from the
 * usage rollups of their hours. An empty filter deletes nothing unless `all` is true. After about
 * 20 s (`budgetMs`) it stops and answers done: false; calling again continues. dryRun only counts.
 */
export async function deleteLogs(
  ctx: Ctx,
  raw: DeleteLogsInput,
  opts: { batchSize?: number; budgetMs?: number; workers?: number } = {},
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
  // Day partition by day partition, newest first (as the export walks): a statement of a broad tag
  // or text filter then reads one day's matches, not every match left in the project. A batch
  // (one transaction) goes on to the next days until it holds `batch` logs, so a filter matching a
  // few logs a day is not a transaction per day. On a Postgres server two workers, each on its own
  // connection, take the days in turn: no two batches touch the same day, hence never the same log
  // row, body or rollup row (rollups are per hour and day), and the server's second core works too.
  // Within a caller's transaction, or on the embedded database (one connection), one worker.
  const slices = await timeSlices(db, ctx.deps);
  const workers = !ctx.tx && ctx.deps.database.kind === "postgres" ? (opts.workers ?? DELETE_WORKERS) : 1;
  let next = 0; // the newest day no worker has taken yet
  let deleted = 0;
  let stopped = false;
  const worker = async () => {
    let i = -1; // the day this worker is in, or -1: none left
    let before: string | null = null; // within slices[i]: the oldest id deleted so far (keyset)
    const take = () => {
      i = next < slices.length ? next++ : -1;
      before = null;
    };
    take();
    while (i >= 0 && !stopped) {
      const n = await db.transaction(async (tx) => {
        const state = await prepareGone(tx);
        const ids: string[] = [];
        // Past the time budget, a batch that deleted something ends where it is (the call answers done: false).
        while (i >= 0 && ids.length < batch && !(ids.length && performance.now() > deadline)) {
          const slice = slices[i]!;
          const where = logConditions(ctx.projectId, input.filter, slice);
          if (before !== null) where.push(lt(requestLogs.id, before));
          const room = batch - ids.length;
          // One statement: the rows (locked in id order, not SKIP LOCKED: a row another transaction
          // holds, a tag update, is waited for rather than left behind while the answer says done),
          // their rollup dimensions noted, dataset entries imported from them unlinked (they keep
          // existing), and their bodies (no foreign key ties a body to its log: both tables are
          // partitioned). Ids as arrays (= any(array(...))): an index lookup each, where `in (select
          // ...)` was planned as a hash join over the whole day's rows.
          const gone = resultRows<{ id: string }>(
            await tx.execute(sql`with gone as (
                delete from request_logs where project_id = ${ctx.projectId}${sliceBounds("id", slice)} and id = any(array(
                  select ${requestLogs.id} from ${requestLogs} where ${whereAll(where)} order by ${requestLogs.id} desc limit ${room} for update))
                returning ${GONE_COLUMNS}),
              ${state ? sql`noted as (${noteGone(state, "gone")}),` : sql``}
              entries as (update dataset_entries set source_log_id = null where project_id = ${ctx.projectId} and source_log_id = any(array(select id from gone))),
              bodies as (delete from request_log_bodies where log_id = any(array(select id from gone))${sliceBounds("log_id", slice)})
              select id from gone order by id`),
          ).map((r) => r.id);
          ids.push(...gone);
          if (gone.length < room) take();
          else before = gone[0]!; // the oldest (the rows come back oldest first)
        }
        if (state) await subtractGone(tx, ctx.projectId, closedHours(state, ids));
        return ids.length;
      });
      deleted += n;
      // Only after deleting something: every call that answers done: false has made progress.
      if (i >= 0 && n && performance.now() > deadline) stopped = true;
    }
  };
  await Promise.all(Array.from({ length: workers }, worker));
  return { deleted, done: !stopped };
}
