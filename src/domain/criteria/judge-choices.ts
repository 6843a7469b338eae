import pLimit from "p-limit";
import type { Ctx } from "../context";
import { DomainError, toDomainError } from "../../core/errors";
import type { ChatCompletion } from "../../providers";
import { parseCriterionRef, resolveCriterion } from "./internal";
import { judgeOutput } from "./judge-output";
import type { ResolvedCriterion } from "./schemas";

type CriterionResult = { status: "success"; score: number; explanation: string } | { status: "error"; errorCode: string; errorMessage: string };

/** Resolves op-criteria ids before anything is sent upstream (unknown ids are 404s). */
export async function resolveCriteriaRefs(ctx: Ctx, refs: string[]): Promise<ResolvedCriterion[]> {
  const ids = refs.map((r) => parseCriterionRef(r).criterionId);
  const dup = ids.find((id, i) => ids.indexOf(id) !== i);
  if (dup) {
    throw new DomainError("VALIDATION", `Criterion ${dup} is listed twice in op-criteria`, {
      issues: [{ message: `duplicate criterion ${dup}`, path: ["op-criteria"] }],
    });
  }
  return Promise.all(refs.map((r) => resolveCriterion(ctx, r)));
}

/**
 * Best of N: every choice is judged by every criterion, at most HONE_JUDGE_CONCURRENCY judge calls
 * at a time (n x criteria can reach 160 calls; unbounded, one request would open them all at once). Each choice gets `criteria_results` keyed by criterion id (without @vN); a judge
 * that fails gives an error result, not a failed request. Choices are sorted by their summed
 * score, highest first (ties keep their order); `index` keeps the upstream's numbering.
 */
export async function judgeChoices(
  ctx: Ctx,
  criteria: ResolvedCriterion[],
  input: { messages: unknown[]; tools?: unknown[] | null; tool_choice?: unknown },
  completion: ChatCompletion,
): Promise<ChatCompletion> {
  const tokens: Record<string, { total_tokens: number }> = {};
  const limit = pLimit(ctx.deps.config.judgeConcurrency);
  const judged = await Promise.all(
    completion.choices.map(async (choice, position) => {
      const results: Record<string, CriterionResult> = {};
      await Promise.all(
        criteria.map((c) =>
          limit(async () => {
            try {
              const v = await judgeOutput(ctx, c, {
                messages: input.messages,
                tools: input.tools,
                tool_choice: input.tool_choice,
                output: choice.message as Record<string, unknown>,
              });
              results[c.criterionId] = { status: "success", score: v.score, explanation: v.explanation };
              (tokens[c.criterionId] ??= { total_tokens: 0 }).total_tokens += v.usage.total_tokens;
            } catch (err) {
              const e = toDomainError(err);
              results[c.criterionId] = { status: "error", errorCode: e.code, errorMessage: e.message };
            }
          }),
        ),
      );
      const total = Object.values(results).reduce((sum, r) => sum + (r.status === "success" ? r.score : 0), 0);
      return { choice: { ...choice, criteria_results: results }, total, position };
    }),
  );
  judged.sort((a, b) => b.total - a.total || a.position - b.position);
  return {
    ...completion,
    choices: judged.map((j) => j.choice),
    ...(completion.usage ? { usage: { ...completion.usage, criteria: tokens } } : {}),
  };
}
