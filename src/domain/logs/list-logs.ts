import { desc, lt } from "drizzle-orm";
import { dbOf, type Ctx } from "../context";
import type { Queryable } from "../../db/client";
import type { Deps } from "../deps";
import { requestLogs } from "../../db/schema";
import { parseInput } from "../../core/errors";
import { checkPageSize } from "../../core/limits";
import { ListLogsInput, type RequestLogPage } from "./inputs";
import { decodeLogCursor, encodeLogCursor, logColumns, logConditions, whereAll } from "./internal";
import { listLogPartitions } from "./store/partitions";

/** Id ranges, newest first, that together cover every log: one per day partition (null: open end). */
export type Slice = { lo: string | null; hi: string | null };

/** Day partitions read at once by a filtered page. */
const SLICES_AT_ONCE = 4;

/** The partitions' ranges, newest first, read at most once a minute (deps.caches.logSlices). */
export async function timeSlices(db: Queryable, deps: Deps): Promise<Slice[]> {
  const now = deps.clock().getTime();
  const cached = deps.caches.logSlices;
  if (cached && now - cached.at < 60_000) return cached.slices;
  const ranged = (await listLogPartitions(db)).filter((p) => !p.isDefault).sort((a, b) => (b.to ?? "\uffff").localeCompare(a.to ?? "\uffff"));
  const slices: Slice[] = [];
  // Above the newest range and below the oldest, only the default partition holds logs.
  if (ranged[0]?.to) slices.push({ lo: ranged[0].to, hi: null });
  for (const p of ranged) slices.push({ lo: p.from, hi: p.to });
  const oldest = ranged.at(-1);
  if (oldest?.from) slices.push({ lo: null, hi: oldest.from });
  if (!slices.length) slices.push({ lo: null, hi: null });
  deps.caches.logSlices = { at: now, slices };
  return slices;
}

/**
 * The project's logs, newest first, keyset-paginated on the time-ordered id: logs inserted while
 * a client pages never shift or repeat the pages it has yet to read. With a text search or a tag
 * filter, which no index answers in id order, the day partitions are read newest first, one at a
 * time, until the page is full: a page of a common match costs one day's index lookups, and a
 * rare one reads each day's index once instead of sorting every match of the whole table.
 */
export async function listLogs(ctx: Ctx, raw: ListLogsInput): Promise<RequestLogPage> {
  const input = parseInput(ListLogsInput, raw);
  checkPageSize(input.first, ctx.deps.config.maxPageSize);
  const first = input.first ?? 50;
  const cursor = input.after ? decodeLogCursor(input.after) : null;
  const db = dbOf(ctx);
  const page = (within: Slice | undefined, limit: number) => {
    const where = logConditions(ctx.projectId, input.filter, within);
    if (cursor) where.push(lt(requestLogs.id, cursor));
    return db.select(logColumns).from(requestLogs).where(whereAll(where)).orderBy(desc(requestLogs.id)).limit(limit);
  };
  let rows: Awaited<ReturnType<typeof page>>;
  if (input.filter?.search || input.filter?.tags?.length) {
    rows = [];
    const slices = (await timeSlices(db, ctx.deps)).filter((s) => !(cursor && s.lo !== null && s.lo >= cursor));
    // A few days at once (each its own statement; on Postgres, its own connection), kept in order:
    // a rare match costs a quarter of the round trips, a common one is done with the first group.
    for (let i = 0; i < slices.length && rows.length <= first; i += SLICES_AT_ONCE) {
      const want = first + 1 - rows.length;
      const pages = await Promise.all(slices.slice(i, i + SLICES_AT_ONCE).map((s) => page(s, want)));
      for (const p of pages) rows.push(...p);
    }
    rows = rows.slice(0, first + 1);
  } else {
    rows = await page(undefined, first + 1);
  }
  const logs = rows.slice(0, first);
  return { logs, hasNextPage: rows.length > first, endCursor: logs.length ? encodeLogCursor(logs.at(-1)!.id) : null };
}
