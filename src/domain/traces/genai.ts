import type { AttrValue, Attrs, OtlpSpan } from "../../lib/otlp/decode";
import { openInferenceMessages, openInferenceOperation, openInferenceTools, openLlmetryMessages, openLlmetryTools, str, json } from "./flattened";

// What a span says about a model call, read from the OpenTelemetry GenAI semantic conventions (the
// current names and the deprecated ones popular instrumentations still send) and from the shapes
// of the instrumentations teams use: the Vercel AI SDK (`ai.*`), OpenLLMetry (flattened
// `gen_ai.prompt.<i>.*`), OpenInference (`llm.*`; both flattened forms in ./flattened.ts), and the conventions' own `gen_ai.input.messages` / events. The call is
// rebuilt in Chat Completions form, as every log is, so datasets and fine-tunes take it unchanged.

type ChatMessage = { role: string; content: string | null; tool_calls?: ToolCall[]; tool_call_id?: string; name?: string };
type ToolCall = { id: string; type: "function"; function: { name: string; arguments: string } };
type Tool = { type: "function"; function: { name: string; description?: string; parameters?: unknown } };

export type ModelCall = {
  operation: string;
  api: "chat" | "embeddings";
  provider: string | null;
  model: string;
  responseModel: string | null;
  inputTokens: number | null;
  outputTokens: number | null;
  cachedInputTokens: number | null;
  reasoningTokens: number | null;
  reqPayload: Record<string, unknown>;
  respPayload: Record<string, unknown> | null;
  /** The failure's text (an ERROR status or error.type); null: answered. */
  error: string | null;
  /** Attributes holding the conversation: left out of the span's own row (the log has them). */
  contentKeys: string[];
};

/** Operations that are not model calls (an agent's run, a tool's execution). */
const NOT_CALLS = new Set([
  "execute_tool",
  "invoke_agent",
  "create_agent",
  "agent",
  "tool",
  "workflow",
  "task",
  "chain",
  "retrieval",
  "rerank",
  "guardrail",
  "evaluate",
  "prompt",
]);

const num = (v: AttrValue | undefined): number | null => {
  const n = typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" ? Number(v) : Number.NaN;
  return Number.isFinite(n) && n >= 0 ? Math.round(n) : null;
};
const first = (a: Attrs, ...keys: string[]) => {
  for (const k of keys) if (a[k] !== undefined && a[k] !== null && a[k] !== "") return a[k];
  return undefined;
};

/** The operation a span stands for (gen_ai.operation.name, or what its instrumentation says). */
export function operationOf(span: OtlpSpan): string | null {
  const a = span.attributes;
  const op = str(first(a, "gen_ai.operation.name", "llm.request.type"));
  if (op) return op.toLowerCase();
  const kind = openInferenceOperation(a);
  if (kind) return kind;
  if (a["gen_ai.tool.name"] !== undefined || a["ai.toolCall.name"] !== undefined) return "execute_tool";
  if (a["gen_ai.agent.name"] !== undefined) return "invoke_agent";
  return null;
}

