// The playground's conversation as the form edits it (a message per row, its text in a box), and
// how it becomes a request's messages. A message taken from a log keeps what a text box cannot
// show (images and other non-text parts, an assistant's tool calls) and sends it on unchanged.

export const ROLES = ["system", "user", "assistant", "tool"] as const;
export type Role = (typeof ROLES)[number];
export type Draft = {
  role: Role;
  content: string;
  /** The tool call a tool message answers. */
  toolCallId: string;
  /** An assistant message's tool calls, as OpenAI's wire format has them (from a log). */
  toolCalls: unknown[] | null;
  /** Content parts other than text (images, audio), sent after the text (from a log). */
  media: unknown[] | null;
};

export const draft = (role: Role, content = ""): Draft => ({ role, content, toolCallId: "", toolCalls: null, media: null });

export function toMessages(drafts: Draft[]): Record<string, unknown>[] {
  return drafts.map((d) => {
    const content = d.media?.length ? [...(d.content ? [{ type: "text", text: d.content }] : []), ...d.media] : d.content;
    const m: Record<string, unknown> = { role: d.role, content };
    if (d.role === "tool") m.tool_call_id = d.toolCallId;
    if (d.role === "assistant" && d.toolCalls?.length) {
      m.tool_calls = d.toolCalls;
      if (content === "") m.content = null;
    }
    return m;
  });
}

/** What a draft carries besides its text, as the page says it ("1 image part, 2 tool calls"). */
export function extrasOf(d: Draft): string | null {
  const parts: string[] = [];
  const media = d.media?.length ?? 0;
  const calls = d.toolCalls?.length ?? 0;
  if (media) parts.push(`${media} ${media === 1 ? "non-text part" : "non-text parts"} (image or audio)`);
  if (calls) parts.push(`${calls} ${calls === 1 ? "tool call" : "tool calls"}`);
  return parts.length ? parts.join(", ") : null;
}

// ------------------------------------------------------------------ from a logged call

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown) => (typeof v === "string" ? v : v == null ? "" : JSON.stringify(v));

/** What a log's request fills in: the conversation (never the answer), its tools and settings. */
export type Prefill = { messages: Draft[]; tools: string; temperature: number | null; maxTokens: number | null };

function roleOf(v: unknown): Role {
  if (v === "developer") return "system";
  if (v === "function") return "tool";
  return (ROLES as readonly string[]).includes(v as string) ? (v as Role) : "user";
}

/** An OpenAI-format message: its text parts as text, other parts and tool calls kept aside. */
function fromOpenAI(m: Obj): Draft {
  const d = draft(roleOf(m.role));
  if (typeof m.content === "string") d.content = m.content;
  else if (Array.isArray(m.content)) {
    const texts: string[] = [];
    const media: unknown[] = [];
    for (const p of m.content) {
      if (isObj(p) && p.type === "text" && typeof p.text === "string") texts.push(p.text);
      else media.push(p);
    }
    d.content = texts.join("\n");
    d.media = media.length ? media : null;
  }
  if (typeof m.tool_call_id === "string") d.toolCallId = m.tool_call_id;
  if (Array.isArray(m.tool_calls) && m.tool_calls.length) d.toolCalls = m.tool_calls;
  return d;
}

/** An Anthropic Messages request's turns in OpenAI's shape (tool results become tool messages). */
function fromAnthropic(system: unknown, messages: unknown[]): Draft[] {
  const out: Draft[] = [];
  const sys = typeof system === "string" ? system : Array.isArray(system) ? system.map((b) => (isObj(b) ? str(b.text) : "")).join("\n") : "";
  if (sys) out.push(draft("system", sys));
  for (const m of messages) {
    if (!isObj(m)) continue;
    const role = m.role === "assistant" ? "assistant" : "user";
    if (typeof m.content === "string") {
      out.push(draft(role, m.content));
      continue;
    }
    const d = draft(role);
    const texts: string[] = [];
    const media: unknown[] = [];
    const calls: unknown[] = [];
    for (const b of Array.isArray(m.content) ? m.content : []) {
      if (!isObj(b)) continue;
      if (b.type === "text") texts.push(str(b.text));
      else if (b.type === "tool_use") calls.push({ id: b.id, type: "function", function: { name: b.name, arguments: JSON.stringify(b.input ?? {}) } });
      else if (b.type === "tool_result") {
        const content = Array.isArray(b.content) ? b.content.map((c) => (isObj(c) ? str(c.text) : "")).join("\n") : str(b.content);
        out.push({ ...draft("tool", content), toolCallId: str(b.tool_use_id) });
      } else if (b.type === "image" && isObj(b.source)) {
        const s = b.source;
        const url = s.type === "base64" ? `data:${str(s.media_type)};base64,${str(s.data)}` : str(s.url);
        media.push({ type: "image_url", image_url: { url } });
      }
    }
    if (!texts.length && !media.length && !calls.length) continue;
    d.content = texts.join("\n");
    d.media = media.length ? media : null;
    d.toolCalls = calls.length ? calls : null;
    out.push(d);
  }
  return out;
}

/**
 * The conversation a logged call sent (OpenAI's format, or Anthropic's for /report-anthropic),
 * without its answer; null when the log holds no messages (a failed or cut-short request).
 */
export function prefillFromLog(log: { source: string; reqPayload?: unknown }): Prefill | null {
  const req = log.reqPayload;
  if (!isObj(req) || !Array.isArray(req.messages)) return null;
  const anthropic = log.source === "report-anthropic" || req.system !== undefined;
  const messages = anthropic ? fromAnthropic(req.system, req.messages) : req.messages.filter(isObj).map(fromOpenAI);
  if (!messages.length) return null;
  let tools: unknown[] = Array.isArray(req.tools) ? req.tools : [];
  if (anthropic)
    tools = tools.filter(isObj).map((t) => ({ type: "function", function: { name: t.name, description: t.description, parameters: t.input_schema } }));
  const maxTokens = [req.max_completion_tokens, req.max_tokens].find((v) => typeof v === "number");
  return {
    messages,
    tools: tools.length ? JSON.stringify(tools, null, 2) : "",
    temperature: typeof req.temperature === "number" ? req.temperature : null,
    maxTokens: typeof maxTokens === "number" ? maxTokens : null,
  };
}
