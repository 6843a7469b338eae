// The text a log is searched by (request_log_bodies.search_text, trigram-indexed): what people
// read in a call, not its JSON. The answer first (its contents, content parts, tool call arguments,
// refusals), then the request's messages from the last to the first (the newest turn is the one
// people search for; a long system prompt comes last), cut at SEARCH_TEXT_MAX characters and
// lowercased. The
// migration that added the column computes the same for older logs in SQL (hone_log_search_text).

export const SEARCH_TEXT_MAX = 6_000;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined || v === null ? [] : [v]);

function messageTexts(m: unknown, out: Texts): void {
  if (!isObj(m)) return;
  if (typeof m.content === "string") out.push(m.content);
  for (const part of list(m.content)) if (isObj(part) && typeof part.text === "string") out.push(part.text);
  for (const call of list(m.tool_calls)) {
    const args = isObj(call) && isObj(call.function) ? call.function.arguments : undefined;
    if (typeof args === "string") out.push(args);
  }
}

/**
 * Texts kept only up to SEARCH_TEXT_MAX characters in all: the result is the same as joining every
 * text and cutting, without copying a payload of hundreds of megabytes to keep 6,000 characters.
 */
class Texts {
  readonly parts: string[] = [];
  length = 0;
  push(s: string): void {
    if (this.length >= SEARCH_TEXT_MAX) return;
    const cut = s.length > SEARCH_TEXT_MAX ? s.slice(0, SEARCH_TEXT_MAX) : s;
    this.parts.push(cut);
    this.length += cut.length + 1;
  }
  join(): string {
    return this.parts.join("\n");
  }
}

export function searchTextOf(req: unknown, resp: unknown): string | null {
  const out = new Texts();
  const messages = isObj(resp) ? list(resp.choices).map((c) => (isObj(c) ? c.message : undefined)) : [];
  for (const m of messages) if (isObj(m) && typeof m.content === "string") out.push(m.content);
  for (const m of messages) if (isObj(m)) for (const part of list(m.content)) if (isObj(part) && typeof part.text === "string") out.push(part.text);
  for (const m of messages)
    if (isObj(m))
      for (const call of list(m.tool_calls)) {
        const args = isObj(call) && isObj(call.function) ? call.function.arguments : undefined;
        if (typeof args === "string") out.push(args);
      }
  for (const m of messages) if (isObj(m) && typeof m.refusal === "string") out.push(m.refusal);
  const asked = isObj(req) && Array.isArray(req.messages) ? req.messages : [];
  for (let i = asked.length - 1; i >= 0 && out.length < SEARCH_TEXT_MAX; i--) {
    const texts = new Texts();
    messageTexts(asked[i], texts);
    const text = texts.join();
    if (text) out.push(text);
  }
  // Lowercased, so a search is a case-sensitive LIKE (about 4x cheaper per row than ILIKE).
  const all = out.join();
  return all ? all.slice(0, SEARCH_TEXT_MAX).toLowerCase() : null;
}