/** The model call a span is, or null when it is another step (a tool, the agent, retrieval). */
export function modelCallOf(span: OtlpSpan): ModelCall | null {
  const a = span.attributes;
  const operation = operationOf(span) ?? "chat";
  if (NOT_CALLS.has(operation)) return null;
  const requestModel = str(first(a, "gen_ai.request.model", "llm.model_name"));
  const responseModel = str(first(a, "gen_ai.response.model", "ai.response.model"));
  // A model call names its model in the GenAI attributes (an SDK's outer span, such as the AI
  // SDK's ai.generateText around its doGenerate, does not: it is structure).
  if (!requestModel && !responseModel) return null;
  const model = requestModel ?? responseModel!;
  const api = /embed/.test(operation) ? "embeddings" : "chat";
  const provider = providerOf(str(first(a, "gen_ai.provider.name", "gen_ai.system", "llm.provider", "llm.system")));
  const inputTokens = num(
    first(a, "gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens", "llm.token_count.prompt", "ai.usage.promptTokens", "ai.usage.inputTokens"),
  );
  const outputTokens = num(
    first(
      a,
      "gen_ai.usage.output_tokens",
      "gen_ai.usage.completion_tokens",
      "llm.token_count.completion",
      "ai.usage.completionTokens",
      "ai.usage.outputTokens",
    ),
  );
  const cachedInputTokens = num(
    first(
      a,
      "gen_ai.usage.cache_read.input_tokens",
      "gen_ai.usage.cache_read_input_tokens",
      "llm.token_count.prompt_details.cache_read",
      "ai.usage.cachedInputTokens",
    ),
  );
  const reasoningTokens = num(first(a, "gen_ai.usage.reasoning.output_tokens", "llm.token_count.completion_details.reasoning", "ai.usage.reasoningTokens"));
  const contentKeys: string[] = [];
  const input = inputMessages(span, contentKeys);
  const output = outputMessage(span, contentKeys);
  const tools = toolsOf(a, contentKeys);
  // A call that asked for tools ends in tool_calls (OpenInference says "stop" for any completed response).
  const reason = finishReason(a);
  const finish = output?.tool_calls?.length && (reason === null || reason === "stop") ? "tool_calls" : (reason ?? "stop");
  const errorType = str(a["error.type"]);
  const error = span.statusCode === 2 || errorType ? (span.statusMessage ?? errorType ?? "the call failed") : null;
  const reqPayload: Record<string, unknown> = { model, messages: input };
  if (tools.length) reqPayload.tools = tools;
  for (const [attr, field] of [
    ["gen_ai.request.temperature", "temperature"],
    ["gen_ai.request.top_p", "top_p"],
    ["gen_ai.request.max_tokens", "max_tokens"],
  ] as const) {
    const v = a[attr];
    if (typeof v === "number") reqPayload[field] = v;
  }
  const usage =
    inputTokens !== null || outputTokens !== null
      ? { prompt_tokens: inputTokens ?? 0, completion_tokens: outputTokens ?? 0, total_tokens: (inputTokens ?? 0) + (outputTokens ?? 0) }
      : undefined;
  const respPayload =
    error || api === "embeddings"
      ? null
      : {
          id: str(first(a, "gen_ai.response.id", "ai.response.id")) ?? `otel-${span.spanId}`,
          object: "chat.completion",
          created: Math.floor((span.endMs ?? span.startMs ?? 0) / 1000),
          model: responseModel ?? model,
          choices: [{ index: 0, message: output ?? { role: "assistant", content: null }, finish_reason: finish }],
          ...(usage ? { usage } : {}),
        };
  return {
    operation,
    api,
    provider,
    model,
    responseModel,
    inputTokens,
    outputTokens,
    cachedInputTokens,
    reasoningTokens,
    reqPayload,
    respPayload,
    error,
    contentKeys,
  };
}

/** openai, anthropic, … from the conventions' provider names and the SDKs' spellings ("openai.chat", "OpenAI", "aws.bedrock"). */
function providerOf(v: string | null): string | null {
  if (!v) return null;
  const p = v.toLowerCase();
  if (p.startsWith("openai") || p === "azure.ai.openai") return "openai";
  if (p.startsWith("anthropic")) return "anthropic";
  if (p.startsWith("google") || p.startsWith("gcp") || p.includes("gemini") || p.includes("vertex")) return "gemini";
  return p.split(/[.:]/)[0]!.slice(0, 64) || null;
}

function finishReason(a: Attrs): string | null {
  const v = first(a, "gen_ai.response.finish_reasons", "ai.response.finishReason", "gen_ai.completion.0.finish_reason", "llm.finish_reason");
  const r = Array.isArray(v) ? str(v[0]) : str(v);
  if (!r) return null;
  // The AI SDK's "tool-calls" and the conventions' "tool_call" are Chat Completions' "tool_calls".
  return r === "tool-calls" || r === "tool_call" ? "tool_calls" : r;
}

// ---------------------------------------------------------------- input

