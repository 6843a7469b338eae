import type { Ctx } from "../context";
import { parseInput } from "../../core/errors";
import { resolveCriterion } from "./internal";
import { judgeOutput } from "./judge-output";
import { JudgeRequest, type JudgeUsage } from "./schemas";

/** POST /criteria/judge: one output judged by one criterion (a pinned version or the latest). */
export async function judgeCriterion(ctx: Ctx, raw: unknown): Promise<{ score: number; explanation: string; usage: JudgeUsage }> {
  const input = parseInput(JudgeRequest, raw);
  const criterion = await resolveCriterion(ctx, input.criterion_id);
  const verdict = await judgeOutput(ctx, criterion, {
    messages: input.input?.messages,
    tools: input.input?.tools,
    tool_choice: input.input?.tool_choice,
    output: input.output as Record<string, unknown>,
  });
  return { score: verdict.score, explanation: verdict.explanation, usage: verdict.usage };
}
