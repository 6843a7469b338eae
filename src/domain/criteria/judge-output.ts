import type { Ctx } from "../context";
import { DomainError, toDomainError } from "../../core/errors";
import { callModel } from "../calls";
import { renderPrompt } from "./internal";
import type { JudgeUsage, ResolvedCriterion, Verdict } from "./schemas";

const VERDICT_TOOL = "record_verdict";

const SYSTEM = `You are an evaluator. You are given instructions describing what a good output is, and the output to judge.
Think about whether the output passes, then call ${VERDICT_TOOL} exactly once: first your explanation, then the judgement PASS if the output meets the instructions or FAIL if it does not.`;

type JudgeTarget = {
  messages?: unknown[];
  tools?: unknown[] | null;
  tool_choice?: unknown;
  output: Record<string, unknown>;
};

/**
 * Judges one output with one criterion version: the rendered prompt goes to the judge model
 * through the gateway (same routing, keys and logging as any call) with a forced tool call that
 * returns {explanation, judgement}. PASS scores 1, FAIL 0. Gives up after HONE_JUDGE_TIMEOUT_MS,
 * counted to the last byte of the judge's answer (the upstream call stays abortable until then).
 */
/**
 * One judge call. It is logged as Hone's own (source internal), of the kind of work it is part of
 * (`ctx.internal`: an evaluation's judges are `evaluation`, an alignment run's `alignment`), else `judge`.
 */
export async function judgeOutput(ctx: Ctx, criterion: ResolvedCriterion, target: JudgeTarget, signal?: AbortSignal): Promise<Verdict> {
  const prompt = renderPrompt(criterion.prompt, { messages: target.messages, tools: target.tools, tool_choice: target.tool_choice, output: target.output });
  const body = {
    model: criterion.judgeModel,
    temperature: 0,
    messages: [
      { role: "system", content: SYSTEM },
      { role: "user", content: prompt },
    ],
    tools: [
      {
        type: "function",
        function: {
          name: VERDICT_TOOL,
          description: "Record the verdict on the output",
          parameters: {
            type: "object",
            properties: {
              explanation: { type: "string", description: "Why the output passes or fails, written before deciding" },
              judgement: { type: "string", enum: ["PASS", "FAIL"] },
            },
            required: ["explanation", "judgement"],
            additionalProperties: false,
          },
        },
      },
    ],
    tool_choice: { type: "function", function: { name: VERDICT_TOOL } },
  };
  const timeoutMs = ctx.deps.config.judgeTimeoutMs;
  const controller = new AbortController();
  const onAbort = () => controller.abort();
  if (signal?.aborted) controller.abort();
  else signal?.addEventListener("abort", onAbort, { once: true });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  try {
    const completion = await callModel(
      { ...ctx, internal: ctx.internal ?? "judge" },
      {
        body,
        tags: { "hone.criterion": `${criterion.criterionId}@v${criterion.version}` },
        signal: controller.signal,
      },
    );
    return parseVerdict(completion);
  } catch (err) {
    if (timedOut) throw new DomainError("UPSTREAM_TIMEOUT", `The judge model ${criterion.judgeModel} did not answer within ${timeoutMs} ms`);
    throw toDomainError(err);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  }
}

function parseVerdict(completion: {
  choices: { message: { content: string | null; tool_calls?: { function: { name: string; arguments: string } }[] } }[];
  usage?: unknown;
}): Verdict {
  const u = (completion.usage ?? {}) as Partial<JudgeUsage>;
  const usage = { prompt_tokens: u.prompt_tokens ?? 0, completion_tokens: u.completion_tokens ?? 0, total_tokens: u.total_tokens ?? 0 };
  const call = completion.choices[0]?.message.tool_calls?.find((c) => c.function.name === VERDICT_TOOL);
  let parsed: { explanation?: unknown; judgement?: unknown } | null = null;
  if (call) {
    try {
      parsed = JSON.parse(call.function.arguments);
    } catch {
      parsed = null;
    }
  }
  const judgement = parsed?.judgement;
  if (judgement !== "PASS" && judgement !== "FAIL") {
    throw new DomainError("UPSTREAM_ERROR", "The judge model did not return a verdict (PASS or FAIL) through record_verdict", { upstreamStatus: 502 });
  }
  return { judgement, score: judgement === "PASS" ? 1 : 0, explanation: typeof parsed?.explanation === "string" ? parsed.explanation : "", usage };
}
