import { and, asc, eq, gt } from "drizzle-orm";
import { type Ctx, dbOf } from "../context";
import { storedResponses } from "../../db/schema";
import { createMasker, type Recognizer } from "../../lib/masking";

// Masking what was stored before a rule (domain/mask-backfill): one batch of a project's stored
// Responses (the conversations previous_response_id continues), input and answer with one set of
// placeholders. A conversation continued from one carries them (docs/masking.md).

export async function maskStoredResponses(
  ctx: Ctx,
  input: { after: string | null; limit: number; recognizers: readonly Recognizer[]; kinds: string[] | null },
): Promise<{ read: number; changed: number; last: string | null; more: boolean }> {
  const db = dbOf(ctx);
  const rows = await db
    .select({ id: storedResponses.id, input: storedResponses.input, response: storedResponses.response })
    .from(storedResponses)
    .where(and(eq(storedResponses.projectId, ctx.projectId), input.after ? gt(storedResponses.id, input.after) : undefined))
    .orderBy(asc(storedResponses.id))
    .limit(input.limit);
  let changed = 0;
  for (const r of rows) {
    const masker = createMasker({ recognizers: input.recognizers, kinds: input.kinds });
    const m = masker.maskValue({ input: r.input, response: r.response });
    if (!masker.any) continue;
    changed++;
    await db
      .update(storedResponses)
      .set({ input: m.input, response: m.response })
      .where(and(eq(storedResponses.id, r.id), eq(storedResponses.projectId, ctx.projectId)));
  }
  return { read: rows.length, changed, last: rows.at(-1)?.id ?? null, more: rows.length === input.limit };
}
