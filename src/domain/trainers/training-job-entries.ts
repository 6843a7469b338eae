import type { Ctx } from "../context";
import { preferenceLines, trainingEntries } from "../datasets";
import { leasedRow } from "./internal";

/**
 * The entries of a leased job, one JSON object a line: SFT `{messages, tools?}` (the last message
 * is the output to learn); DPO `{prompt, chosen, rejected, tools?}`, a line per preference pair.
 * Read a page at a time from the database, so a large dataset streams in bounded memory.
 */
export async function* trainingJobEntries(ctx: Ctx, ref: { id: string; leaseId: string }, split: "TRAIN" | "TEST"): AsyncGenerator<string> {
  const row = await leasedRow(ctx, ref);
  if (!row.datasetId) return;
  if (row.method === "dpo") {
    for await (const p of preferenceLines(ctx, row.datasetId, { excludeFailing: row.excludeFailing, split })) {
      const input = p.input as { messages: unknown[]; tools?: unknown[] };
      yield JSON.stringify({
        prompt: input.messages,
        chosen: p.preferred_output[0],
        rejected: p.non_preferred_output[0],
        ...(input.tools ? { tools: input.tools } : {}),
      });
    }
    return;
  }
  for await (const e of trainingEntries(ctx, row.datasetId, row.excludeFailing, split)) yield JSON.stringify(e);
}