function inputMessages(span: OtlpSpan, keys: string[]): ChatMessage[] {
  const a = span.attributes;
  const out: ChatMessage[] = [];
  // The conventions' current form: system instructions apart, messages with typed parts.
  const system = json(a["gen_ai.system_instructions"]);
  if (a["gen_ai.system_instructions"] !== undefined) keys.push("gen_ai.system_instructions");
  if (Array.isArray(system)) {
    const text = system.map((p) => (p && typeof p === "object" ? String((p as { content?: unknown }).content ?? "") : String(p))).join("");
    if (text) out.push({ role: "system", content: text });
  }
  const conv = json(a["gen_ai.input.messages"]);
  if (Array.isArray(conv)) {
    keys.push("gen_ai.input.messages");
    for (const m of conv) out.push(...fromPartsMessage(m));
    return out;
  }
  // The Vercel AI SDK: ai.prompt.messages, its own message form.
  const ai = json(a["ai.prompt.messages"]);
  if (Array.isArray(ai)) {
    keys.push("ai.prompt.messages", "ai.prompt");
    for (const m of ai) out.push(...fromAiSdkMessage(m));
    return out;
  }
  // OpenLLMetry: gen_ai.prompt.<i>.role / .content (and tool calls of assistant turns).
  const flat = openLlmetryMessages(a, "gen_ai.prompt", keys);
  if (flat.length) return [...out, ...flat];
  const oi = openInferenceMessages(a, "llm.input_messages", keys);
  if (oi.length) {
    keys.push("input.value", "input.mime_type");
    return [...out, ...oi];
  }
  // Events: gen_ai.system.message, gen_ai.user.message, … (or one gen_ai.content.prompt).
  for (const e of span.events) {
    const role = /^gen_ai\.(system|user|assistant|tool)\.message$/.exec(e.name)?.[1];
    if (role) out.push(eventMessage(role, e.attributes));
    if (e.name === "gen_ai.content.prompt") {
      const p = json(e.attributes["gen_ai.prompt"]);
      if (Array.isArray(p)) for (const m of p) out.push(...fromPartsMessage(m));
    }
  }
  return out;
}

function eventMessage(role: string, a: Attrs): ChatMessage {
  const content = a.content ?? a["gen_ai.event.content"];
  const parsed = typeof content === "string" ? content : content == null ? null : JSON.stringify(content);
  const m: ChatMessage = { role, content: parsed };
  const id = str(a.id ?? a["gen_ai.tool.call.id"]);
  if (role === "tool" && id) m.tool_call_id = id;
  return m;
}

/** A message of the conventions' JSON form: {role, parts: [{type: text|tool_call|tool_call_response, …}]}, or {role, content}. */
function fromPartsMessage(raw: unknown): ChatMessage[] {
  if (!raw || typeof raw !== "object") return [];
  const m = raw as { role?: unknown; parts?: unknown; content?: unknown; tool_calls?: unknown; tool_call_id?: unknown };
  const role = typeof m.role === "string" ? m.role : "user";
  if (!Array.isArray(m.parts)) {
    const msg: ChatMessage = { role, content: typeof m.content === "string" ? m.content : m.content == null ? null : JSON.stringify(m.content) };
    if (Array.isArray(m.tool_calls)) msg.tool_calls = m.tool_calls as ToolCall[];
    if (typeof m.tool_call_id === "string") msg.tool_call_id = m.tool_call_id;
    return [msg];
  }
  let text = "";
  const calls: ToolCall[] = [];
  const results: ChatMessage[] = [];
  for (const p of m.parts as Record<string, unknown>[]) {
    if (!p || typeof p !== "object") continue;
    if (p.type === "text" || p.type === "reasoning") text += String(p.content ?? "");
    else if (p.type === "tool_call")
      calls.push({ id: String(p.id ?? ""), type: "function", function: { name: String(p.name ?? ""), arguments: argumentsText(p.arguments) } });
    else if (p.type === "tool_call_response") results.push({ role: "tool", tool_call_id: String(p.id ?? ""), content: contentText(p.response ?? p.result) });
  }
  if (results.length && !text && !calls.length) return results;
  const msg: ChatMessage = { role, content: text || (calls.length ? null : "") };
  if (calls.length) msg.tool_calls = calls;
  return [msg, ...results];
}

