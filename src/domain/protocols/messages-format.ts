import type { ChatCompletion, ChatCompletionChunk, Usage } from "../../providers";

// Anthropic's Messages API as Hone's clients speak it on POST /api/v1/messages, when the upstream
// is not Anthropic: the chat completion an upstream gave, as a Message; its chunks, as Anthropic's
// stream events. (An Anthropic upstream is passed the request as it is: nothing to translate.)

type Json = Record<string, unknown>;

/** An Anthropic stream event: its name (the SSE `event:`) and its data (which repeats it as `type`). */
export type AnthropicEvent = { event: string; data: Json };

const STOP_REASONS: Record<string, string> = {
  stop: "end_turn",
  length: "max_tokens",
  tool_calls: "tool_use",
  function_call: "tool_use",
  content_filter: "refusal",
};

export const stopReasonOf = (finish: string | null | undefined): string | null => (finish ? (STOP_REASONS[finish] ?? "end_turn") : null);

/** Chat usage in Anthropic's terms: input excludes cache reads and writes, which are counted apart. */
export function anthropicUsage(u: Usage | null | undefined): Json {
  const cached = u?.prompt_tokens_details?.cached_tokens ?? 0;
  const written = u?.cache_creation_input_tokens ?? 0;
  return {
    input_tokens: Math.max(0, (u?.prompt_tokens ?? 0) - cached - written),
    output_tokens: u?.completion_tokens ?? 0,
    cache_creation_input_tokens: written,
    cache_read_input_tokens: cached,
    ...(u?.cache_creation ? { cache_creation: u.cache_creation } : {}),
  };
}

const messageId = (id: string) => (id.startsWith("msg_") ? id : `msg_${id}`);

function parseInput(args: string): unknown {
  if (!args) return {};
  try {
    return JSON.parse(args);
  } catch {
    // An upstream's broken arguments are handed on as they are rather than lost.
    return { _raw_arguments: args };
  }
}

/** A chat completion's first choice as an Anthropic Message. */
export function toAnthropicMessage(c: ChatCompletion): Json {
  const choice = c.choices?.[0];
  const m = choice?.message;
  const content: Json[] = [];
  if (typeof m?.reasoning_content === "string" && m.reasoning_content) content.push({ type: "thinking", thinking: m.reasoning_content, signature: "" });
  if (typeof m?.content === "string" && m.content) content.push({ type: "text", text: m.content });
  else if (typeof m?.refusal === "string" && m.refusal) content.push({ type: "text", text: m.refusal });
  for (const call of m?.tool_calls ?? []) content.push({ type: "tool_use", id: call.id, name: call.function.name, input: parseInput(call.function.arguments) });
  return {
    id: messageId(String(c.id ?? "")),
    type: "message",
    role: "assistant",
    model: c.model,
    content,
    stop_reason: stopReasonOf(choice?.finish_reason),
    stop_sequence: null,
    usage: anthropicUsage(c.usage),
  };
}

/**
 * Chat chunks in, Anthropic events out, one chunk at a time and never buffered: a block starts when
 * its first delta arrives (thinking, text, or a tool call by its index) and stops when another
 * starts. `end()` closes the message: the usage arrives after the finish reason, in the last chunk.
 */
