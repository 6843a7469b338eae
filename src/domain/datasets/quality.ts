import { and, asc, eq, gte, isNull, lt, or, sql } from "drizzle-orm";
import pLimit from "p-limit";
import { z } from "zod";
import { dbOf, type Ctx } from "../../context";
import { datasetEntries, datasetTasks, entryVerdicts } from "../../db/schema";
import type { Deps } from "../../deps";
import { notFound, parseInput, toDomainError } from "../../errors";
import { modelName } from "../chat/schemas";
import { createChatCompletion } from "../completions/create-chat-completion";
import { resolveModel } from "../completions/resolve-model";
import { judgeOutput, resolveCriterion } from "../criteria";
import { splitEntry } from "../evaluations/internal";
import { enqueueJob } from "../jobs";
import { entryContentHash, findDataset } from "./internal";

export const DATASET_TASK_JOB = "dataset-task";
const CHUNK = 100;

export const JudgeEntriesInput = z.object({ datasetId: z.string().min(1), criterionId: z.string().min(1) });
export const RelabelEntriesInput = JudgeEntriesInput.extend({ model: modelName("model") });

export type DatasetTask = {
  id: string;
  datasetId: string;
  kind: "judge" | "relabel";
  criterionId: string;
  criterionVersion: number;
  model: string | null;
  status: "QUEUED" | "RUNNING" | "DONE" | "ERROR";
  progress: { done: number; total: number };
  errorMessage: string | null;
  createdAt: Date;
};

const toTask = (r: typeof datasetTasks.$inferSelect): DatasetTask => ({
  id: r.id,
  datasetId: r.datasetId,
  kind: r.kind,
  criterionId: r.criterionId,
  criterionVersion: r.criterionVersion,
  model: r.model,
  status: r.status,
  progress: { done: r.done, total: r.total },
  errorMessage: r.errorMessage,
  createdAt: r.createdAt,
});

async function startTask(ctx: Ctx, input: { datasetId: string; criterionId: string; kind: "judge" | "relabel"; model?: string }): Promise<DatasetTask> {
  const dataset = await findDataset(ctx, input.datasetId);
  const criterion = await resolveCriterion(ctx, input.criterionId);
  if (input.model) resolveModel(input.model, ctx.deps.config.modelPrefixes);
  const id = ctx.deps.ids("datasetTask");
  const now = ctx.deps.clock();
  // A relabel task handles every entry whose latest verdict is not PASS: the unjudged (and those
  // the judge could not decide) are judged first, then the failing ones relabelled and judged again.
  const total =
    input.kind === "judge"
      ? dataset.entryCount
      : dataset.entryCount -
        Number(
          (
            await dbOf(ctx)
              .select({ n: sql<number>`count(*)::int` })
              .from(entryVerdicts)
              .innerJoin(datasetEntries, eq(datasetEntries.id, entryVerdicts.entryId))
              .where(and(eq(datasetEntries.datasetId, dataset.id), eq(entryVerdicts.criterionId, criterion.criterionId), eq(entryVerdicts.judgement, "PASS")))
          )[0]!.n,
        );
  const [row] = await dbOf(ctx).transaction(async (tx) => {
    const inserted = await tx
      .insert(datasetTasks)
      .values({ id, projectId: ctx.projectId, datasetId: dataset.id, kind: input.kind, criterionId: criterion.criterionId, criterionVersion: criterion.version, model: input.model ?? null, status: "QUEUED", total, createdAt: now, updatedAt: now })
      .returning();
    await enqueueJob({ ...ctx, tx }, { kind: DATASET_TASK_JOB, payload: { taskId: id }, maxAttempts: 10 });
    return inserted;
  });
  ctx.deps.nudgeJobs();
  return toTask(row!);
}

/** Judges every entry of a dataset (its final assistant turn) with a criterion, in the background. */
export async function judgeDatasetEntries(ctx: Ctx, raw: { datasetId: string; criterionId: string }): Promise<DatasetTask> {
  const input = parseInput(JudgeEntriesInput, raw);
  return startTask(ctx, { ...input, kind: "judge" });
}

/**
 * Does the whole quality job of a criterion in one background task: first judges the entries that
 * have no verdict of it yet, then regenerates with the given model the final assistant turn of every
 * entry whose latest verdict is FAIL, then judges each relabelled entry again (its new verdict
 * replaces the old). The first original is kept (originalMessages) for audit and revert. Progress
 * counts the entries handled out of those whose latest verdict was not PASS.
 */
