import { storageMasking } from "../masking";
import { and, asc, eq } from "drizzle-orm";
import pLimit from "p-limit";
import { datasetEntries, evaluationResults, evaluations } from "../../db/schema";
import type { Deps } from "../deps";
import { toDomainError } from "../../core/errors";
import { callModel, estimateCost } from "../calls";
import { checkedUsage } from "../logs";
import { resolveCriterion, judgeOutput } from "../criteria";
import { runTaskStep, type StepResult, type StepTools, type TaskKind } from "../jobs";
import { splitEntry } from "../chat";
import { DATASET_MODEL, type Verdicts } from "./schemas";

/** Pairs worked on per job step; the step then yields so its lease never runs out. */
const CHUNK = 100;

type Entry = { id: string; messages: unknown[]; tools: unknown[] | null; toolChoice: unknown; responseFormat: unknown };

const EVALUATION_TASK: TaskKind<typeof evaluations.$inferSelect> = {
  job: "evaluation",
  load: async (deps, id) => (await deps.database.db.select().from(evaluations).where(eq(evaluations.id, id)))[0],
  isFinal: (ev) => ev.status === "DONE" || ev.status === "CANCELLED" || ev.status === "ERROR",
  markRunning: async (deps, ev) => {
    if (ev.status === "QUEUED")
      await deps.database.db
        .update(evaluations)
        .set({ status: "RUNNING", updatedAt: deps.clock() })
        .where(and(eq(evaluations.id, ev.id), eq(evaluations.status, "QUEUED")));
  },
  markFailed: async (deps, ev, message) => {
    await deps.database.db.update(evaluations).set({ status: "ERROR", errorMessage: message, updatedAt: deps.clock() }).where(eq(evaluations.id, ev.id));
  },
};

/**
 * One step of an evaluation (run by the job queue): up to CHUNK (entry, model) pairs that have no
 * result yet, HONE_EVAL_CONCURRENCY at a time. Results are stored one by one, so a restart only
 * redoes pairs that were in flight; a cancelled evaluation stops at the next pair. `signal` (the
 * step's deadline) aborts the model and judge calls in flight; their pairs are then left without
 * a result, for the next attempt, instead of being stored as failed.
 */
export async function runEvaluationStep(deps: Deps, input: { evaluationId: string }, signal: AbortSignal = new AbortController().signal): Promise<StepResult> {
  return runTaskStep(deps, EVALUATION_TASK, input.evaluationId, (ev, step) => evaluateChunk(deps, ev, step, signal));
}

async function evaluateChunk(deps: Deps, ev: typeof evaluations.$inferSelect, { ctx, fail }: StepTools, signal: AbortSignal): Promise<StepResult> {
  const db = deps.database.db;
  if (!ev.datasetId) return fail("The dataset was deleted");

  const entries: Entry[] = await db
    .select({
      id: datasetEntries.id,
      messages: datasetEntries.messages,
      tools: datasetEntries.tools,
      toolChoice: datasetEntries.toolChoice,
      responseFormat: datasetEntries.responseFormat,
    })
    .from(datasetEntries)
    .where(and(eq(datasetEntries.datasetId, ev.datasetId), eq(datasetEntries.split, "TEST")))
    .orderBy(asc(datasetEntries.id));
  const finished = new Set(
    (
      await db
        .select({ entryId: evaluationResults.entryId, model: evaluationResults.model })
        .from(evaluationResults)
        .where(eq(evaluationResults.evaluationId, ev.id))
    ).map((r) => `${r.entryId}\u0000${r.model}`),
  );
  const pending = entries.flatMap((e) => ev.models.filter((m) => !finished.has(`${e.id}\u0000${m}`)).map((m) => ({ entry: e, model: m })));
  if (pending.length === 0) {
    await db
      .update(evaluations)
      .set({ status: "DONE", updatedAt: deps.clock() })
      .where(and(eq(evaluations.id, ev.id), eq(evaluations.status, "RUNNING")));
    return { done: true };
  }
  let criteria: Awaited<ReturnType<typeof resolveCriterion>>[];
  try {
    criteria = await Promise.all(ev.criteria.map((c) => resolveCriterion(ctx, `${c.criterionId}@v${c.version}`)));
  } catch (err) {
    // A criterion deleted after the evaluation started: it cannot finish; say why.
    return fail(toDomainError(err).message);
  }
  const limit = pLimit(deps.config.evalConcurrency);
  let cancelled = false;
  await Promise.all(
    pending.slice(0, CHUNK).map(({ entry, model }) =>
      limit(async () => {
        if (cancelled || signal.aborted) return;
        const [now] = await db.select({ status: evaluations.status }).from(evaluations).where(eq(evaluations.id, ev.id));
        if (now?.status !== "RUNNING") {
          cancelled = true;
          return;
        }
        const { input: messages, reference } = splitEntry(entry.messages);
        let output: Record<string, unknown> | null = null;
        let error: string | null = null;
        let usage: { prompt_tokens?: number; completion_tokens?: number } | null = null;
        const started = performance.now();
        if (model === DATASET_MODEL) output = reference;
        else {
          try {
            const completion = await callModel(
              { ...ctx, internal: "evaluation" },
              {
                body: {
                  model,
                  messages,
                  ...(entry.tools ? { tools: entry.tools } : {}),
                  ...(entry.toolChoice ? { tool_choice: entry.toolChoice } : {}),
                  ...(entry.responseFormat ? { response_format: entry.responseFormat } : {}),
                },
                tags: { "hone.evaluation": ev.id },
                signal,
              },
            );
            output = completion.choices[0]?.message ?? null;
            // Impossible counts from an upstream are kept neither as tokens nor as cost.
            usage = checkedUsage(completion.usage).usage;
          } catch (err) {
            error = toDomainError(err).message;
          }
        }
        const latencyMs = model === DATASET_MODEL ? 0 : Math.round(performance.now() - started);
        const verdicts: Verdicts = {};
        if (output) {
          await Promise.all(
            criteria.map(async (c) => {
              try {
                const v = await judgeOutput(
                  { ...ctx, internal: "evaluation" },
                  c,
                  { messages, tools: entry.tools, tool_choice: entry.toolChoice, output: output! },
                  signal,
                );
                verdicts[c.criterionId] = { status: "success", score: v.score, explanation: v.explanation };
              } catch (err) {
                const e = toDomainError(err);
                verdicts[c.criterionId] = { status: "error", errorCode: e.code, errorMessage: e.message };
              }
            }),
          );
        }
        if (signal.aborted) return;
        // Stored under the project's masking rule (domain/masking), as the entries it answers are.
        const mask = await storageMasking(ctx, [output]);
        await db
          .insert(evaluationResults)
          .values({
            evaluationId: ev.id,
            entryId: entry.id,
            model,
            output: mask && output ? mask(output) : output,
            error: error ?? (output ? null : "the entry has no reference output"),
            inputTokens: usage?.prompt_tokens ?? null,
            outputTokens: usage?.completion_tokens ?? null,
            costUsd: model === DATASET_MODEL ? 0 : await estimateCost(ctx, model, usage as never).catch(() => null),
            latencyMs,
            verdicts,
            createdAt: deps.clock(),
          })
          .onConflictDoNothing();
      }),
    ),
  );
  return cancelled ? { done: true } : { runAgainInMs: 0 };
}
