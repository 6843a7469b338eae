import type { Masking } from "../masking";
import { createMasker } from "../../lib/masking";
import { and, eq, sql } from "drizzle-orm";
import { deleteOlderThan } from "../delete-older-than";
import { z } from "zod";
import type { Caches } from "../caches";
import { type BaseCtx, dbOf, type Ctx } from "../context";
import { storedResponses } from "../../db/schema";
import { executePrepared, type Queryable } from "../../db/client";
import { statementErrorFields } from "../../core/sql-errors";
import { DomainError, parseInput } from "../../core/errors";
import { resultRows, sanitizeJsonText } from "../logs";
import type { Item } from "./responses-format";

// Hone keeps the state of the Responses API itself, per project: previous_response_id continues a
// conversation whatever provider answered it, and GET, DELETE and input_items read it back.

/** How far back previous_response_id is followed. */
const MAX_CHAIN = 1_000;

/** Per process (deps.caches.responseSaves): saves still in flight (a read of their id waits for them), and those not yet sent. */
type Saves = Caches["responseSaves"];
const savesOf = (ctx: Ctx): Saves => ctx.deps.caches.responseSaves;

/**
 * How long a save waits for others to join its INSERT. Nobody waits for it meanwhile (a read of the
 * id on this process waits for the write; another process retries its miss for longer).
 */
const SAVE_DELAY_MS = 10;
/** At most this many responses go in one INSERT. */
const MAX_SAVES_PER_INSERT = 100;

/**
 * Stores a batch of Responses, given as one JSON array text of {id, project_id,
 * previous_response_id, input, response}: one prepared statement whatever the batch's size. An id
 * stored already (an upstream that repeats its ids) keeps its first response.
 */
export async function insertStoredResponses(db: Queryable, batch: string): Promise<void> {
  await executePrepared(
    db,
    sql`insert into ${storedResponses} (id, project_id, previous_response_id, input, response)
        select id, project_id, previous_response_id, input, response
        from jsonb_to_recordset(${batch}::text::jsonb) as x(id text, project_id text, previous_response_id text, input jsonb, response jsonb)
        on conflict do nothing`,
  );
}

/**
 * Sends the queued saves, many per INSERT (under load, one statement stores the responses of many
 * calls), through the log writer when it takes them (on Postgres its thread does the database's
 * work), else on this thread.
 */
function flushSaves(ctx: Ctx, saves: Saves): void {
  while (saves.queued.length) {
    const batch = saves.queued.splice(0, MAX_SAVES_PER_INSERT);
    // Not a request's transaction: the batch holds the saves of many requests. Its text is cleaned
    // of what Postgres cannot store (NUL, lone surrogates) as log rows are.
    const rows = sanitizeJsonText(
      JSON.stringify(
        batch.map(({ save: r }) => ({ id: r.id, project_id: r.projectId, previous_response_id: r.previousResponseId, input: r.input, response: r.response })),
      ),
    );
    (ctx.deps.logWriter.storeResponses?.(rows) ?? insertStoredResponses(ctx.deps.database.db, rows)).then(
      () => {
        for (const b of batch) b.resolve();
      },
      (err: unknown) => {
        for (const b of batch) b.reject(err);
      },
    );
  }
}

/**
 * Stores a response, off the answer's path: the client gets its last event without waiting for the
 * write, and the writes of SAVE_DELAY_MS go in one INSERT. A read of the id on this
 * process (previous_response_id, GET, DELETE) waits for the write; on another process a miss is
 * retried briefly (findStored) before it is a 404. A write that fails is logged: the response is
 * then not stored, as if `store` had been false.
 */
