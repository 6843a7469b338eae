import type { NativeEvent } from "../../providers";

// A provider's answer kept whole (the completion cache) played back as the stream that provider
// would have sent for it: an Anthropic Message as Anthropic's events, an OpenAI Response as the
// Responses API's events. A client streaming a cached answer reads the same events, in the same
// order, as from the provider; only the text arrives in one delta per block.

type Json = Record<string, unknown>;

const event = (name: string, data: Json): NativeEvent => {
  const withType = { type: name, ...data };
  return { event: name, data: withType, raw: JSON.stringify(withType) };
};

const blocksOf = (v: unknown): Json[] => (Array.isArray(v) ? (v as Json[]) : []);

/** An Anthropic Message as its stream: message_start, each content block, message_delta, message_stop. */
export function messageEvents(message: Json): NativeEvent[] {
  const usage = (message.usage ?? {}) as Json;
  const out = [event("message_start", { message: { ...message, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 0 } } })];
  for (const [index, block] of blocksOf(message.content).entries()) {
    const start = (content_block: Json) => out.push(event("content_block_start", { index, content_block }));
    const delta = (d: Json) => out.push(event("content_block_delta", { index, delta: d }));
    if (block.type === "text") {
      start({ ...block, text: "" });
      delta({ type: "text_delta", text: String(block.text ?? "") });
    } else if (block.type === "thinking") {
      start({ type: "thinking", thinking: "", signature: "" });
      delta({ type: "thinking_delta", thinking: String(block.thinking ?? "") });
      delta({ type: "signature_delta", signature: String(block.signature ?? "") });
    } else if (block.type === "tool_use" || block.type === "server_tool_use") {
      start({ ...block, input: {} });
      delta({ type: "input_json_delta", partial_json: JSON.stringify(block.input ?? {}) });
    } else {
      // redacted_thinking, tool results of server tools: sent whole in their start event.
      start(block);
    }
    out.push(event("content_block_stop", { index }));
  }
  out.push(
    event("message_delta", {
      delta: { stop_reason: message.stop_reason ?? null, stop_sequence: message.stop_sequence ?? null },
      usage: { output_tokens: usage.output_tokens ?? 0 },
    }),
    event("message_stop", {}),
  );
  return out;
}

/** An OpenAI Response as its stream: created, in_progress, each output item with its parts, completed. */
export function responseEvents(response: Json): NativeEvent[] {
  let seq = 0;
  const out: NativeEvent[] = [];
  const push = (name: string, data: Json) => out.push(event(name, { sequence_number: seq++, ...data }));
  const started = { ...response, status: "in_progress", output: [], usage: null };
  push("response.created", { response: started });
  push("response.in_progress", { response: started });
  for (const [output_index, item] of blocksOf(response.output).entries()) {
    const item_id = item.id;
    if (item.type === "message") {
      push("response.output_item.added", { output_index, item: { ...item, content: [], status: "in_progress" } });
      for (const [content_index, part] of blocksOf(item.content).entries()) {
        const text = typeof part.text === "string" ? part.text : null;
        push("response.content_part.added", { item_id, output_index, content_index, part: text === null ? part : { ...part, text: "" } });
        if (text !== null && part.type === "output_text") {
          push("response.output_text.delta", { item_id, output_index, content_index, delta: text, logprobs: [] });
          push("response.output_text.done", { item_id, output_index, content_index, text, logprobs: [] });
        }
        push("response.content_part.done", { item_id, output_index, content_index, part });
      }
    } else if (item.type === "function_call") {
      push("response.output_item.added", { output_index, item: { ...item, arguments: "", status: "in_progress" } });
      const args = String(item.arguments ?? "");
      push("response.function_call_arguments.delta", { item_id, output_index, delta: args });
      push("response.function_call_arguments.done", { item_id, output_index, arguments: args });
    } else {
      push("response.output_item.added", { output_index, item });
    }
    push("response.output_item.done", { output_index, item });
  }
  push(response.status === "incomplete" ? "response.incomplete" : "response.completed", { response });
  return out;
}

/** Events already at hand, as the batches a relayed stream is read in: all of them at once. */
export function batchOf(events: NativeEvent[]) {
  let sent = false;
  return {
    async next() {
      if (sent) return { events: [], done: true };
      sent = true;
      return { events, done: true };
    },
    close() {},
  };
}
