import { jsonTextTooDeep, tooDeepError } from "../core/json-depth";
import { MAX_EMBEDDED_JSON_DEPTH } from "../core/limits";
import { DomainError } from "../core/errors";
import type { ChatCompletion, ChatCompletionChunk, ToolCallOut, Usage } from "./types";

// Translation between OpenAI chat completions and Anthropic's native Messages API, both ways.

const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;

type Json = Record<string, unknown>;
type Block = Json & { type: string };
type AMessage = { role: "user" | "assistant"; content: Block[] };

function unsupported(what: string): DomainError {
  return new DomainError("VALIDATION", `${what} is not supported for anthropic models`, {
    issues: [{ message: `${what} is not supported for anthropic models` }],
  });
}

function textBlocks(content: unknown): Block[] {
  if (typeof content === "string") return content ? [{ type: "text", text: content }] : [];
  if (!Array.isArray(content)) return [];
  const out: Block[] = [];
  for (const part of content as Json[]) {
    if (part.type === "text" && typeof part.text === "string" && part.text) out.push({ type: "text", text: part.text });
    else if (part.type === "refusal" && typeof part.refusal === "string" && part.refusal) out.push({ type: "text", text: part.refusal });
  }
  return out;
}

function imageBlock(url: string): Block {
  const m = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  if (m) return { type: "image", source: { type: "base64", media_type: m[1], data: m[2] } };
  return { type: "image", source: { type: "url", url } };
}

function userBlocks(content: unknown): Block[] {
  if (!Array.isArray(content)) return textBlocks(content);
  const out: Block[] = [];
  for (const part of content as Json[]) {
    if (part.type === "text") out.push(...textBlocks([part]));
    else if (part.type === "image_url") out.push(imageBlock(String((part.image_url as Json).url)));
    else if (part.type === "input_audio") throw unsupported("audio input");
    else if (part.type === "file") {
      const data = (part.file as Json | undefined)?.file_data;
      const m = typeof data === "string" ? /^data:([^;,]+);base64,(.*)$/s.exec(data) : null;
      if (!m) throw unsupported("a file without file_data (a data: URL)");
      out.push({ type: "document", source: { type: "base64", media_type: m[1], data: m[2] } });
    }
  }
  return out;
}

function toolInput(args: string, name: string): unknown {
  if (!args) return {};
  if (jsonTextTooDeep(args, MAX_EMBEDDED_JSON_DEPTH)) throw tooDeepError(MAX_EMBEDDED_JSON_DEPTH, `The arguments of tool call ${name}`);
  try {
    return JSON.parse(args);
  } catch {
    throw new DomainError("VALIDATION", `tool call ${name} has arguments that are not JSON`, {
      issues: [{ message: `tool_calls: arguments of ${name} must be a JSON object` }],
    });
  }
}

function toolResultText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return (content as Json[]).map((p) => (typeof p.text === "string" ? p.text : "")).join("");
  return "";
}