export function saveResponse(
  ctx: Ctx,
  given: { id: string; previousResponseId: string | null; input: Item[]; response: Record<string, unknown> },
  masking?: Masking,
): void {
  // Under a masking rule the stored conversation holds placeholders too (one set for its input and
  // answer): a conversation continued from it carries them (docs/masking.md).
  let r = given;
  if (masking && masking.mode !== "off") {
    const masker = createMasker({ recognizers: masking.recognizers, kinds: masking.kinds });
    r = { ...given, input: masker.maskValue(given.input), response: masker.maskValue(given.response) };
  }
  const saves = savesOf(ctx);
  const written = new Promise<void>((resolve, reject) => {
    if (saves.queued.length === 0) setTimeout(() => flushSaves(ctx, saves), SAVE_DELAY_MS);
    saves.queued.push({ save: { projectId: ctx.projectId, ...r }, resolve, reject });
  });
  const done = written
    .catch((err: unknown) => {
      ctx.deps.logger.error("a Responses API response could not be stored", {
        requestId: ctx.requestId,
        responseId: r.id,
        // The driver's reason, not Drizzle's message (which quotes the batch: the Responses themselves).
        ...statementErrorFields(err),
      });
    })
    .finally(() => {
      if (saves.inFlight.get(r.id) === done) saves.inFlight.delete(r.id);
    });
  saves.inFlight.set(r.id, done);
}

/** Waits for every save still in flight on this process (shutdown, tests). */
export async function settleResponseSaves(deps: Ctx["deps"]): Promise<void> {
  await Promise.all(deps.caches.responseSaves.inFlight.values());
}

/** After a miss, how long (ms) each retry waits: a response just finished on another process may not be committed yet. */
const MISS_RETRIES_MS = [25, 75, 150];