export async function relabelDatasetEntries(ctx: Ctx, raw: { datasetId: string; criterionId: string; model: string }): Promise<DatasetTask> {
  const input = parseInput(RelabelEntriesInput, raw);
  return startTask(ctx, { ...input, kind: "relabel" });
}

export async function getDatasetTask(ctx: Ctx, raw: { id: string }): Promise<DatasetTask> {
  const [r] = await dbOf(ctx).select().from(datasetTasks).where(and(eq(datasetTasks.id, raw.id), eq(datasetTasks.projectId, ctx.projectId)));
  if (!r) throw notFound("Dataset task", raw.id);
  return toTask(r);
}

/** One step of a judge or relabel task (job queue): up to CHUNK entries not yet handled by it. */
export async function runDatasetTaskStep(
  deps: Deps,
  input: { taskId: string },
  signal: AbortSignal = new AbortController().signal,
): Promise<{ done: true } | { runAgainInMs: number }> {
  const db = deps.database.db;
  const [task] = await db.select().from(datasetTasks).where(eq(datasetTasks.id, input.taskId));
  if (!task || task.status === "DONE" || task.status === "ERROR") return { done: true };
  const ctx: Ctx = { deps, actor: { type: "system", job: "dataset-task" }, projectId: task.projectId, requestId: `dataset-task-${task.id}` };
  if (task.status === "QUEUED") await db.update(datasetTasks).set({ status: "RUNNING", updatedAt: deps.clock() }).where(eq(datasetTasks.id, task.id));
  let criterion: Awaited<ReturnType<typeof resolveCriterion>>;
  try {
    criterion = await resolveCriterion(ctx, `${task.criterionId}@v${task.criterionVersion}`);
  } catch (err) {
    await db.update(datasetTasks).set({ status: "ERROR", errorMessage: toDomainError(err).message, updatedAt: deps.clock() }).where(eq(datasetTasks.id, task.id));
    return { done: true };
  }
  const since = task.createdAt;

  const columns = {
    id: datasetEntries.id,
    messages: datasetEntries.messages,
    tools: datasetEntries.tools,
    toolChoice: datasetEntries.toolChoice,
    responseFormat: datasetEntries.responseFormat,
  };
  const verdictOf = and(eq(entryVerdicts.entryId, datasetEntries.id), eq(entryVerdicts.criterionId, task.criterionId));
  // A judge task judges every entry again; a relabel task only those without a judgement (never
  // judged, relabelled by it, or left undecided by an earlier judge error).
  const toJudge = await db
    .select(columns)
    .from(datasetEntries)
    .leftJoin(entryVerdicts, verdictOf)
    .where(
      and(
        eq(datasetEntries.datasetId, task.datasetId),
        task.kind === "judge"
          ? or(isNull(entryVerdicts.entryId), lt(entryVerdicts.createdAt, since))
          : or(isNull(entryVerdicts.entryId), and(isNull(entryVerdicts.judgement), lt(entryVerdicts.createdAt, since))),
      ),
    )
    .orderBy(asc(datasetEntries.id))
    .limit(CHUNK);
  // Relabelling waits until everything is judged, so entries found failing now are relabelled too.
  const toRelabel =
    task.kind === "relabel" && toJudge.length === 0
      ? await db
          .select(columns)
          .from(datasetEntries)
          .innerJoin(entryVerdicts, verdictOf)
          .where(and(eq(datasetEntries.datasetId, task.datasetId), eq(entryVerdicts.judgement, "FAIL"), or(isNull(datasetEntries.relabeledAt), lt(datasetEntries.relabeledAt, since))))
          .orderBy(asc(datasetEntries.id))
          .limit(CHUNK)
      : [];
  type Pending = (typeof toJudge)[number];
  const now = () => deps.clock();

  const judge = async (entry: Pending) => {
    const { input: messages, reference } = splitEntry(entry.messages);
    let verdict: { judgement: "PASS" | "FAIL" | null; explanation: string | null; error: string | null };
    try {
      if (!reference) throw new Error("the entry has no assistant turn to judge");
      const v = await judgeOutput(ctx, criterion, { messages, tools: entry.tools, tool_choice: entry.toolChoice, output: reference }, signal);
      verdict = { judgement: v.judgement, explanation: v.explanation, error: null };
    } catch (err) {
      if (signal.aborted) return;
      verdict = { judgement: null, explanation: null, error: toDomainError(err).message };
    }
    await db
      .insert(entryVerdicts)
      .values({ entryId: entry.id, criterionId: task.criterionId, version: task.criterionVersion, ...verdict, createdAt: now() })
      .onConflictDoUpdate({ target: [entryVerdicts.entryId, entryVerdicts.criterionId], set: { version: task.criterionVersion, ...verdict, createdAt: now() } });
  };

  const relabel = async (entry: Pending) => {
    const { input: messages } = splitEntry(entry.messages);
    try {
      const result = await createChatCompletion(ctx, {
        body: { model: task.model!, messages, ...(entry.tools ? { tools: entry.tools } : {}), ...(entry.toolChoice ? { tool_choice: entry.toolChoice } : {}) },
        headers: { tags: JSON.stringify({ "hone.relabel": task.id }) },
        signal,
      });
      if (result.kind !== "completion" || !result.completion.choices[0]) throw new Error("no answer");
      const m = result.completion.choices[0].message;
      const answer: Record<string, unknown> = { role: "assistant", content: m.content ?? null, ...(m.tool_calls?.length ? { tool_calls: m.tool_calls } : {}) };
      const next = [...messages, answer];
      await db.transaction(async (tx) => {
        await tx
          .update(datasetEntries)
          .set({
            messages: next,
            originalMessages: sql`coalesce(${datasetEntries.originalMessages}, ${datasetEntries.messages})`,
            relabeledBy: task.model,
            relabeledAt: now(),
            contentHash: entryContentHash({
              messages: next as never,
              tools: entry.tools as never,
              tool_choice: entry.toolChoice as never,
              response_format: entry.responseFormat as never,
            }),
          })
          .where(eq(datasetEntries.id, entry.id));
        // The verdict judged the old answer: it no longer applies. Without one, the entry is
        // judged again by the next step of this task.
        await tx.delete(entryVerdicts).where(and(eq(entryVerdicts.entryId, entry.id), eq(entryVerdicts.criterionId, task.criterionId)));
      });
    } catch (err) {
      if (signal.aborted) return;
      // Marked as handled so the task does not loop on it; the reason goes on the task.
      await db.update(datasetEntries).set({ relabeledAt: now() }).where(eq(datasetEntries.id, entry.id));
      await db.update(datasetTasks).set({ errorMessage: `entry ${entry.id}: ${toDomainError(err).message}` }).where(eq(datasetTasks.id, task.id));
    }
  };

  const limit = pLimit(deps.config.evalConcurrency);
  // Past the step's deadline nothing new starts, and nothing cut off is stored: the entry stays
  // pending and the next step does it again.
  const guarded = (work: (e: Pending) => Promise<void>) => (entry: Pending) => limit(() => (signal.aborted ? undefined : work(entry)));
  await Promise.all([...toJudge.map(guarded(judge)), ...toRelabel.map(guarded(relabel))]);

  const [counted] =
    task.kind === "judge"
      ? await db
          .select({ n: sql<number>`count(*)::int` })
          .from(entryVerdicts)
          .innerJoin(datasetEntries, eq(datasetEntries.id, entryVerdicts.entryId))
          .where(and(eq(datasetEntries.datasetId, task.datasetId), eq(entryVerdicts.criterionId, task.criterionId), gte(entryVerdicts.createdAt, since)))
      : await db
          .select({ n: sql<number>`count(*)::int` })
          .from(datasetEntries)
          .leftJoin(entryVerdicts, verdictOf)
          .where(and(eq(datasetEntries.datasetId, task.datasetId), or(gte(datasetEntries.relabeledAt, since), gte(entryVerdicts.createdAt, since))));
  const n = Number(counted?.n ?? 0);
  // A relabel task is done once a step finds nothing to judge and nothing to relabel: relabelled
  // entries come back as entries to judge.
  const finished = task.kind === "judge" ? toJudge.length < CHUNK : toJudge.length === 0 && toRelabel.length === 0;
  await db
    .update(datasetTasks)
    .set({ done: Number(n), ...(finished ? { status: "DONE" as const, total: Math.max(task.total, Number(n)) } : {}), updatedAt: deps.clock() })
    .where(eq(datasetTasks.id, task.id));
  return finished ? { done: true } : { runAgainInMs: 0 };
}