export function createAnthropicEventWriter() {
  let started = false;
  let id = "";
  let model = "";
  let open: { kind: "thinking" | "text" | "tool"; tool?: number } | null = null;
  let index = -1;
  let stopReason: string | null = null;
  let usage: Usage | null = null;

  const ev = (event: string, data: Json): AnthropicEvent => ({ event, data: { type: event, ...data } });
  const close = (out: AnthropicEvent[]) => {
    if (open) out.push(ev("content_block_stop", { index }));
    open = null;
  };
  const start = (out: AnthropicEvent[], kind: "thinking" | "text" | "tool", block: Json, tool?: number) => {
    close(out);
    index++;
    open = { kind, tool };
    out.push(ev("content_block_start", { index, content_block: block }));
  };
  const begin = (out: AnthropicEvent[]) => {
    if (started) return;
    started = true;
    out.push(
      ev("message_start", {
        message: {
          id: messageId(id),
          type: "message",
          role: "assistant",
          model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 0, output_tokens: 0 },
        },
      }),
    );
  };

  return {
    add(chunk: ChatCompletionChunk): AnthropicEvent[] {
      const out: AnthropicEvent[] = [];
      if (!id && chunk.id) id = chunk.id;
      if (!model && chunk.model) model = chunk.model;
      if (chunk.usage) usage = chunk.usage;
      begin(out);
      for (const choice of chunk.choices ?? []) {
        if (choice.index !== 0) continue;
        const d = choice.delta ?? {};
        if (typeof d.reasoning_content === "string" && d.reasoning_content) {
          if (open?.kind !== "thinking") start(out, "thinking", { type: "thinking", thinking: "", signature: "" });
          out.push(ev("content_block_delta", { index, delta: { type: "thinking_delta", thinking: d.reasoning_content } }));
        }
        const text = typeof d.content === "string" && d.content ? d.content : typeof d.refusal === "string" && d.refusal ? d.refusal : "";
        if (text) {
          if (open?.kind !== "text") start(out, "text", { type: "text", text: "" });
          out.push(ev("content_block_delta", { index, delta: { type: "text_delta", text } }));
        }
        for (const call of d.tool_calls ?? []) {
          if (open?.kind !== "tool" || open.tool !== call.index) {
            start(out, "tool", { type: "tool_use", id: call.id ?? `toolu_${call.index}`, name: call.function?.name ?? "", input: {} }, call.index);
          }
          const args = call.function?.arguments;
          if (args) out.push(ev("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: args } }));
        }
        if (choice.finish_reason) stopReason = stopReasonOf(choice.finish_reason);
      }
      return out;
    },
    end(): AnthropicEvent[] {
      const out: AnthropicEvent[] = [];
      begin(out);
      close(out);
      out.push(ev("message_delta", { delta: { stop_reason: stopReason ?? "end_turn", stop_sequence: null }, usage: anthropicUsage(usage) }));
      out.push(ev("message_stop", {}));
      return out;
    },
  };
}

/**
 * Anthropic's stream events gathered into the Message they describe (what a client that streamed
 * received, for the log): blocks by index, text, thinking and signatures appended, tool inputs
 * parsed once whole, usage merged from message_start and message_delta.
 */
export function createMessageAccumulator() {
  let message: Json | null = null;
  const blocks: Json[] = [];
  const partialJson = new Map<number, string>();
  let usage: Json = {};
  return {
    add(type: string, data: Json): void {
      switch (type) {
        case "message_start":
          message = { ...((data.message as Json | undefined) ?? {}) };
          usage = { ...((message.usage as Json | undefined) ?? {}) };
          break;
        case "content_block_start":
          blocks[Number(data.index)] = { ...((data.content_block as Json | undefined) ?? {}) };
          break;
        case "content_block_delta": {
          const i = Number(data.index);
          const b = blocks[i];
          const d = (data.delta ?? {}) as Json;
          if (!b) break;
          if (d.type === "text_delta") b.text = String(b.text ?? "") + String(d.text ?? "");
          else if (d.type === "thinking_delta") b.thinking = String(b.thinking ?? "") + String(d.thinking ?? "");
          else if (d.type === "signature_delta") b.signature = String(b.signature ?? "") + String(d.signature ?? "");
          else if (d.type === "input_json_delta") partialJson.set(i, (partialJson.get(i) ?? "") + String(d.partial_json ?? ""));
          else if (d.type === "citations_delta") b.citations = [...((b.citations as unknown[] | undefined) ?? []), d.citation];
          break;
        }
        case "content_block_stop": {
          const i = Number(data.index);
          const json = partialJson.get(i);
          if (json !== undefined && blocks[i]) blocks[i]!.input = parseInput(json);
          break;
        }
        case "message_delta":
          if (message) Object.assign(message, (data.delta as Json | undefined) ?? {});
          usage = { ...usage, ...((data.usage as Json | undefined) ?? {}) };
          break;
      }
    },
    /** The message so far (null before message_start). */
    result(): Json | null {
      if (!message) return null;
      return { ...message, content: blocks.filter(Boolean), usage };
    },
  };
}