/** An OpenAI chat request (already validated) as an Anthropic Messages request. */
export function toAnthropicRequest(body: Json, upstreamModel: string): Json {
  const system: Block[] = [];
  const messages: AMessage[] = [];
  // Anthropic wants strictly alternating roles: consecutive turns of one role are merged.
  const push = (role: AMessage["role"], blocks: Block[]) => {
    if (blocks.length === 0) return;
    const last = messages.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else messages.push({ role, content: blocks });
  };
  for (const m of body.messages as Json[]) {
    switch (m.role) {
      case "system":
      case "developer":
        system.push(...textBlocks(m.content));
        break;
      case "user":
        push("user", userBlocks(m.content));
        break;
      case "assistant": {
        const blocks = textBlocks(m.content);
        for (const call of (m.tool_calls as ToolCallOut[] | null | undefined) ?? []) {
          blocks.push({ type: "tool_use", id: call.id, name: call.function.name, input: toolInput(call.function.arguments, call.function.name) });
        }
        const fc = m.function_call as { name: string; arguments: string } | null | undefined;
        if (fc) blocks.push({ type: "tool_use", id: `call_${fc.name}`, name: fc.name, input: toolInput(fc.arguments, fc.name) });
        push("assistant", blocks);
        break;
      }
      case "tool":
        push("user", [{ type: "tool_result", tool_use_id: m.tool_call_id, content: toolResultText(m.content) }]);
        break;
      case "function":
        push("user", [{ type: "tool_result", tool_use_id: `call_${m.name}`, content: (m.content as string | null) ?? "" }]);
        break;
    }
  }

  const out: Json = {
    model: upstreamModel,
    messages,
    max_tokens: (body.max_completion_tokens as number | null | undefined) ?? (body.max_tokens as number | null | undefined) ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
  };
  if (system.length) out.system = system;
  // Anthropic's temperature range is 0..1, OpenAI's 0..2.
  if (typeof body.temperature === "number") out.temperature = Math.min(body.temperature, 1);
  if (typeof body.top_p === "number") out.top_p = body.top_p;
  if (typeof body.top_k === "number") out.top_k = body.top_k;
  if (body.thinking && typeof body.thinking === "object") out.thinking = body.thinking;
  if (typeof body.stop === "string") out.stop_sequences = [body.stop];
  else if (Array.isArray(body.stop)) out.stop_sequences = body.stop;
  if (typeof body.user === "string") out.metadata = { user_id: body.user };

  const fnDefs = [...((body.tools as { function: Json }[] | undefined) ?? []).map((t) => t.function), ...((body.functions as Json[] | undefined) ?? [])];
  if (fnDefs.length) {
    out.tools = fnDefs.map((f) => ({
      name: f.name,
      ...(f.description ? { description: f.description } : {}),
      input_schema: (f.parameters as Json | undefined) ?? { type: "object", properties: {} },
    }));
  }
  const choice = body.tool_choice ?? body.function_call;
  let toolChoice: Json | undefined;
  if (choice === "auto") toolChoice = { type: "auto" };
  else if (choice === "required") toolChoice = { type: "any" };
  else if (choice === "none") toolChoice = { type: "none" };
  else if (choice && typeof choice === "object") {
    const name = ((choice as Json).function as Json | undefined)?.name ?? (choice as Json).name;
    toolChoice = { type: "tool", name };
  }
  if (body.parallel_tool_calls === false && fnDefs.length) toolChoice = { ...(toolChoice ?? { type: "auto" }), disable_parallel_tool_use: true };
  if (toolChoice) out.tool_choice = toolChoice;

  const rf = body.response_format as Json | undefined | null;
  if (rf && rf.type !== "text") throw unsupported(`response_format ${String(rf.type)}`);
  if (body.audio) throw unsupported("audio output");
  return out;
}

function finishReasonOf(stop: unknown): string | null {
  switch (stop) {
    case "end_turn":
    case "stop_sequence":
    case "pause_turn":
      return "stop";
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "tool_use":
      return "tool_calls";
    case "refusal":
      return "content_filter";
    case null:
    case undefined:
      return null;
    default:
      return "stop";
  }
}

/** Anthropic usage in OpenAI terms: prompt tokens include cache reads and writes. */
function usageOf(u: Json | null | undefined): Usage {
  // Only numbers count: anything else becomes NaN, which the log's usage check refuses (a "7" is
  // not read as 7, nor added as text).
  const count = (v: unknown) => (v === undefined || v === null ? 0 : typeof v === "number" ? v : Number.NaN);
  const input = count(u?.input_tokens);
  const cacheRead = count(u?.cache_read_input_tokens);
  const cacheWrite = count(u?.cache_creation_input_tokens);
  const output = count(u?.output_tokens);
  const prompt = input + cacheRead + cacheWrite;
  const creation = u?.cache_creation as Json | null | undefined;
  return {
    prompt_tokens: prompt,
    completion_tokens: output,
    total_tokens: prompt + output,
    prompt_tokens_details: { cached_tokens: cacheRead },
    ...(cacheWrite ? { cache_creation_input_tokens: cacheWrite } : {}),
    // The writes by lifetime, when Anthropic splits them (1-hour writes are billed at a higher rate).
    ...(cacheWrite && creation && typeof creation === "object"
      ? {
          cache_creation: {
            ephemeral_5m_input_tokens: count(creation.ephemeral_5m_input_tokens),
            ephemeral_1h_input_tokens: count(creation.ephemeral_1h_input_tokens),
          },
        }
      : {}),
  };
}

