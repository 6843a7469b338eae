import { and, eq, inArray } from "drizzle-orm";
import { dbOf, type Ctx } from "../context";
import { type alignmentRows, datasetEntries, requestLogs } from "../../db/schema";
import { parseInput } from "../../core/errors";
import { logToEntry, loadLogBodies } from "../logs";
import { splitEntry } from "../chat";
import { insertAlignmentRows } from "./alignment";
import { ownCriterionId } from "./internal";
import { ImportAlignmentRowsInput } from "./schemas";

type Skipped = { id: string; message: string };

/**
 * Adds alignment rows from the project's logged calls and dataset entries (ids of other projects
 * are reported as not found). A log needs a request with messages and a response with a message;
 * an entry needs a final assistant turn. Each becomes a row whose output is that answer.
 */
export async function importAlignmentRows(ctx: Ctx, raw: ImportAlignmentRowsInput): Promise<{ rowsImported: number; skipped: Skipped[] }> {
  const input = parseInput(ImportAlignmentRowsInput, raw);
  const criterionId = await ownCriterionId(ctx, input.criterionId);
  const db = dbOf(ctx);
  const now = ctx.deps.clock();
  const rows: (typeof alignmentRows.$inferInsert)[] = [];
  const skipped: Skipped[] = [];
  const add = (messages: unknown[], tools: unknown, toolChoice: unknown, output: unknown) => {
    rows.push({
      id: ctx.deps.ids("alignmentRow"),
      criterionId,
      messages,
      tools: Array.isArray(tools) ? tools : null,
      toolChoice: toolChoice ?? null,
      output: output as Record<string, unknown>,
      judgement: input.judgement ?? null,
      createdAt: now,
    });
  };

  const logIds = [...new Set(input.logIds ?? [])];
  if (logIds.length) {
    const owned = await db
      .select({ id: requestLogs.id })
      .from(requestLogs)
      .where(and(eq(requestLogs.projectId, ctx.projectId), inArray(requestLogs.id, logIds)));
    const bodies = await loadLogBodies(ctx, logIds);
    const found = new Map(owned.map((l) => [l.id, l]));
    for (const id of logIds) {
      const body = bodies.get(id);
      if (!found.has(id) || !body) {
        skipped.push({ id, message: `Log ${id} not found` });
        continue;
      }
      const entry = logToEntry(body.reqPayload, body.respPayload, {});
      if (typeof entry === "string") {
        skipped.push({ id, message: entry });
        continue;
      }
      const { input: messages, reference } = splitEntry(entry.messages);
      add(messages, entry.tools, entry.tool_choice, reference);
    }
  }

  const entryIds = [...new Set(input.entryIds ?? [])];
  if (entryIds.length) {
    const entries = await db
      .select({ id: datasetEntries.id, messages: datasetEntries.messages, tools: datasetEntries.tools, toolChoice: datasetEntries.toolChoice })
      .from(datasetEntries)
      .where(and(eq(datasetEntries.projectId, ctx.projectId), inArray(datasetEntries.id, entryIds)));
    const found = new Map(entries.map((e) => [e.id, e]));
    for (const id of entryIds) {
      const e = found.get(id);
      if (!e) {
        skipped.push({ id, message: `Dataset entry ${id} not found` });
        continue;
      }
      const { input: messages, reference } = splitEntry(e.messages);
      if (!reference) {
        skipped.push({ id, message: "the entry has no final assistant turn to judge" });
        continue;
      }
      add(messages, e.tools, e.toolChoice, reference);
    }
  }
  await insertAlignmentRows(ctx, criterionId, rows);
  return { rowsImported: rows.length, skipped };
}
