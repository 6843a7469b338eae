import { and, eq, sql } from "drizzle-orm";
import { z } from "zod";
import { dbOf, type Ctx } from "../../context";
import { storedResponses } from "../../db/schema";
import { DomainError, parseInput } from "../../errors";
import { resultRows } from "../logs/internal";
import type { Item } from "./responses-format";

// Hone keeps the state of the Responses API itself, per project: previous_response_id continues a
// conversation whatever provider answered it, and GET, DELETE and input_items read it back.

/** How far back previous_response_id is followed. */
const MAX_CHAIN = 1_000;

export async function saveResponse(
  ctx: Ctx,
  r: { id: string; previousResponseId: string | null; input: Item[]; response: Record<string, unknown> },
): Promise<void> {
  await dbOf(ctx)
    .insert(storedResponses)
    .values({ id: r.id, projectId: ctx.projectId, previousResponseId: r.previousResponseId, input: r.input, response: r.response });
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
  const links = resultRows<{ id: string; bytes: number }>(
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
  if (links.length === 0) throw notFound(id);
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

export async function getStoredResponse(ctx: Ctx, id: string): Promise<Record<string, unknown>> {
  const [row] = await dbOf(ctx)
    .select({ response: storedResponses.response })
    .from(storedResponses)
    .where(and(eq(storedResponses.projectId, ctx.projectId), eq(storedResponses.id, id)));
  if (!row) throw notFound(id);
  return row.response;
}

export async function deleteStoredResponse(ctx: Ctx, id: string): Promise<{ id: string; object: "response"; deleted: true }> {
  const gone = await dbOf(ctx)
    .delete(storedResponses)
    .where(and(eq(storedResponses.projectId, ctx.projectId), eq(storedResponses.id, id)))
    .returning({ id: storedResponses.id });
  if (gone.length === 0) throw notFound(id);
  return { id, object: "response", deleted: true };
}

export const InputItemsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  order: z.enum(["asc", "desc"]).default("desc"),
  after: z.string().max(256).optional(),
});

/** GET /responses/{id}/input_items: the response's own input items, a page at a time. */
export async function listInputItems(ctx: Ctx, id: string, query: unknown) {
  const q = parseInput(InputItemsQuery, query);
  const [row] = await dbOf(ctx)
    .select({ input: storedResponses.input })
    .from(storedResponses)
    .where(and(eq(storedResponses.projectId, ctx.projectId), eq(storedResponses.id, id)));
  if (!row) throw notFound(id);
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
