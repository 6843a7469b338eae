import type { Ctx } from "../context";
import type { alignmentRows } from "../../db/schema";
import { jsonTextTooDeep, tooDeepError } from "../../core/json-depth";
import { DomainError, issuesFromZod, parseInput } from "../../core/errors";
import { MAX_ALIGNMENT_ROWS, MAX_JSONL_LINE_BYTES } from "../../core/limits";
import { insertAlignmentRows } from "./alignment";
import { ownCriterionId } from "./internal";
import { AlignmentLine, ImportAlignmentSetInput } from "./schemas";

const ALIGNMENT_MAX_BYTES = 10 * 1024 * 1024;

/**
 * Imports an alignment set: JSONL rows in the fine-tuning format (the last message is the output
 * to judge) with an optional human `judgement` PASS or FAIL. Bad lines are reported by number;
 * the good ones are stored.
 */
export async function importAlignmentSet(
  ctx: Ctx,
  raw: ImportAlignmentSetInput,
): Promise<{ rowsImported: number; errors: { line: number; message: string }[] }> {
  const input = parseInput(ImportAlignmentSetInput, raw);
  if (Buffer.byteLength(input.jsonl) > ALIGNMENT_MAX_BYTES) {
    throw new DomainError("PAYLOAD_TOO_LARGE", `An alignment set may be at most 10 MB`, { issues: [{ message: "jsonl larger than 10 MB" }] });
  }
  const lines = input.jsonl.split("\n");
  // Every row is judged on each alignment run: the set is bounded before anything is parsed.
  let nonEmpty = 0;
  for (const text of lines) if (text.trim()) nonEmpty++;
  if (nonEmpty > MAX_ALIGNMENT_ROWS) {
    const message = `an alignment set may hold at most ${MAX_ALIGNMENT_ROWS} rows; this one has ${nonEmpty}`;
    throw new DomainError("VALIDATION", `Too many rows: ${message}`, { issues: [{ message, path: ["jsonl"] }] });
  }
  const criterionId = await ownCriterionId(ctx, input.criterionId);
  const rows: (typeof alignmentRows.$inferInsert)[] = [];
  const errors: { line: number; message: string }[] = [];
  lines.forEach((text, i) => {
    const line = i + 1;
    if (!text.trim()) return;
    if (Buffer.byteLength(text) > MAX_JSONL_LINE_BYTES) {
      errors.push({ line, message: `line longer than ${MAX_JSONL_LINE_BYTES} bytes` });
      return;
    }
    if (jsonTextTooDeep(text, ctx.deps.config.maxJsonDepth)) {
      errors.push({ line, message: tooDeepError(ctx.deps.config.maxJsonDepth, "The line").message });
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      errors.push({ line, message: "not valid JSON" });
      return;
    }
    const r = AlignmentLine.safeParse(value);
    if (!r.success) {
      errors.push({
        line,
        message: issuesFromZod(r.error)
          .map((x) => x.message)
          .join("; "),
      });
      return;
    }
    const output = r.data.messages.at(-1)!;
    if (output.role !== "assistant") {
      errors.push({ line, message: "the last message must be the assistant output to judge" });
      return;
    }
    rows.push({
      id: ctx.deps.ids("alignmentRow"),
      criterionId,
      messages: r.data.messages.slice(0, -1),
      tools: r.data.tools ?? null,
      toolChoice: r.data.tool_choice ?? null,
      output: output as Record<string, unknown>,
      judgement: r.data.judgement ?? null,
      createdAt: ctx.deps.clock(),
    });
  });
  await insertAlignmentRows(ctx, criterionId, rows);
  return { rowsImported: rows.length, errors };
}
