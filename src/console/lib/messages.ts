// Reading chat messages as text, for diffs and one-line previews.
type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** A message's text: its content (string or text parts), then its tool calls as JSON. */
export function messageText(message: unknown): string {
  if (!isObj(message)) return JSON.stringify(message ?? null);
  const content = message.content;
  const text =
    typeof content === "string"
      ? content
      : Array.isArray(content)
        ? content.map((p) => (isObj(p) && typeof p.text === "string" ? p.text : JSON.stringify(p))).join("\n")
        : "";
  const calls = Array.isArray(message.tool_calls) && message.tool_calls.length ? JSON.stringify(message.tool_calls, null, 2) : "";
  return [text, calls].filter(Boolean).join("\n");
}

/** The last assistant turn of a conversation, or null. */
export function lastAssistant(messages: unknown): Obj | null {
  if (!Array.isArray(messages)) return null;
  const last = messages.at(-1);
  return isObj(last) && last.role === "assistant" ? last : null;
}

/** The variables a criterion prompt may use; {{output}} is required. */
export const PROMPT_VARIABLES = ["messages", "tools", "tool_choice", "output"] as const;

/** The API's prompt rules, checked as the person types (the server checks them again). */
export function promptProblems(prompt: string): string[] {
  const problems: string[] = [];
  if (!prompt.trim()) return ["The prompt must not be empty"];
  if (!/\{\{\s*output\s*\}\}/.test(prompt)) problems.push("The prompt must use {{output}} (the completion being judged)");
  const unknown = [...prompt.matchAll(/\{\{\s*([^}\s]+)\s*\}\}/g)].map((m) => m[1]!).filter((v) => !(PROMPT_VARIABLES as readonly string[]).includes(v));
  if (unknown.length)
    problems.push(`Unknown variable ${[...new Set(unknown)].map((v) => `{{${v}}}`).join(", ")}: only ${PROMPT_VARIABLES.map((v) => `{{${v}}}`).join(", ")}`);
  return problems;
}
