import type { AttrValue, Attrs } from "../../lib/otlp/decode";

// Two conventions flatten the conversation into indexed attributes. OpenLLMetry (Traceloop):
// `gen_ai.prompt.<i>.*` / `gen_ai.completion.<i>.*`, tools in `llm.request.functions.<i>.*`.
// The OpenInference conventions (Arize Phoenix; the instrumentations of the OpenAI Agents SDK,
// LangChain, LlamaIndex, …): a span's kind in `openinference.span.kind`, the conversation
// flattened into `llm.input_messages.<i>.message.*` / `llm.output_messages.<i>.message.*`, tools
// as JSON in `llm.tools.<i>.tool.json_schema`, and the raw payloads in `input.value` /
// `output.value`. Read here into the Chat Completions form every log has.

export const str = (v: AttrValue | undefined): string | null => (typeof v === "string" && v !== "" ? v : typeof v === "number" ? String(v) : null);
/** A JSON attribute: sent as a JSON string (most SDKs) or as a structured value. */
export function json(v: AttrValue | undefined): unknown {
  if (typeof v !== "string") return v ?? null;
  try {
    return JSON.parse(v);
  } catch {
    return null;
  }
}

type ChatMessage = { role: string; content: string | null; tool_calls?: ToolCall[]; tool_call_id?: string; name?: string };
type ToolCall = { id: string; type: "function"; function: { name: string; arguments: string } };
type Tool = { type: "function"; function: { name: string; description?: string; parameters?: unknown } };

/** The operation an OpenInference span kind stands for, in the GenAI conventions' words. */
const KIND_OPERATION: Record<string, string> = {
  llm: "chat",
  embedding: "embeddings",
  tool: "execute_tool",
  agent: "invoke_agent",
  chain: "chain",
  retriever: "retrieval",
  reranker: "rerank",
  guardrail: "guardrail",
  evaluator: "evaluate",
  prompt: "prompt",
};

export function openInferenceOperation(a: Attrs): string | null {
  const kind = a["openinference.span.kind"];
  return typeof kind === "string" ? (KIND_OPERATION[kind.toLowerCase()] ?? kind.toLowerCase()) : null;
}

