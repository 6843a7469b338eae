import { storageMasking } from "../masking";
import { and, eq, ne } from "drizzle-orm";
import { z } from "zod";
import { dbOf, type Ctx } from "../context";
import { datasetEntries, entryVerdicts } from "../../db/schema";
import { DomainError, issuesFromZod, notFound, parseInput, VALIDATION_MESSAGE } from "../../core/errors";
import { canonicalJson } from "../../lib/canonical-json";
import { entryContentHash, toDatasetEntry, touchDataset, withRejected } from "./internal";
import { verdictsOfEntries } from "./entry-queries";
import { DatasetEntryInput, type DatasetEntryWithVerdicts, UpdateDatasetEntryInput } from "./schemas";

// DatasetEntryInput speaks the wire's snake_case; the edit's input (and so its issue paths) camelCase.
const INPUT_NAMES: Record<string, string> = { tool_choice: "toolChoice", response_format: "responseFormat" };

/**
 * Edits one entry: the fields given replace the stored ones and the result is checked whole, by
 * the schema an added entry passes (issues carry field paths, e.g. ["messages", 2, "tool_calls", 0,
 * "function", "arguments"]). When the content (messages, tools, toolChoice, responseFormat)
 * changes, its hash is recomputed; an edit that would make it the same as another entry of the
 * dataset is refused with CONFLICT naming that entry, and the entry's verdicts are deleted (they
 * judged content that is gone; judge it again). An edit of metadata or split alone keeps them.
 */
export async function updateDatasetEntry(ctx: Ctx, raw: UpdateDatasetEntryInput): Promise<DatasetEntryWithVerdicts> {
  const input = parseInput(UpdateDatasetEntryInput, raw);
  const entry = await dbOf(ctx).transaction(async (tx) => {
    // Locks the dataset row: edits and additions to one dataset run one after the other, so two
    // concurrent edits cannot both pass the duplicate check with the same content.
    await touchDataset(ctx, tx, input.datasetId);
    const [row] = await tx
      .select()
      .from(datasetEntries)
      .where(and(eq(datasetEntries.id, input.entryId), eq(datasetEntries.datasetId, input.datasetId), eq(datasetEntries.projectId, ctx.projectId)))
      .for("update");
    if (!row) throw notFound("Dataset entry", input.entryId);
    const given = <T>(value: T | undefined, stored: T) => (value === undefined ? stored : value);
    const candidate = {
      messages: given(input.messages, row.messages),
      tools: given(input.tools, row.tools),
      tool_choice: given(input.toolChoice, row.toolChoice),
      response_format: given(input.responseFormat, row.responseFormat),
      metadata: given(input.metadata, row.metadata),
      split: given(input.split, row.split),
    };
    const parsed = DatasetEntryInput.safeParse(candidate);
    if (!parsed.success) {
      const renamed = parsed.error.issues.map((i) => {
        const [head, ...rest] = i.path;
        return { ...i, path: typeof head === "string" ? [INPUT_NAMES[head] ?? head, ...rest] : i.path };
      });
      throw new DomainError("VALIDATION", VALIDATION_MESSAGE, { issues: issuesFromZod(new z.ZodError(renamed)) });
    }
    // Under the project's masking rule, stored with placeholders (domain/masking).
    const mask = await storageMasking(ctx, [parsed.data]);
    const next = mask ? mask(parsed.data) : parsed.data;
    const hash = entryContentHash(next);
    const contentChanged = hash !== row.contentHash;
    if (contentChanged) {
      const [twin] = await tx
        .select({ id: datasetEntries.id })
        .from(datasetEntries)
        .where(and(eq(datasetEntries.datasetId, input.datasetId), eq(datasetEntries.contentHash, hash), ne(datasetEntries.id, row.id)))
        .limit(1);
      if (twin) {
        throw new DomainError(
          "CONFLICT",
          `The edit would make entry ${row.id} a duplicate of entry ${twin.id} of this dataset (same messages, tools, tool_choice and response_format)`,
          {
            issues: [{ message: `messages: duplicate of entry ${twin.id}`, path: ["messages"] }],
          },
        );
      }
      await tx.delete(entryVerdicts).where(eq(entryVerdicts.entryId, row.id));
    }
    // The same conversation with another final answer: the answer it had becomes a rejected
    // output (preference data), as the person preferred theirs.
    const before = splitFinal(row.messages);
    const after = splitFinal(next.messages as unknown[]);
    const answerEdited =
      before.answer !== null &&
      after.answer !== null &&
      canonicalJson(before.head) === canonicalJson(after.head) &&
      canonicalJson(before.answer) !== canonicalJson(after.answer);
    const rejectedOutputs = answerEdited
      ? withRejected(row.rejectedOutputs, { message: before.answer!, source: "edit", ref: actorLabel(ctx), at: ctx.deps.clock().toISOString() })
      : row.rejectedOutputs;
    const [updated] = await tx
      .update(datasetEntries)
      .set({
        rejectedOutputs,
        messages: next.messages,
        tools: next.tools ?? null,
        toolChoice: next.tool_choice ?? null,
        responseFormat: next.response_format ?? null,
        metadata: next.metadata ?? {},
        split: next.split ?? row.split,
        contentHash: hash,
      })
      .where(eq(datasetEntries.id, row.id))
      .returning();
    return toDatasetEntry(updated!);
  });
  const verdicts = await verdictsOfEntries(dbOf(ctx), ctx.projectId, [entry.id]);
  return { ...entry, verdicts: verdicts.get(entry.id) ?? [] };
}

/** A conversation's messages before its final assistant turn, and that turn (null: it ends otherwise). */
function splitFinal(messages: unknown[]): { head: unknown[]; answer: Record<string, unknown> | null } {
  const last = messages.at(-1) as Record<string, unknown> | undefined;
  return last?.role === "assistant" ? { head: messages.slice(0, -1), answer: last } : { head: messages, answer: null };
}

/** Who made an edit, as a rejected output records it. */
function actorLabel(ctx: Ctx): string {
  const a = ctx.actor;
  return a.type === "user" ? a.email : a.type === "apiKey" ? `key ${a.keyId}` : a.type;
}