/** An Anthropic Message as an OpenAI chat.completion (used by the gateway and /report-anthropic). */
export function fromAnthropicMessage(msg: Json, created: number): ChatCompletion {
  const blocks = (Array.isArray(msg.content) ? msg.content : []) as Json[];
  const text = blocks
    .filter((b) => b.type === "text")
    .map((b) => String(b.text ?? ""))
    .join("");
  const thinking = blocks
    .filter((b) => b.type === "thinking")
    .map((b) => String(b.thinking ?? ""))
    .join("");
  const toolCalls: ToolCallOut[] = blocks
    .filter((b) => b.type === "tool_use")
    .map((b) => ({ id: String(b.id), type: "function", function: { name: String(b.name), arguments: JSON.stringify(b.input ?? {}) } }));
  return {
    id: String(msg.id ?? ""),
    object: "chat.completion",
    created,
    model: String(msg.model ?? ""),
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: text || (toolCalls.length ? null : ""),
          refusal: null,
          ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
          ...(thinking ? { reasoning_content: thinking } : {}),
        },
        finish_reason: finishReasonOf(msg.stop_reason),
        logprobs: null,
      },
    ],
    usage: usageOf(msg.usage as Json | undefined),
  };
}

/**
 * Turns Anthropic stream events into OpenAI chunks, one event at a time. Returns the chunks the
 * event produces (often none); `done` once message_stop arrived.
 */
export function createStreamTranslator(created: number) {
  let id = "";
  let model = "";
  let usage: Json = {};
  let done = false;
  let toolCount = 0;
  const toolIndexByBlock = new Map<number, number>();
  const chunk = (delta: ChatCompletionChunk["choices"][number]["delta"], finish: string | null = null): ChatCompletionChunk => ({
    id,
    object: "chat.completion.chunk",
    created,
    model,
    choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
  });
  return {
    get done() {
      return done;
    },
    translate(type: string, data: Json): ChatCompletionChunk[] {
      switch (type) {
        case "message_start": {
          const m = (data.message ?? {}) as Json;
          id = String(m.id ?? "");
          model = String(m.model ?? "");
          usage = { ...(m.usage as Json | undefined) };
          return [chunk({ role: "assistant", content: "" })];
        }
        case "content_block_start": {
          const block = (data.content_block ?? {}) as Json;
          if (block.type === "tool_use") {
            const index = toolCount++;
            toolIndexByBlock.set(Number(data.index), index);
            return [chunk({ tool_calls: [{ index, id: String(block.id), type: "function", function: { name: String(block.name), arguments: "" } }] })];
          }
          if (block.type === "text" && typeof block.text === "string" && block.text) return [chunk({ content: block.text })];
          return [];
        }
        case "content_block_delta": {
          const d = (data.delta ?? {}) as Json;
          if (d.type === "text_delta") return [chunk({ content: String(d.text ?? "") })];
          if (d.type === "input_json_delta") {
            const index = toolIndexByBlock.get(Number(data.index)) ?? 0;
            return [chunk({ tool_calls: [{ index, function: { arguments: String(d.partial_json ?? "") } }] })];
          }
          if (d.type === "thinking_delta") return [chunk({ reasoning_content: String(d.thinking ?? "") })];
          return [];
        }
        case "message_delta": {
          const d = (data.delta ?? {}) as Json;
          // message_delta carries cumulative output (and sometimes input) counts.
          usage = { ...usage, ...(data.usage as Json | undefined) };
          return d.stop_reason ? [chunk({}, finishReasonOf(d.stop_reason))] : [];
        }
        case "message_stop": {
          done = true;
          return [{ id, object: "chat.completion.chunk", created, model, choices: [], usage: usageOf(usage) }];
        }
        default:
          return [];
      }
    },
  };
}

/**
 * An Anthropic Messages request as an OpenAI chat request (for /report-anthropic, so reported
 * calls can feed datasets like any other log). Unknown shapes are kept as they are.
 */