/** OpenLLMetry's flattened messages: <prefix>.<i>.role, .content, .tool_calls.<j>.{id,name,arguments}, .tool_call_id. */
export function openLlmetryMessages(a: Attrs, prefix: string, keys: string[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (let i = 0; i < 1000; i++) {
    const p = `${prefix}.${i}`;
    const role = str(a[`${p}.role`]);
    const content = a[`${p}.content`];
    if (role === null && content === undefined) break;
    for (const k of Object.keys(a)) if (k.startsWith(`${p}.`)) keys.push(k);
    const m: ChatMessage = {
      role: role ?? (prefix === "gen_ai.completion" ? "assistant" : "user"),
      content: typeof content === "string" ? content : content == null ? null : JSON.stringify(content),
    };
    const calls: ToolCall[] = [];
    for (let j = 0; j < 128; j++) {
      const name = str(a[`${p}.tool_calls.${j}.name`]);
      if (name === null) break;
      calls.push({
        id: str(a[`${p}.tool_calls.${j}.id`]) ?? "",
        type: "function",
        function: { name, arguments: str(a[`${p}.tool_calls.${j}.arguments`]) ?? "{}" },
      });
    }
    if (calls.length) m.tool_calls = calls;
    const callId = str(a[`${p}.tool_call_id`]);
    if (callId) m.tool_call_id = callId;
    out.push(m);
  }
  return out;
}

/** OpenLLMetry's tools: llm.request.functions.<i>.name / description / parameters. */
export function openLlmetryTools(a: Attrs, keys: string[]): Tool[] {
  const out: Tool[] = [];
  for (let i = 0; i < 256; i++) {
    const name = str(a[`llm.request.functions.${i}.name`]);
    if (!name) break;
    keys.push(`llm.request.functions.${i}.name`, `llm.request.functions.${i}.description`, `llm.request.functions.${i}.parameters`);
    out.push({
      type: "function",
      function: {
        name,
        description: str(a[`llm.request.functions.${i}.description`]) ?? undefined,
        parameters: json(a[`llm.request.functions.${i}.parameters`]) ?? undefined,
      },
    });
  }
  return out;
}

// ---------------------------------------------------------------- OpenInference

const MESSAGE = /^(\d{1,4})\.message\.(.+)$/;
const MAX_MESSAGES = 1000;

/**
 * The messages under `prefix` (`llm.input_messages` or `llm.output_messages`), in index order, read
 * in one pass over the attributes; the keys read are added to `keys`.
 */
export function openInferenceMessages(a: Attrs, prefix: string, keys: string[]): ChatMessage[] {
  const head = `${prefix}.`;
  const byIndex = new Map<number, Map<string, AttrValue>>();
  for (const k in a) {
    if (!k.startsWith(head)) continue;
    const m = MESSAGE.exec(k.slice(head.length));
    if (!m) continue;
    const i = Number(m[1]);
    if (i >= MAX_MESSAGES) continue;
    keys.push(k);
    let fields = byIndex.get(i);
    if (!fields) byIndex.set(i, (fields = new Map()));
    fields.set(m[2]!, a[k]!);
  }
  return [...byIndex.entries()].sort(([x], [y]) => x - y).map(([, f]) => message(f, prefix === "llm.output_messages" ? "assistant" : "user"));
}

const text = (v: AttrValue | undefined): string | null => (typeof v === "string" ? v : v == null ? null : JSON.stringify(v));

function message(f: Map<string, AttrValue>, defaultRole: string): ChatMessage {
  const role = typeof f.get("role") === "string" ? (f.get("role") as string) : defaultRole;
  let content = text(f.get("content"));
  // Typed parts: contents.<j>.message_content.type / .text (the text parts, joined).
  if (content === null) {
    const parts: [number, string][] = [];
    for (const [k, v] of f) {
      const m = /^contents\.(\d+)\.message_content\.text$/.exec(k);
      if (m && typeof v === "string") parts.push([Number(m[1]), v]);
    }
    if (parts.length)
      content = parts
        .sort(([x], [y]) => x - y)
        .map(([, t]) => t)
        .join("");
  }
  const calls: [number, ToolCall][] = [];
  for (const [k, v] of f) {
    const m = /^tool_calls\.(\d+)\.tool_call\.function\.name$/.exec(k);
    if (!m || typeof v !== "string") continue;
    const p = `tool_calls.${m[1]}.tool_call`;
    calls.push([
      Number(m[1]),
      { id: text(f.get(`${p}.id`)) ?? "", type: "function", function: { name: v, arguments: text(f.get(`${p}.function.arguments`)) ?? "{}" } },
    ]);
  }
  const msg: ChatMessage = { role, content: content ?? (calls.length ? null : "") };
  if (calls.length) msg.tool_calls = calls.sort(([x], [y]) => x - y).map(([, c]) => c);
  const callId = text(f.get("tool_call_id"));
  if (callId) msg.tool_call_id = callId;
  const name = text(f.get("name"));
  if (name && role !== "tool") msg.name = name;
  return msg;
}

/** `llm.tools.<i>.tool.json_schema`: a tool as JSON, OpenAI's function form or {name, description, parameters}. */
export function openInferenceTools(a: Attrs, keys: string[]): Tool[] {
  const out: Tool[] = [];
  for (let i = 0; i < 256; i++) {
    const key = `llm.tools.${i}.tool.json_schema`;
    const raw = a[key];
    if (raw === undefined) break;
    keys.push(key);
    let d: unknown = raw;
    if (typeof raw === "string") {
      try {
        d = JSON.parse(raw);
      } catch {
        continue;
      }
    }
    const rec = (d ?? {}) as Record<string, unknown>;
    const fn = ((rec.function as Record<string, unknown> | undefined) ?? rec) as Record<string, unknown>;
    if (typeof fn.name === "string")
      out.push({ type: "function", function: { name: fn.name, description: fn.description as string | undefined, parameters: fn.parameters } });
  }
  return out;
}
