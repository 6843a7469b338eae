import { and, asc, eq, inArray } from "drizzle-orm";
import pLimit from "p-limit";
import { dbOf, type Ctx } from "../../context";
import { alignmentRows, alignmentRuns, alignmentVerdicts, criteria } from "../../db/schema";
import { DomainError, issuesFromZod, notFound, parseInput } from "../../errors";
import { MAX_ALIGNMENT_ROWS, MAX_JSONL_LINE_BYTES } from "../../limits";
import { criterionNotFound, resolveCriterion } from "./internal";
import { judgeOutput } from "./judge-output";
import {
  AlignmentLine,
  ImportAlignmentSetInput,
  LabelAlignmentRowInput,
  RunAlignmentInput,
  type AlignmentRow,
  type AlignmentStats,
} from "./schemas";

export const ALIGNMENT_MAX_BYTES = 10 * 1024 * 1024;
export const RECOMMENDED_LABELLED_ROWS = 30;

async function ownCriterion(ctx: Ctx, criterionId: string): Promise<string> {
  const [row] = await dbOf(ctx)
    .select({ id: criteria.id })
    .from(criteria)
    .where(and(eq(criteria.id, criterionId), eq(criteria.projectId, ctx.projectId)));
  if (!row) throw criterionNotFound(criterionId);
  return row.id;
}

/**
 * Imports an alignment set: JSONL rows in the fine-tuning format (the last message is the output
 * to judge) with an optional human `judgement` PASS or FAIL. Bad lines are reported by number;
 * the good ones are stored.
 */
