// One-line previews of an entry for the table, and the system prompt its rows share.
type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const MAX_PREVIEW = 300;

/** A message's content as one line of text (text parts joined; images and audio named). */
export function contentLine(content: unknown): string {
  if (typeof content === "string") return oneLine(content);
  if (!Array.isArray(content)) return "";
  return oneLine(
    content
      .map((p) =>
        isObj(p)
          ? typeof p.text === "string"
            ? p.text
            : typeof p.refusal === "string"
              ? `refusal: ${p.refusal}`
              : p.type === "image_url"
                ? "[image]"
                : p.type === "input_audio"
                  ? "[audio]"
                  : ""
          : "",
      )
      .filter(Boolean)
      .join(" "),
  );
}

const oneLine = (s: string) => {
  const line = s.replace(/\s+/g, " ").trim();
  return line.length > MAX_PREVIEW ? `${line.slice(0, MAX_PREVIEW)}…` : line;
};

/** The input a row shows: the last user message (the last non-assistant one when there is none). */
export function inputPreview(messages: unknown): string {
  if (!Array.isArray(messages)) return "";
  const input = messages.slice(0, -1);
  const user = [...input].reverse().find((m) => isObj(m) && m.role === "user") ?? [...input].reverse().find((m) => isObj(m) && m.role !== "assistant");
  return isObj(user) ? contentLine(user.content) : "";
}

/** The output a row shows: the final assistant message's text, or its tool calls as name(arguments). */
export function outputPreview(messages: unknown): { text: string; toolCalls: boolean } {
  const last = Array.isArray(messages) ? messages.at(-1) : null;
  if (!isObj(last)) return { text: "", toolCalls: false };
  const text = contentLine(last.content);
  const calls = Array.isArray(last.tool_calls) ? last.tool_calls : [];
  if (calls.length) {
    const called = calls
      .map((c) => (isObj(c) && isObj(c.function) ? `${String(c.function.name ?? "?")}(${oneLine(String(c.function.arguments ?? ""))})` : "?"))
      .join(", ");
    return { text: text ? `${text} · ${called}` : called, toolCalls: true };
  }
  return { text, toolCalls: false };
}

/** The system prompt an entry starts with, as text, or null. */
export function systemPromptOf(messages: unknown): string | null {
  const first = Array.isArray(messages) ? messages[0] : null;
  if (!isObj(first) || first.role !== "system") return null;
  return typeof first.content === "string" ? first.content : JSON.stringify(first.content);
}

/**
 * The system prompt every one of these entries starts with, when there are at least two and they
 * all start with the same one; else null.
 */
export function sharedSystemPrompt(entries: readonly { messages: unknown }[]): string | null {
  if (entries.length < 2) return null;
  const first = systemPromptOf(entries[0]!.messages);
  if (first === null) return null;
  return entries.every((e) => systemPromptOf(e.messages) === first) ? first : null;
}