export function fromAnthropicRequest(req: Json): Json {
  const messages: Json[] = [];
  if (typeof req.system === "string" && req.system) messages.push({ role: "system", content: req.system });
  else if (Array.isArray(req.system)) {
    const text = (req.system as Json[]).map((b) => (typeof b.text === "string" ? b.text : "")).join("\n");
    if (text) messages.push({ role: "system", content: text });
  }
  for (const m of (Array.isArray(req.messages) ? req.messages : []) as Json[]) {
    // Claude Code sends system turns inside messages too.
    if (m.role === "system") {
      const text =
        typeof m.content === "string"
          ? m.content
          : ((Array.isArray(m.content) ? m.content : []) as Json[]).map((b) => (typeof b.text === "string" ? b.text : "")).join("\n");
      if (text) messages.push({ role: "system", content: text });
      continue;
    }
    if (typeof m.content === "string") {
      messages.push({ role: m.role, content: m.content });
      continue;
    }
    const blocks = (Array.isArray(m.content) ? m.content : []) as Json[];
    if (m.role === "assistant") {
      const text = blocks
        .filter((b) => b.type === "text")
        .map((b) => String(b.text ?? ""))
        .join("");
      const calls = blocks
        .filter((b) => b.type === "tool_use")
        .map((b) => ({ id: String(b.id), type: "function", function: { name: String(b.name), arguments: JSON.stringify(b.input ?? {}) } }));
      messages.push({ role: "assistant", content: text || null, ...(calls.length ? { tool_calls: calls } : {}) });
      continue;
    }
    // A user turn: tool results become tool messages, the rest one user message.
    const parts: Json[] = [];
    for (const b of blocks) {
      if (b.type === "tool_result") {
        const content =
          typeof b.content === "string" ? b.content : Array.isArray(b.content) ? (b.content as Json[]).map((c) => String(c.text ?? "")).join("") : "";
        messages.push({ role: "tool", tool_call_id: String(b.tool_use_id), content });
      } else if (b.type === "text") parts.push({ type: "text", text: String(b.text ?? "") });
      else if (b.type === "image") {
        const src = (b.source ?? {}) as Json;
        const url = src.type === "base64" ? `data:${String(src.media_type)};base64,${String(src.data)}` : String(src.url ?? "");
        parts.push({ type: "image_url", image_url: { url } });
      }
    }
    if (parts.length) messages.push({ role: "user", content: parts.length === 1 && parts[0]!.type === "text" ? parts[0]!.text : parts });
  }
  const out: Json = { model: req.model, messages };
  if (typeof req.max_tokens === "number") out.max_tokens = req.max_tokens;
  if (typeof req.temperature === "number") out.temperature = req.temperature;
  if (typeof req.top_p === "number") out.top_p = req.top_p;
  // Anthropic's own sampling and thinking settings ride along: the Anthropic upstream reads them back.
  if (typeof req.top_k === "number") out.top_k = req.top_k;
  if (req.thinking && typeof req.thinking === "object") out.thinking = req.thinking;
  const userId = (req.metadata as Json | undefined)?.user_id;
  if (typeof userId === "string") out.user = userId;
  if (Array.isArray(req.stop_sequences)) out.stop = req.stop_sequences;
  if (typeof req.stream === "boolean") out.stream = req.stream;
  // Anthropic's server tools (web search, code execution: they have a `type`) run at Anthropic only.
  const tools = Array.isArray(req.tools) ? (req.tools as Json[]).filter((t) => t.type === undefined || t.type === "custom") : [];
  if (tools.length) {
    out.tools = tools.map((t) => ({
      type: "function",
      function: { name: t.name, ...(t.description ? { description: t.description } : {}), parameters: t.input_schema ?? { type: "object", properties: {} } },
    }));
  }
  const tc = req.tool_choice as Json | undefined;
  if (tc?.type === "auto") out.tool_choice = "auto";
  else if (tc?.type === "any") out.tool_choice = "required";
  else if (tc?.type === "none") out.tool_choice = "none";
  else if (tc?.type === "tool") out.tool_choice = { type: "function", function: { name: tc.name } };
  if (tc?.disable_parallel_tool_use === true) out.parallel_tool_calls = false;
  return out;
}