export async function importAlignmentSet(ctx: Ctx, raw: ImportAlignmentSetInput): Promise<{ rowsImported: number; errors: { line: number; message: string }[] }> {
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
  const criterionId = await ownCriterion(ctx, input.criterionId);
  const rows: (typeof alignmentRows.$inferInsert)[] = [];
  const errors: { line: number; message: string }[] = [];
  lines.forEach((text, i) => {
    const line = i + 1;
    if (!text.trim()) return;
    if (Buffer.byteLength(text) > MAX_JSONL_LINE_BYTES) {
      errors.push({ line, message: `line longer than ${MAX_JSONL_LINE_BYTES} bytes` });
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
      errors.push({ line, message: issuesFromZod(r.error).map((x) => x.message).join("; ") });
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
  for (let i = 0; i < rows.length; i += 500) await dbOf(ctx).insert(alignmentRows).values(rows.slice(i, i + 500));
  return { rowsImported: rows.length, errors };
}

export async function listAlignmentRows(ctx: Ctx, raw: { criterionId: string }): Promise<AlignmentRow[]> {
  const criterionId = await ownCriterion(ctx, raw.criterionId);
  const rows = await dbOf(ctx).select().from(alignmentRows).where(eq(alignmentRows.criterionId, criterionId)).orderBy(asc(alignmentRows.id));
  return rows.map(({ criterionId: _, ...r }) => r);
}

/** Sets or clears (null) the human label of a row. */
export async function labelAlignmentRow(ctx: Ctx, raw: { rowId: string; judgement: "PASS" | "FAIL" | null }): Promise<AlignmentRow> {
  const input = parseInput(LabelAlignmentRowInput, raw);
  const [owned] = await dbOf(ctx)
    .select({ id: alignmentRows.id })
    .from(alignmentRows)
    .innerJoin(criteria, eq(criteria.id, alignmentRows.criterionId))
    .where(and(eq(alignmentRows.id, input.rowId), eq(criteria.projectId, ctx.projectId)));
  if (!owned) throw notFound("Alignment row", input.rowId);
  const [row] = await dbOf(ctx).update(alignmentRows).set({ judgement: input.judgement }).where(eq(alignmentRows.id, owned.id)).returning();
  const { criterionId: _, ...out } = row!;
  return out;
}

/**
 * Confusion counts and precision / recall / F1 with FAIL as the positive class, over rows that
 * have both a human label and a judge verdict. A ratio with a zero denominator is null.
 */
export function alignmentStats(version: number, pairs: { human: "PASS" | "FAIL" | null; judge: "PASS" | "FAIL" | null }[], judgeErrors: number): AlignmentStats {
  let tp = 0, fp = 0, fn = 0, tn = 0;
  for (const { human, judge } of pairs) {
    if (!human || !judge) continue;
    if (judge === "FAIL" && human === "FAIL") tp++;
    else if (judge === "FAIL" && human === "PASS") fp++;
    else if (judge === "PASS" && human === "FAIL") fn++;
    else tn++;
  }
  const precision = tp + fp ? tp / (tp + fp) : null;
  const recall = tp + fn ? tp / (tp + fn) : null;
  const f1 = precision !== null && recall !== null && precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : precision === 0 || recall === 0 ? 0 : null;
  const rows = tp + fp + fn + tn;
  return {
    version,
    rows,
    precision,
    recall,
    f1,
    truePositives: tp,
    falsePositives: fp,
    falseNegatives: fn,
    trueNegatives: tn,
    judgeErrors,
    warning: rows < RECOMMENDED_LABELLED_ROWS ? `Only ${rows} labelled rows were judged; at least ${RECOMMENDED_LABELLED_ROWS} are recommended for meaningful statistics` : null,
  };
}

/**
 * Runs one criterion version (the latest when none is given) over the whole alignment set, a few
 * judge calls at a time (HONE_JUDGE_CONCURRENCY); stores every verdict and the statistics of
 * the version, replacing those of an earlier run of the same version.
 */
export async function runAlignment(ctx: Ctx, raw: { criterionId: string; version?: number | null }): Promise<AlignmentStats> {
  const input = parseInput(RunAlignmentInput, raw);
  const criterion = await resolveCriterion(ctx, input.version ? `${input.criterionId}@v${input.version}` : input.criterionId);
  const rows = await dbOf(ctx).select().from(alignmentRows).where(eq(alignmentRows.criterionId, criterion.criterionId));
  const limit = pLimit(ctx.deps.config.judgeConcurrency);
  const verdicts = await Promise.all(
    rows.map((row) =>
      limit(async () => {
        try {
          const v = await judgeOutput(ctx, criterion, { messages: row.messages, tools: row.tools, tool_choice: row.toolChoice, output: row.output });
          return { rowId: row.id, verdict: v.judgement, explanation: v.explanation, error: null };
        } catch (err) {
          return { rowId: row.id, verdict: null, explanation: null, error: err instanceof Error ? err.message : String(err) };
        }
      }),
    ),
  );
  const stats = alignmentStats(
    criterion.version,
    rows.map((r, i) => ({ human: r.judgement, judge: verdicts[i]!.verdict })),
    verdicts.filter((v) => v.error).length,
  );
  const now = ctx.deps.clock();
  await dbOf(ctx).transaction(async (tx) => {
    if (rows.length) {
      await tx.delete(alignmentVerdicts).where(and(inArray(alignmentVerdicts.rowId, rows.map((r) => r.id)), eq(alignmentVerdicts.version, criterion.version)));
      for (let i = 0; i < verdicts.length; i += 500) {
        await tx.insert(alignmentVerdicts).values(verdicts.slice(i, i + 500).map((v) => ({ ...v, version: criterion.version, createdAt: now })));
      }
    }
    await tx
      .insert(alignmentRuns)
      .values({ criterionId: criterion.criterionId, version: criterion.version, stats, createdAt: now })
      .onConflictDoUpdate({ target: [alignmentRuns.criterionId, alignmentRuns.version], set: { stats, createdAt: now } });
  });
  return stats;
}

/** The stored statistics of every version's last alignment run, oldest version first. */
export async function listAlignmentRuns(ctx: Ctx, raw: { criterionId: string }): Promise<(AlignmentStats & { createdAt: Date })[]> {
  const criterionId = await ownCriterion(ctx, raw.criterionId);
  const runs = await dbOf(ctx).select().from(alignmentRuns).where(eq(alignmentRuns.criterionId, criterionId)).orderBy(asc(alignmentRuns.version));
  return runs.map((r) => ({ ...(r.stats as AlignmentStats), createdAt: r.createdAt }));
}
