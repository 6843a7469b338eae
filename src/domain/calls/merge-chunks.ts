import type { ChatCompletion, ChatCompletionChunk, Choice, Usage } from "../../providers";

/**
 * Folds stream chunks back into the chat.completion the same call would have returned without
 * streaming: what gets logged (and cached). Works on a partial stream too.
 *
 * It holds at most about `maxChars` characters of text (HONE_MAX_LOGGED_PAYLOAD_BYTES): past it, a
 * stream of any length is still passed on, but the merger stops adding text and says it
 * `overflowed` (the log keeps the beginning, cut short; the cache keeps nothing).
 */
export function createChunkMerger(maxChars = Number.POSITIVE_INFINITY) {
  let held = 0;
  let seen = 0;
  let overflowed = false;
  /** Whether `n` more characters may be kept. */
  const room = (n: number) => {
    seen += n;
    if (!overflowed && held + n > maxChars) overflowed = true;
    if (overflowed) return false;
    held += n;
    return true;
  };
  let head: { id: string; created: number; model: string; system_fingerprint?: unknown } | null = null;
  let usage: Usage | null = null;
  const choices = new Map<number, Choice & { _tools: Map<number, { id: string; type: "function"; function: { name: string; arguments: string } }> }>();

  return {
    add(chunk: ChatCompletionChunk) {
      head ??= { id: chunk.id, created: chunk.created, model: chunk.model };
      if (chunk.system_fingerprint !== undefined) head.system_fingerprint = chunk.system_fingerprint;
      if (chunk.usage) usage = chunk.usage;
      for (const c of chunk.choices ?? []) {
        let choice = choices.get(c.index);
        if (!choice) {
          choice = { index: c.index, message: { role: "assistant", content: null }, finish_reason: null, logprobs: null, _tools: new Map() };
          choices.set(c.index, choice);
        }
        const d = c.delta ?? {};
        if (typeof d.content === "string" && room(d.content.length)) choice.message.content = (choice.message.content ?? "") + d.content;
        if (typeof d.refusal === "string" && room(d.refusal.length)) choice.message.refusal = (choice.message.refusal ?? "") + d.refusal;
        if (typeof d.reasoning_content === "string" && room(d.reasoning_content.length)) {
          choice.message.reasoning_content = (choice.message.reasoning_content ?? "") + d.reasoning_content;
        }
        for (const t of d.tool_calls ?? []) {
          if (!room((t.function?.arguments?.length ?? 0) + (t.function?.name?.length ?? 0) + 32)) continue;
          let call = choice._tools.get(t.index);
          if (!call) {
            call = { id: "", type: "function", function: { name: "", arguments: "" } };
            choice._tools.set(t.index, call);
          }
          if (t.id) call.id = t.id;
          if (t.function?.name) call.function.name += t.function.name;
          if (t.function?.arguments) call.function.arguments += t.function.arguments;
        }
        if (d.function_call && room((d.function_call.arguments?.length ?? 0) + (d.function_call.name?.length ?? 0))) {
          const fc = (choice.message.function_call ??= { name: "", arguments: "" });
          if (d.function_call.name) fc.name += d.function_call.name;
          if (d.function_call.arguments) fc.arguments += d.function_call.arguments;
        }
        const lp = c.logprobs as { content?: unknown[] } | null | undefined;
        if (lp?.content && room(lp.content.length * 64)) {
          const acc = (choice.logprobs ??= { content: [] }) as { content: unknown[] };
          acc.content.push(...lp.content);
        }
        if (c.finish_reason) choice.finish_reason = c.finish_reason;
      }
    },
    get usage() {
      return usage;
    },
    /** True once the stream carried more text than the merger holds: result() is its beginning. */
    get overflowed() {
      return overflowed;
    },
    /** Characters of text the stream carried, held or not. */
    get seenChars() {
      return seen;
    },
    /** True once every choice reached a finish_reason. */
    get finished() {
      return choices.size > 0 && [...choices.values()].every((c) => c.finish_reason !== null);
    },
    result(): ChatCompletion | null {
      if (!head) return null;
      const out: ChatCompletion = {
        id: head.id,
        object: "chat.completion",
        created: head.created,
        model: head.model,
        choices: [...choices.values()]
          .sort((a, b) => a.index - b.index)
          .map(({ _tools, ...c }) => ({
            ...c,
            message: { ...c.message, ...(_tools.size ? { tool_calls: [..._tools.entries()].sort((a, b) => a[0] - b[0]).map(([, t]) => t) } : {}) },
          })),
        usage,
      };
      if (head.system_fingerprint !== undefined) out.system_fingerprint = head.system_fingerprint;
      return out;
    },
  };
}
