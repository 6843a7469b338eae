// What the log list shows of a call without reading its bodies: the last thing the user said and
// the first thing the model answered, each cut to PREVIEW_CHARS, whitespace folded. Written with
// the log (request_logs.input_preview, output_preview); the migration that added the columns
// computes the same for older logs in SQL (hone_log_input_preview, hone_log_output_preview).

export const PREVIEW_CHARS = 200;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

const folded = (s: string) => {
  const t = s
    .slice(0, PREVIEW_CHARS * 4)
    .replace(/\s+/g, " ")
    .trim();
  return t ? t.slice(0, PREVIEW_CHARS) : null;
};

/** A message's text: its string content, or its text parts joined by a space. */
function textOf(content: unknown): string | null {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return null;
  const parts: string[] = [];
  for (const p of content) if (isObj(p) && typeof p.text === "string") parts.push(p.text);
  return parts.length ? parts.join(" ") : null;
}

/** The last user message of a chat request, as text (an embeddings request: its first input string). */
export function inputPreviewOf(req: unknown): string | null {
  if (isObj(req) && !("messages" in req) && "input" in req) {
    const first = Array.isArray(req.input) ? req.input[0] : req.input;
    return typeof first === "string" ? folded(first) : null;
  }
  const messages = isObj(req) && Array.isArray(req.messages) ? req.messages : [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (!isObj(m) || m.role !== "user") continue;
    const text = textOf(m.content);
    if (text !== null) return folded(text);
  }
  return null;
}

/** The first choice of a chat answer: its text, else its tool calls as name(arguments), else its refusal. */
export function outputPreviewOf(resp: unknown): string | null {
  const choices = isObj(resp) && Array.isArray(resp.choices) ? resp.choices : [];
  const first = choices[0];
  const m = isObj(first) && isObj(first.message) ? first.message : null;
  if (!m) return null;
  const text = textOf(m.content);
  if (text) return folded(text);
  if (Array.isArray(m.tool_calls)) {
    const calls = m.tool_calls
      .map((c) =>
        isObj(c) && isObj(c.function) ? `${String(c.function.name ?? "")}(${typeof c.function.arguments === "string" ? c.function.arguments : ""})` : "",
      )
      .filter(Boolean);
    if (calls.length) return folded(calls.join(" "));
  }
  return typeof m.refusal === "string" ? folded(m.refusal) : null;
}
