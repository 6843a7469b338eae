// Pruning rules: text (a long system prompt every entry shares, say) removed from the prompt of
// training entries, and from the requests made to a fine-tune trained with the rules, so the
// model learns and answers without it. Only the messages before the answer are pruned (never an
// assistant turn); a system or developer message left empty is dropped.

type Message = Record<string, unknown>;

/** Each rule's occurrences removed from a conversation's prompt. */
export type Pruned = { messages: unknown[]; removed: number[] };

function strip(text: string, rules: readonly string[], removed: number[]): string {
  let out = text;
  rules.forEach((rule, i) => {
    if (!rule || !out.includes(rule)) return;
    const parts = out.split(rule);
    removed[i] = (removed[i] ?? 0) + parts.length - 1;
    out = parts.join("");
  });
  return out;
}

/** The messages with every rule's text removed from the non-assistant ones; `removed` counts occurrences per rule. */
export function pruneMessages(messages: readonly unknown[], rules: readonly string[]): Pruned {
  const removed = rules.map(() => 0);
  if (!rules.length) return { messages: [...messages], removed };
  const out: unknown[] = [];
  for (const raw of messages) {
    const m = raw as Message;
    if (typeof m !== "object" || m === null || m.role === "assistant") {
      out.push(raw);
      continue;
    }
    let content = m.content;
    if (typeof content === "string") content = strip(content, rules, removed);
    else if (Array.isArray(content)) {
      content = content.map((part) => {
        const p = part as Message;
        return p && typeof p === "object" && p.type === "text" && typeof p.text === "string" ? { ...p, text: strip(p.text, rules, removed) } : part;
      });
    }
    const empty = typeof content === "string" ? content.trim() === "" : Array.isArray(content) && content.length === 0;
    if (empty && (m.role === "system" || m.role === "developer")) continue;
    out.push(content === m.content ? raw : { ...m, content });
  }
  return { messages: out, removed };
}
