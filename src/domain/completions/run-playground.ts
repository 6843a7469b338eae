import { z } from "zod";
import type { Ctx } from "../context";
import { DomainError, parseInput, toDomainError } from "../../core/errors";
import { MAX_CRITERIA_PER_REQUEST, MAX_MODEL_LENGTH } from "../../core/limits";
import { createChatCompletion } from "./create-chat-completion";
import { requireKeyMayCall } from "../projects";

/** The tag every playground call is logged with, so the logs can tell them from production. */
export const PLAYGROUND_TAG = { key: "hone.source", value: "playground" } as const;

export const PlaygroundRunInput = z.strictObject({
  model: z.string().min(1, "choose a model").max(MAX_MODEL_LENGTH),
  messages: z.array(z.unknown()).min(1, "add at least one message").max(200),
  temperature: z.number().min(0).max(2).nullish(),
  maxTokens: z.number().int().min(1).max(65_536).nullish(),
  n: z.number().int().min(1).max(4, "the playground runs at most 4 choices").nullish(),
  tools: z.array(z.unknown()).max(64).nullish(),
  /** Criteria (ids, optionally @vN) to judge each choice with, best first (best-of-N). */
  criteria: z.array(z.string().min(1).max(200)).max(MAX_CRITERIA_PER_REQUEST).nullish(),
});
export type PlaygroundRunInput = z.input<typeof PlaygroundRunInput>;

export type PlaygroundEvent =
  /** Text that arrived for one choice (streamed runs). */
  | { type: "delta"; index: number; content: string }
  /** The whole answer: every choice's message, criteria results when judged, usage, time. */
  | {
      type: "done";
      completionId: string | null;
      choices: { index: number; message: unknown; finishReason: string | null; criteriaResults: unknown }[];
      usage: { promptTokens: number; completionTokens: number } | null;
      latencyMs: number;
    }
  | { type: "error"; code: string; message: string };

type Msg = {
  role?: string;
  content?: string | null;
  tool_calls?: { index?: number; id?: string; type?: string; function?: { name?: string; arguments?: string } }[];
};

/**
 * One playground run: the same gateway call as POST /chat/completions (logged, priced, tagged
 * hone.source=playground), streamed as deltas when no criteria are chosen (judging needs whole
 * choices, so a judged run arrives at once). Errors end the run as an event, so a column in the
 * console shows the API's message while the other models go on.
 */
export async function* runPlayground(ctx: Ctx, raw: PlaygroundRunInput, signal: AbortSignal): AsyncGenerator<PlaygroundEvent> {
  const input = parseInput(PlaygroundRunInput, raw);
  requireKeyMayCall(ctx, [input.model]);
  const judged = (input.criteria?.length ?? 0) > 0;
  const started = performance.now();
  const body = {
    model: input.model,
    messages: input.messages,
    ...(input.temperature != null ? { temperature: input.temperature } : {}),
    ...(input.maxTokens != null ? { max_tokens: input.maxTokens } : {}),
    ...(input.n != null ? { n: input.n } : {}),
    ...(input.tools?.length ? { tools: input.tools } : {}),
    ...(judged ? {} : { stream: true, stream_options: { include_usage: true } }),
  };
  const headers = {
    tags: JSON.stringify({ [PLAYGROUND_TAG.key]: PLAYGROUND_TAG.value }),
    criteria: judged ? JSON.stringify(input.criteria) : null,
    logRequest: "true",
  };
  try {
    // The playground's calls (and its judges) are Hone's own: kept apart from the application's traffic.
    const result = await createChatCompletion({ ...ctx, internal: "playground" }, { body, headers, signal });
    if (result.kind === "completion") {
      const c = result.completion as {
        id?: string;
        choices?: { index: number; message: unknown; finish_reason?: string | null; criteria_results?: unknown }[];
        usage?: { prompt_tokens?: number; completion_tokens?: number };
      };
      yield {
        type: "done",
        completionId: c.id ?? null,
        choices: (c.choices ?? []).map((ch) => ({
          index: ch.index,
          message: ch.message,
          finishReason: ch.finish_reason ?? null,
          criteriaResults: ch.criteria_results ?? null,
        })),
        usage: c.usage ? { promptTokens: c.usage.prompt_tokens ?? 0, completionTokens: c.usage.completion_tokens ?? 0 } : null,
        latencyMs: Math.round(performance.now() - started),
      };
      return;
    }
    if (result.kind === "pass-through") {
      // Larger than Hone holds: the playground cannot show it (the call is logged, cut short).
      await result.body.cancel();
      throw new DomainError("UPSTREAM_ERROR", "The answer is larger than HONE_MAX_LOGGED_PAYLOAD_BYTES: the playground cannot show it", {
        upstreamStatus: 502,
      });
    }
    // Streamed: pass text on as it comes and build each choice's message (text and tool calls).
    const messages = new Map<number, Msg & { finish: string | null }>();
    let id: string | null = null;
    let usage: { promptTokens: number; completionTokens: number } | null = null;
    for await (const chunk of result.chunks) {
      const ch = chunk as {
        id?: string;
        choices?: { index: number; delta?: Msg; finish_reason?: string | null }[];
        usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
      };
      id ??= ch.id ?? null;
      if (ch.usage) usage = { promptTokens: ch.usage.prompt_tokens ?? 0, completionTokens: ch.usage.completion_tokens ?? 0 };
      for (const choice of ch.choices ?? []) {
        let m = messages.get(choice.index);
        if (!m) messages.set(choice.index, (m = { role: "assistant", content: null, finish: null }));
        const d = choice.delta ?? {};
        if (typeof d.content === "string" && d.content) {
          m.content = (m.content ?? "") + d.content;
          yield { type: "delta", index: choice.index, content: d.content };
        }
        for (const tc of d.tool_calls ?? []) {
          m.tool_calls ??= [];
          const at = tc.index ?? m.tool_calls.length;
          const prev = (m.tool_calls[at] ??= { id: tc.id, type: "function", function: { name: "", arguments: "" } });
          if (tc.id) prev.id = tc.id;
          if (tc.function?.name) prev.function!.name += tc.function.name;
          if (tc.function?.arguments) prev.function!.arguments += tc.function.arguments;
        }
        if (choice.finish_reason) m.finish = choice.finish_reason;
      }
    }
    yield {
      type: "done",
      completionId: id,
      choices: [...messages.entries()]
        .sort((a, b) => a[0] - b[0])
        .map(([index, { finish, ...message }]) => ({ index, message, finishReason: finish, criteriaResults: null })),
      usage,
      latencyMs: Math.round(performance.now() - started),
    };
  } catch (err) {
    const domain = err instanceof DomainError ? err : toDomainError(err);
    yield { type: "error", code: domain.code, message: domain.message };
  }
}
