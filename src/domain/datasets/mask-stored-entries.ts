import { and, asc, eq, gt, sql } from "drizzle-orm";
import { type Ctx, dbOf } from "../context";
import { datasetEntries } from "../../db/schema";
import { createMasker, type Recognizer } from "../../lib/masking";
import { entryContentHash } from "./internal";

// Masking what was stored before a rule (domain/mask-backfill): one batch of a project's dataset
// entries, in id order, rewritten with placeholders (messages, the messages before a relabelling,
// tools, metadata, rejected outputs: one value one placeholder throughout an entry), their content
// hash of what is stored. An entry with nothing to mask is left as it is.

export async function maskStoredEntries(
  ctx: Ctx,
  input: { after: string | null; limit: number; recognizers: readonly Recognizer[]; kinds: string[] | null },
): Promise<{ read: number; changed: number; last: string | null; more: boolean }> {
  const db = dbOf(ctx);
  const rows = await db
    .select({
      id: datasetEntries.id,
      messages: datasetEntries.messages,
      tools: datasetEntries.tools,
      toolChoice: datasetEntries.toolChoice,
      responseFormat: datasetEntries.responseFormat,
      metadata: datasetEntries.metadata,
      originalMessages: datasetEntries.originalMessages,
      rejectedOutputs: datasetEntries.rejectedOutputs,
    })
    .from(datasetEntries)
    .where(and(eq(datasetEntries.projectId, ctx.projectId), input.after ? gt(datasetEntries.id, input.after) : undefined))
    .orderBy(asc(datasetEntries.id))
    .limit(input.limit);
  let changed = 0;
  for (const r of rows) {
    const masker = createMasker({ recognizers: input.recognizers, kinds: input.kinds });
    const m = masker.maskValue({ ...r, id: undefined });
    if (!masker.any) continue;
    changed++;
    await db
      .update(datasetEntries)
      .set({
        messages: m.messages,
        tools: m.tools,
        toolChoice: m.toolChoice,
        responseFormat: m.responseFormat,
        metadata: m.metadata,
        originalMessages: m.originalMessages,
        rejectedOutputs: m.rejectedOutputs,
        bytes: sql`null`,
        contentHash: entryContentHash({
          messages: m.messages as never,
          tools: m.tools as never,
          tool_choice: m.toolChoice as never,
          response_format: m.responseFormat as never,
        }),
      })
      .where(and(eq(datasetEntries.id, r.id), eq(datasetEntries.projectId, ctx.projectId)));
  }
  return { read: rows.length, changed, last: rows.at(-1)?.id ?? null, more: rows.length === input.limit };
}