/** A message of the AI SDK's form: content a string or parts (text, tool-call, tool-result). */
function fromAiSdkMessage(raw: unknown): ChatMessage[] {
  if (!raw || typeof raw !== "object") return [];
  const m = raw as { role?: unknown; content?: unknown };
  const role = typeof m.role === "string" ? m.role : "user";
  if (typeof m.content === "string") return [{ role, content: m.content }];
  if (!Array.isArray(m.content)) return [{ role, content: null }];
  let text = "";
  const calls: ToolCall[] = [];
  const results: ChatMessage[] = [];
  for (const p of m.content as Record<string, unknown>[]) {
    if (!p || typeof p !== "object") continue;
    if (p.type === "text") text += String(p.text ?? "");
    else if (p.type === "tool-call")
      calls.push({
        id: String(p.toolCallId ?? ""),
        type: "function",
        function: { name: String(p.toolName ?? ""), arguments: argumentsText(p.input ?? p.args) },
      });
    else if (p.type === "tool-result") results.push({ role: "tool", tool_call_id: String(p.toolCallId ?? ""), content: contentText(p.output ?? p.result) });
  }
  if (role === "tool") return results;
  const msg: ChatMessage = { role, content: text || (calls.length ? null : "") };
  if (calls.length) msg.tool_calls = calls;
  return [msg, ...results];
}

const argumentsText = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v ?? {}));

function contentText(v: unknown): string {
  if (typeof v === "string") return v;
  // The AI SDK's tool output: {type: "text" | "json", value}.
  if (v && typeof v === "object" && "value" in v && "type" in v) {
    const value = (v as { value: unknown }).value;
    return typeof value === "string" ? value : JSON.stringify(value);
  }
  return JSON.stringify(v ?? null);
}

// ---------------------------------------------------------------- output

function outputMessage(span: OtlpSpan, keys: string[]): ChatMessage | null {
  const a = span.attributes;
  const conv = json(a["gen_ai.output.messages"]);
  if (Array.isArray(conv) && conv.length) {
    keys.push("gen_ai.output.messages");
    return fromPartsMessage(conv[0])[0] ?? null;
  }
  if (a["ai.response.text"] !== undefined || a["ai.response.toolCalls"] !== undefined) {
    keys.push("ai.response.text", "ai.response.toolCalls", "ai.response.object");
    const m: ChatMessage = { role: "assistant", content: str(a["ai.response.text"]) };
    const calls = json(a["ai.response.toolCalls"]);
    if (Array.isArray(calls) && calls.length) {
      m.tool_calls = calls.map((c: Record<string, unknown>) => ({
        id: String(c.toolCallId ?? ""),
        type: "function" as const,
        function: { name: String(c.toolName ?? ""), arguments: argumentsText(c.input ?? c.args) },
      }));
    }
    return m;
  }
  const flat = openLlmetryMessages(a, "gen_ai.completion", keys);
  if (flat.length) return flat[0]!;
  const oi = openInferenceMessages(a, "llm.output_messages", keys);
  if (oi.length) {
    keys.push("output.value", "output.mime_type");
    return oi[0]!;
  }
  for (const e of span.events) {
    if (e.name === "gen_ai.choice") {
      const msg = json(e.attributes.message);
      if (msg && typeof msg === "object") return fromPartsMessage({ role: "assistant", ...(msg as object) })[0] ?? null;
      return eventMessage("assistant", e.attributes);
    }
    if (e.name === "gen_ai.content.completion") {
      const c = json(e.attributes["gen_ai.completion"]);
      if (Array.isArray(c) && c.length) return fromPartsMessage(c[0])[0] ?? null;
    }
  }
  return null;
}

function toolsOf(a: Attrs, keys: string[]): Tool[] {
  const out: Tool[] = [];
  const defs = json(a["gen_ai.tool.definitions"]);
  if (Array.isArray(defs)) {
    keys.push("gen_ai.tool.definitions");
    for (const d of defs as Record<string, unknown>[]) {
      const fn = (d?.function as Record<string, unknown> | undefined) ?? d;
      if (fn && typeof fn.name === "string")
        out.push({ type: "function", function: { name: fn.name, description: fn.description as string | undefined, parameters: fn.parameters } });
    }
    return out;
  }
  // The AI SDK: ai.prompt.tools, a list of JSON strings {type, name, description, inputSchema|parameters}.
  const aiTools = a["ai.prompt.tools"];
  if (Array.isArray(aiTools)) {
    keys.push("ai.prompt.tools", "ai.prompt.toolChoice");
    for (const t of aiTools) {
      const d = json(t) as Record<string, unknown> | null;
      if (d && typeof d.name === "string")
        out.push({ type: "function", function: { name: d.name, description: d.description as string | undefined, parameters: d.inputSchema ?? d.parameters } });
    }
    return out;
  }
  const flat = openLlmetryTools(a, keys);
  return flat.length ? flat : openInferenceTools(a, keys);
}
