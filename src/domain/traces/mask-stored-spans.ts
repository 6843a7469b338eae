import { and, asc, eq, gt, or } from "drizzle-orm";
import { type Ctx, dbOf } from "../context";
import { traceSpans } from "../../db/schema";
import { createMasker, type Recognizer } from "../../lib/masking";

// Masking what was stored before a rule (domain/mask-backfill): one batch of a project's trace
// spans (docs/traces.md), their names, attributes (a tool's arguments and result), events and
// status messages, each span with its own placeholders. A model call's messages are in its log,
// masked in the logs' phase. The cursor is the last span done, "<trace id>:<span id>".

export async function maskStoredSpans(
  ctx: Ctx,
  input: { after: string | null; limit: number; recognizers: readonly Recognizer[]; kinds: string[] | null },
): Promise<{ read: number; changed: number; last: string | null; more: boolean }> {
  const db = dbOf(ctx);
  const [traceId, spanId] = input.after ? input.after.split(":") : [null, null];
  const rows = await db
    .select({
      traceId: traceSpans.traceId,
      spanId: traceSpans.spanId,
      name: traceSpans.name,
      attributes: traceSpans.attributes,
      events: traceSpans.events,
      statusMessage: traceSpans.statusMessage,
    })
    .from(traceSpans)
    .where(
      and(
        eq(traceSpans.projectId, ctx.projectId),
        traceId && spanId ? or(gt(traceSpans.traceId, traceId), and(eq(traceSpans.traceId, traceId), gt(traceSpans.spanId, spanId))) : undefined,
      ),
    )
    .orderBy(asc(traceSpans.traceId), asc(traceSpans.spanId))
    .limit(input.limit);
  let changed = 0;
  for (const r of rows) {
    const masker = createMasker({ recognizers: input.recognizers, kinds: input.kinds });
    const m = masker.maskValue({ name: r.name, attributes: r.attributes, events: r.events, statusMessage: r.statusMessage });
    if (!masker.any) continue;
    changed++;
    await db
      .update(traceSpans)
      .set({ name: m.name, attributes: m.attributes, events: m.events, statusMessage: m.statusMessage })
      .where(and(eq(traceSpans.projectId, ctx.projectId), eq(traceSpans.traceId, r.traceId), eq(traceSpans.spanId, r.spanId)));
  }
  const last = rows.at(-1);
  return { read: rows.length, changed, last: last ? `${last.traceId}:${last.spanId}` : null, more: rows.length === input.limit };
}
