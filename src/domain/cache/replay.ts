import type { ChatCompletion, ChatCompletionChunk } from "../../providers";

/** A cached completion as the stream of chunks an upstream would have sent (for streamed hits). */
export async function* replayAsChunks(completion: ChatCompletion, includeUsage: boolean): AsyncGenerator<ChatCompletionChunk> {
  const base = { id: completion.id, object: "chat.completion.chunk" as const, created: completion.created, model: completion.model };
  for (const choice of completion.choices) {
    const m = choice.message;
    const one = (delta: ChatCompletionChunk["choices"][number]["delta"], finish: string | null = null): ChatCompletionChunk => ({
      ...base,
      choices: [{ index: choice.index, delta, finish_reason: finish, logprobs: null }],
    });
    yield one({ role: "assistant", content: "" });
    if (typeof m.content === "string" && m.content) yield one({ content: m.content });
    if (typeof m.refusal === "string" && m.refusal) yield one({ refusal: m.refusal });
    if (m.tool_calls?.length) {
      yield one({
        tool_calls: m.tool_calls.map((c, index) => ({
          index,
          id: c.id,
          type: "function" as const,
          function: { name: c.function.name, arguments: c.function.arguments },
        })),
      });
    }
    if (m.function_call) yield one({ function_call: m.function_call });
    yield one({}, choice.finish_reason);
  }
  if (includeUsage && completion.usage) yield { ...base, choices: [], usage: completion.usage };
}