/** A read of a stored response: after this process's own write of it, retried briefly on a miss. */
async function findStored<T>(ctx: Ctx, id: string, read: () => Promise<T | undefined>): Promise<T> {
  await savesOf(ctx).inFlight.get(id);
  for (let attempt = 0; ; attempt++) {
    const found = await read();
    if (found !== undefined) return found;
    const wait = MISS_RETRIES_MS[attempt];
    if (wait === undefined) throw notFound(id);
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

const notFound = (id: string) =>
  new DomainError("NOT_FOUND", `Response with id '${id}' not found.`, { issues: [{ message: "no such response", path: ["id"] }] });

/**
 * The conversation a response ends: every input and output item from the first response of its
 * chain to it, in order (404 when the project has no such response). The chain is measured in the
 * database first: a conversation larger than a request body may be (HONE_MAX_BODY_BYTES) is a 400,
 * never loaded.
 */
export async function conversationOf(ctx: Ctx, id: string): Promise<Item[]> {
  const db = dbOf(ctx);
  const links = await findStored(ctx, id, async () => {
    const found = resultRows<{ id: string; bytes: number }>(
      await db.execute(sql`
    with recursive chain(id, previous_response_id, bytes, depth) as (
      select id, previous_response_id, octet_length(input::text) + octet_length(coalesce(response -> 'output', '[]'::jsonb)::text), 0
      from ${storedResponses} where project_id = ${ctx.projectId} and id = ${id}
      union all
      select s.id, s.previous_response_id, octet_length(s.input::text) + octet_length(coalesce(s.response -> 'output', '[]'::jsonb)::text), c.depth + 1
      from ${storedResponses} s join chain c on s.id = c.previous_response_id
      where s.project_id = ${ctx.projectId} and c.depth < ${MAX_CHAIN}
    )
    select id, bytes::float8 as bytes from chain order by depth desc`),
    );
    return found.length ? found : undefined;
  });
  const total = links.reduce((n, l) => n + Number(l.bytes), 0);
  const max = ctx.deps.config.maxBodyBytes;
  if (total > max) {
    const why = `the conversation previous_response_id continues is ${total.toLocaleString("en-US")} bytes, more than a request may carry (HONE_MAX_BODY_BYTES is ${max.toLocaleString("en-US")}); start a new one`;
    throw new DomainError("VALIDATION", why, { issues: [{ message: why, path: ["previous_response_id"] }] });
  }
  const rows = resultRows<{ id: string; input: Item[]; output: Item[] | null }>(
    await db.execute(sql`select id, input, response -> 'output' as output from ${storedResponses}
      where project_id = ${ctx.projectId} and id in (${sql.join(
        links.map((l) => sql`${l.id}`),
        sql`, `,
      )})`),
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  return links.flatMap((l) => {
    const r = byId.get(l.id);
    return r ? [...r.input, ...(r.output ?? [])] : [];
  });
}

/** A stored response of the project, its input items and the Response (404 when there is none). */
function storedRow(ctx: Ctx, id: string): Promise<{ input: Item[]; response: Record<string, unknown> }> {
  return findStored(ctx, id, async () => {
    const [found] = await dbOf(ctx)
      .select({ input: storedResponses.input, response: storedResponses.response })
      .from(storedResponses)
      .where(and(eq(storedResponses.projectId, ctx.projectId), eq(storedResponses.id, id)));
    return found;
  });
}

export async function getStoredResponse(ctx: Ctx, id: string): Promise<Record<string, unknown>> {
  return (await storedRow(ctx, id)).response;
}

export async function deleteStoredResponse(ctx: Ctx, id: string): Promise<{ id: string; object: "response"; deleted: true }> {
  await findStored(ctx, id, async () => {
    const gone = await dbOf(ctx)
      .delete(storedResponses)
      .where(and(eq(storedResponses.projectId, ctx.projectId), eq(storedResponses.id, id)))
      .returning({ id: storedResponses.id });
    return gone.length ? true : undefined;
  });
  return { id, object: "response", deleted: true };
}

/**
 * Deletes the stored Responses older than `before` (HONE_LOG_RETENTION_DAYS: they hold what the
 * logs hold), across projects, in batches so no statement holds locks for long. Returns how many.
 */
export function deleteExpiredResponses(ctx: BaseCtx, input: { before: Date; batchSize?: number }): Promise<number> {
  return deleteOlderThan(ctx, storedResponses, input);
}

export const InputItemsQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  order: z.enum(["asc", "desc"]).default("desc"),
  after: z.string().max(256).optional(),
});

/** GET /responses/{id}/input_items: the response's own input items, a page at a time. */
export async function listInputItems(ctx: Ctx, id: string, query: unknown) {
  const q = parseInput(InputItemsQuery, query);
  const row = await storedRow(ctx, id);
  const items = q.order === "asc" ? row.input : [...row.input].reverse();
  const from = q.after ? items.findIndex((i) => i.id === q.after) + 1 : 0;
  const data = items.slice(from, from + q.limit);
  return {
    object: "list",
    data,
    first_id: (data[0]?.id as string | undefined) ?? null,
    last_id: (data.at(-1)?.id as string | undefined) ?? null,
    has_more: from + q.limit < items.length,
  };
}

/** At most this many distinct ids are resolved for one request (its input and the conversation it continues). */
const MAX_REFERENCES = 1_000;

type Reference = { list: number; index: number; id: string; at: (string | number)[] };

/**
 * The lists with every item_reference replaced by the item it names: an output item of a response
 * this project stored (the latest, should an upstream have repeated an id), else an input item it
 * stored. An unknown id, or another project's, is a 400 naming it. One statement for all of them,
 * found through the indexes on the stored item ids; what it would load is measured in the database
 * first, and over HONE_MAX_BODY_BYTES is a 400, never loaded.
 */
export async function resolveItemReferences(ctx: Ctx, lists: { items: Item[]; path: string }[]): Promise<Item[][]> {
  const refs: Reference[] = [];
  for (const [list, { items, path }] of lists.entries()) {
    for (const [index, item] of items.entries()) {
      if (item.type !== "item_reference") continue;
      const at = path === "input" ? [path, index, "id"] : [path];
      if (typeof item.id !== "string" || !item.id || item.id.length > 256) {
        const why = "an item_reference needs the id of an item (at most 256 characters)";
        throw new DomainError("VALIDATION", why, { issues: [{ message: why, path: at }] });
      }
      refs.push({ list, index, id: item.id, at });
    }
  }
  if (!refs.length) return lists.map((l) => l.items);
  const ids = [...new Set(refs.map((r) => r.id))];
  if (ids.length > MAX_REFERENCES) {
    const why = `${ids.length.toLocaleString("en-US")} items are referenced (item_reference), more than the ${MAX_REFERENCES.toLocaleString("en-US")} one request may name; send some of them as items, or continue with previous_response_id`;
    throw new DomainError("VALIDATION", why, { issues: [{ message: why, path: refs[0]!.at }] });
  }
  const max = ctx.deps.config.maxBodyBytes;
  const wanted = JSON.stringify(ids);
  // The indexed expressions are written as the indexes have them, so that the planner uses them.
  // Inputs are searched only for the ids no output has: an output item the client sent back as
  // input later has copies in many inputs, and its original is the one meant.
  const lookup = async () =>
    resultRows<{ id: string; bytes: number; item: Item | null }>(
      await dbOf(ctx).execute(sql`
    with wanted as (select array(select jsonb_array_elements_text(${wanted}::text::jsonb)) as ids),
    outs as (
      select distinct on (x.item ->> 'id') x.item ->> 'id' as id, x.item, octet_length(x.item::text) as bytes
      from ${storedResponses} s cross join lateral jsonb_path_query(s.response, '$.output[*]') as x(item)
      where s.project_id = ${ctx.projectId} and jsonb_path_query_array(s.response, '$.output[*].id') ?| (select ids from wanted)
        and x.item ->> 'id' = any((select ids from wanted)::text[])
      order by x.item ->> 'id', s.created_at desc
    ),
    rest as (select array(select unnest(w.ids) except select id from outs) as ids from wanted w),
    ins as (
      select distinct on (x.item ->> 'id') x.item ->> 'id' as id, x.item, octet_length(x.item::text) as bytes
      from ${storedResponses} s cross join lateral jsonb_path_query(s.input, '$[*]') as x(item)
      where s.project_id = ${ctx.projectId} and jsonb_path_query_array(s.input, '$[*].id') ?| (select ids from rest)
        and x.item ->> 'id' = any((select ids from rest)::text[]) and x.item ->> 'type' is distinct from 'item_reference'
      order by x.item ->> 'id', s.created_at desc
    ),
    found as (select * from outs union all select * from ins)
    select id, bytes::float8 as bytes, case when (select coalesce(sum(bytes), 0) from found) <= ${max} then item end as item from found`),
    );
  // A tool loop sends its next call the moment an answer arrives, before that answer is written
  // (saveResponse): a miss waits for this process's writes, then is retried as findStored does.
  let rows = await lookup();
  for (const wait of [0, ...MISS_RETRIES_MS]) {
    if (rows.length >= ids.length) break;
    if (wait) await new Promise((resolve) => setTimeout(resolve, wait));
    else await Promise.all(savesOf(ctx).inFlight.values());
    rows = await lookup();
  }
  const byId = new Map(rows.map((r) => [r.id, r]));
  const missing = refs.find((r) => !byId.has(r.id));
  if (missing) {
    const why = `Item with id '${missing.id}' not found: an item_reference names an item of a response this project stored`;
    throw new DomainError("VALIDATION", why, { issues: [{ message: why, path: missing.at }] });
  }
  const total = rows.reduce((n, r) => n + Number(r.bytes), 0);
  if (total > max) {
    const why = `the items referenced (item_reference) are ${total.toLocaleString("en-US")} bytes, more than a request may carry (HONE_MAX_BODY_BYTES is ${max.toLocaleString("en-US")})`;
    throw new DomainError("VALIDATION", why, { issues: [{ message: why, path: refs[0]!.at }] });
  }
  const out = lists.map((l) => [...l.items]);
  for (const r of refs) out[r.list]![r.index] = byId.get(r.id)!.item as Item;
  return out;
}
