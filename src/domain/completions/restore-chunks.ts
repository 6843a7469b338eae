import type { ChatCompletion, ChatCompletionChunk } from "../../providers";
import { createStreamRestorer, type Masker } from "../../lib/masking";

// mask_upstream (domain/masking): the provider answered with the request's placeholders; the
// client gets its answer with the original values put back. In a stream a placeholder may be split
// across chunks ("<EMA" then "IL_1>"): each text a chunk carries (a choice's content, refusal, a
// tool call's arguments) is restored through a restorer of its own that holds back a possible
// beginning of a placeholder until the next piece, and lets it go when its choice finishes.

/** A whole answer, restored (a copy: the log keeps the answer as the provider gave it). */
export function restoreCompletion(masker: Masker, c: ChatCompletion): ChatCompletion {
  const out = masker.restoreValue(c);
  // A tool call's arguments are JSON: a value put back there is escaped (a PEM key's line breaks).
  out.choices?.forEach((ch, i) => {
    const calls = ch.message?.tool_calls;
    if (!Array.isArray(calls)) return;
    ch.message.tool_calls = calls.map((tc, k) => {
      const given = (c.choices[i]?.message?.tool_calls?.[k] as { function?: { arguments?: unknown } } | undefined)?.function?.arguments;
      const fn = (tc as { function?: { arguments?: unknown } }).function;
      return typeof given === "string" && fn ? ({ ...tc, function: { ...fn, arguments: masker.restoreJson(given) } } as typeof tc) : tc;
    });
  });
  return out;
}

/** A stream's chunks, restored one by one; `flush` gives a last chunk with whatever is still held back (or null). */
export function createChunkRestorer(masker: Masker): {
  restore(chunk: ChatCompletionChunk): ChatCompletionChunk;
  flush(last: ChatCompletionChunk | null): ChatCompletionChunk | null;
} {
  const restorers = new Map<string, ReturnType<typeof createStreamRestorer>>();
  const restorerOf = (key: string) => {
    let r = restorers.get(key);
    if (!r) {
      r = createStreamRestorer(masker, key.includes(":tool:"));
      restorers.set(key, r);
    }
    return r;
  };
  /** What is held back for a choice, by field, emptied. */
  const drain = (index: number) => {
    const out: { content: string; refusal: string; tools: Map<number, string> } = { content: "", refusal: "", tools: new Map() };
    for (const [key, r] of restorers) {
      const [i, field, tool] = key.split(":");
      if (Number(i) !== index) continue;
      const rest = r.end();
      restorers.delete(key);
      if (!rest) continue;
      if (field === "content") out.content += rest;
      else if (field === "refusal") out.refusal += rest;
      else out.tools.set(Number(tool), (out.tools.get(Number(tool)) ?? "") + rest);
    }
    return out;
  };
  return {
    restore(chunk) {
      if (!Array.isArray(chunk.choices) || chunk.choices.length === 0) return chunk;
      const choices = chunk.choices.map((ch) => {
        const delta = { ...(ch.delta ?? {}) } as Record<string, unknown>;
        if (typeof delta.content === "string") delta.content = restorerOf(`${ch.index}:content`).push(delta.content);
        if (typeof delta.refusal === "string") delta.refusal = restorerOf(`${ch.index}:refusal`).push(delta.refusal);
        if (Array.isArray(delta.tool_calls)) {
          delta.tool_calls = delta.tool_calls.map((tc: { index?: number; function?: { arguments?: unknown } }, k: number) => {
            const args = tc.function?.arguments;
            if (typeof args !== "string") return tc;
            return { ...tc, function: { ...tc.function, arguments: restorerOf(`${ch.index}:tool:${tc.index ?? k}`).push(args) } };
          });
        }
        // The choice ends: what its restorers hold goes out with this chunk.
        if (ch.finish_reason != null) {
          const held = drain(ch.index);
          if (held.content) delta.content = `${typeof delta.content === "string" ? delta.content : ""}${held.content}`;
          if (held.refusal) delta.refusal = `${typeof delta.refusal === "string" ? delta.refusal : ""}${held.refusal}`;
          for (const [tool, text] of held.tools) {
            const calls = (Array.isArray(delta.tool_calls) ? delta.tool_calls : []) as { index: number; function?: { arguments?: string } }[];
            calls.push({ index: tool, function: { arguments: text } });
            delta.tool_calls = calls;
          }
        }
        return { ...ch, delta: delta as typeof ch.delta };
      });
      return { ...chunk, choices };
    },
    flush(last) {
      if (restorers.size === 0) return null;
      const indexes = [...new Set([...restorers.keys()].map((k) => Number(k.split(":")[0])))];
      const choices = indexes.map((index) => {
        const held = drain(index);
        const delta: Record<string, unknown> = {};
        if (held.content) delta.content = held.content;
        if (held.refusal) delta.refusal = held.refusal;
        if (held.tools.size) delta.tool_calls = [...held.tools].map(([i, text]) => ({ index: i, function: { arguments: text } }));
        return { index, delta: delta as ChatCompletionChunk["choices"][number]["delta"], finish_reason: null };
      });
      if (!choices.some((c) => Object.keys(c.delta).length)) return null;
      return {
        id: last?.id ?? "",
        object: "chat.completion.chunk",
        created: last?.created ?? Math.floor(Date.now() / 1000),
        model: last?.model ?? "",
        choices,
      };
    },
  };
}
