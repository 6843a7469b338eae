import { storageMasking } from "../masking";
import { and, asc, eq, gte, isNull, lt, or, sql } from "drizzle-orm";
import pLimit from "p-limit";
import { datasetEntries, datasetTasks, entryVerdicts } from "../../db/schema";
import type { Deps } from "../deps";
import { toDomainError } from "../../core/errors";
import { callModel } from "../calls";
import { judgeOutput, resolveCriterion } from "../criteria";
import { splitEntry } from "../chat";
import { runTaskStep, type StepResult, type StepTools, type TaskKind } from "../jobs";
import { assistantOutput, entryContentHash } from "./internal";

/** Entries worked on per job step; the step then yields so its lease never runs out. */
const CHUNK = 100;

type TaskRow = typeof datasetTasks.$inferSelect;

const DATASET_TASK: TaskKind<TaskRow> = {
  job: "dataset-task",
  load: async (deps, id) => (await deps.database.db.select().from(datasetTasks).where(eq(datasetTasks.id, id)))[0],
  isFinal: (task) => task.status === "DONE" || task.status === "ERROR",
  markRunning: async (deps, task) => {
    if (task.status === "QUEUED")
      await deps.database.db.update(datasetTasks).set({ status: "RUNNING", updatedAt: deps.clock() }).where(eq(datasetTasks.id, task.id));
  },
  markFailed: async (deps, task, message) => {
    await deps.database.db.update(datasetTasks).set({ status: "ERROR", errorMessage: message, updatedAt: deps.clock() }).where(eq(datasetTasks.id, task.id));
  },
};

/** One step of a judge or relabel task (job queue): up to CHUNK entries not yet handled by it. */
export async function runDatasetTaskStep(deps: Deps, input: { taskId: string }, signal: AbortSignal = new AbortController().signal): Promise<StepResult> {
  return runTaskStep(deps, DATASET_TASK, input.taskId, (task, step) => handleEntries(deps, task, step, signal));
}

async function handleEntries(deps: Deps, task: TaskRow, { ctx, fail }: StepTools, signal: AbortSignal): Promise<StepResult> {
  const db = deps.database.db;
  let criterion: Awaited<ReturnType<typeof resolveCriterion>>;
  try {
    criterion = await resolveCriterion(ctx, `${task.criterionId}@v${task.criterionVersion}`);
  } catch (err) {
    return fail(toDomainError(err).message);
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
          .where(
            and(
              eq(datasetEntries.datasetId, task.datasetId),
              eq(entryVerdicts.judgement, "FAIL"),
              or(isNull(datasetEntries.relabeledAt), lt(datasetEntries.relabeledAt, since)),
            ),
          )
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
      const v = await judgeOutput(
        { ...ctx, internal: "judge" },
        criterion,
        { messages, tools: entry.tools, tool_choice: entry.toolChoice, output: reference },
        signal,
      );
      verdict = { judgement: v.judgement, explanation: v.explanation, error: null };
    } catch (err) {
      if (signal.aborted) return;
      verdict = { judgement: null, explanation: null, error: toDomainError(err).message };
    }
    await db
      .insert(entryVerdicts)
      .values({ entryId: entry.id, criterionId: task.criterionId, version: task.criterionVersion, ...verdict, createdAt: now() })
      .onConflictDoUpdate({
        target: [entryVerdicts.entryId, entryVerdicts.criterionId],
        set: { version: task.criterionVersion, ...verdict, createdAt: now() },
      });
  };

  const relabel = async (entry: Pending) => {
    const { input: messages } = splitEntry(entry.messages);
    try {
      const completion = await callModel(
        { ...ctx, internal: "relabel" },
        {
          body: {
            model: task.model!,
            messages,
            ...(entry.tools ? { tools: entry.tools } : {}),
            ...(entry.toolChoice ? { tool_choice: entry.toolChoice } : {}),
          },
          tags: { "hone.relabel": task.id },
          signal,
        },
      );
      if (!completion.choices[0]) throw new Error("no answer");
      const m = completion.choices[0].message;
      const answer = assistantOutput(m);
      // The new answer under the project's masking rule (the entry's own placeholders keep their numbers).
      const mask = await storageMasking(ctx, [messages, answer]);
      const next = mask ? mask([...messages, answer]) : [...messages, answer];
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
      await db
        .update(datasetTasks)
        .set({ errorMessage: `entry ${entry.id}: ${toDomainError(err).message}` })
        .where(eq(datasetTasks.id, task.id));
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
