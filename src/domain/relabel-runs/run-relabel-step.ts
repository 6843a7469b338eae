import { storageMasking } from "../masking";
import { and, asc, eq, isNull, sql } from "drizzle-orm";
import pLimit from "p-limit";
import { datasetEntries, relabelOutputs, relabelRuns } from "../../db/schema";
import type { RunVerdict } from "../../db/schema/relabel-runs";
import type { Deps } from "../deps";
import { toDomainError } from "../../core/errors";
import { callModel, estimateCost } from "../calls";
import { judgeOutput, resolveCriterion } from "../criteria";
import type { ResolvedCriterion } from "../criteria";
import { assistantOutput } from "../datasets";
import { splitEntry } from "../chat";
import { runTaskStep, type StepResult, type TaskKind } from "../jobs";

type RunRow = typeof relabelRuns.$inferSelect;

const RUN: TaskKind<RunRow> = {
  job: "relabel-run",
  load: async (deps, id) => (await deps.database.db.select().from(relabelRuns).where(eq(relabelRuns.id, id)))[0],
  isFinal: (r) => r.status === "DONE" || r.status === "ERROR" || r.status === "CANCELLED",
  markRunning: async (deps, r) => {
    if (r.status === "QUEUED") await deps.database.db.update(relabelRuns).set({ status: "RUNNING", updatedAt: deps.clock() }).where(eq(relabelRuns.id, r.id));
  },
  markFailed: async (deps, r, message) => {
    await deps.database.db.update(relabelRuns).set({ status: "ERROR", errorMessage: message, updatedAt: deps.clock() }).where(eq(relabelRuns.id, r.id));
  },
};

/** A run whose job was given up on: shown as ERROR with the reason. */
export async function failRelabelRun(deps: Deps, input: { taskId: string; reason: string }): Promise<void> {
  await deps.database.db
    .update(relabelRuns)
    .set({ status: "ERROR", errorMessage: input.reason, updatedAt: deps.clock() })
    .where(and(eq(relabelRuns.id, input.taskId), sql`${relabelRuns.status} in ('QUEUED', 'RUNNING')`));
}

/**
 * One step of a relabel run: up to two rounds of HONE_EVAL_CONCURRENCY entries not written yet
 * (and not decided). Each gets the model's output for its input, and every criterion judges both
 * the new output and the current one. The model and judge calls are Hone's own (kind relabel).
 */
export async function runRelabelStep(deps: Deps, payload: { taskId: string }, signal: AbortSignal): Promise<StepResult> {
  return runTaskStep(deps, RUN, payload.taskId, async (run, { ctx, fail }) => {
    const db = deps.database.db;
    const criteria: ResolvedCriterion[] = [];
    for (const ref of run.criteria) {
      try {
        criteria.push(await resolveCriterion(ctx, ref));
      } catch (err) {
        return fail(`criterion ${ref} can no longer be used: ${toDomainError(err).message}`);
      }
    }
    const pending = await db
      .select({
        entryId: relabelOutputs.entryId,
        current: relabelOutputs.current,
        messages: datasetEntries.messages,
        tools: datasetEntries.tools,
        toolChoice: datasetEntries.toolChoice,
      })
      .from(relabelOutputs)
      .innerJoin(datasetEntries, eq(datasetEntries.id, relabelOutputs.entryId))
      .where(and(eq(relabelOutputs.runId, run.id), isNull(relabelOutputs.generatedAt), isNull(relabelOutputs.decision)))
      .orderBy(asc(relabelOutputs.entryId))
      .limit(deps.config.evalConcurrency * 2);
    const limit = pLimit(deps.config.evalConcurrency);
    const relabelCtx = { ...ctx, internal: "relabel" as const };
    const judgeAll = async (target: { messages: unknown[]; tools: unknown; tool_choice: unknown }, output: Record<string, unknown> | null) => {
      let cost = 0;
      const verdicts: RunVerdict[] = [];
      if (!output) return { verdicts, cost };
      for (const c of criteria) {
        const ref = `${c.criterionId}@v${c.version}`;
        try {
          const v = await judgeOutput(
            relabelCtx,
            c,
            { messages: target.messages, tools: target.tools as never, tool_choice: target.tool_choice, output },
            signal,
          );
          cost += (await estimateCost(ctx, c.judgeModel, v.usage as never).catch(() => null)) ?? 0;
          verdicts.push({ criterionId: ref, version: c.version, judgement: v.judgement, explanation: v.explanation, error: null });
        } catch (err) {
          verdicts.push({ criterionId: ref, version: c.version, judgement: null, explanation: null, error: toDomainError(err).message });
        }
      }
      return { verdicts, cost };
    };
    await Promise.all(
      pending.map((p) =>
        limit(async () => {
          if (signal.aborted) return;
          const { input } = splitEntry(p.messages);
          const target = { messages: input, tools: p.tools, tool_choice: p.toolChoice };
          let output: Record<string, unknown> | null = null;
          let error: string | null = null;
          let cost = 0;
          try {
            const completion = await callModel(relabelCtx, {
              body: { model: run.model, messages: input, ...(p.tools ? { tools: p.tools } : {}), ...(p.toolChoice ? { tool_choice: p.toolChoice } : {}) },
              tags: { "hone.relabelRun": run.id },
              signal,
            });
            const m = completion.choices[0]?.message;
            if (!m) throw new Error("the model gave no answer");
            output = assistantOutput(m);
            cost += (await estimateCost(ctx, run.model, completion.usage as never).catch(() => null)) ?? 0;
          } catch (err) {
            if (signal.aborted) return;
            error = toDomainError(err).message;
          }
          const proposed = await judgeAll(target, output);
          const current = await judgeAll(target, p.current);
          if (signal.aborted) return;
          // Stored under the project's masking rule (domain/masking), as its entries are.
          const mask = await storageMasking(ctx, [output]);
          await db
            .update(relabelOutputs)
            .set({
              output: mask && output ? mask(output) : output,
              error,
              verdicts: proposed.verdicts,
              currentVerdicts: current.verdicts,
              generatedAt: deps.clock(),
            })
            .where(and(eq(relabelOutputs.runId, run.id), eq(relabelOutputs.entryId, p.entryId), isNull(relabelOutputs.generatedAt)));
          await db
            .update(relabelRuns)
            .set({ costUsd: sql`${relabelRuns.costUsd} + ${cost + proposed.cost + current.cost}` })
            .where(eq(relabelRuns.id, run.id));
        }),
      ),
    );
    const [{ n }] = (await db
      .select({ n: sql<number>`count(*)::int` })
      .from(relabelOutputs)
      .where(and(eq(relabelOutputs.runId, run.id), sql`(${relabelOutputs.generatedAt} is not null or ${relabelOutputs.decision} is not null)`))) as [
      { n: number },
    ];
    const finished = pending.length === 0;
    await db
      .update(relabelRuns)
      .set({ done: Number(n), ...(finished ? { status: "DONE" as const } : {}), updatedAt: deps.clock() })
      .where(and(eq(relabelRuns.id, run.id), sql`${relabelRuns.status} <> 'CANCELLED'`));
    return finished ? { done: true } : { runAgainInMs: 0 };
  });
}
