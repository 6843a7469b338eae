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

function messageTexts(m: unknown, out: string[]): void {
  if (!isObj(m)) return;
  if (typeof m.content === "string") out.push(m.content);
  for (const part of list(m.content)) if (isObj(part) && typeof part.text === "string") out.push(part.text);
  for (const call of list(m.tool_calls)) {
    const args = isObj(call) && isObj(call.function) ? call.function.arguments : undefined;
    if (typeof args === "string") out.push(args);
  }
}

export function searchTextOf(req: unknown, resp: unknown): string | null {
  const out: string[] = [];
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
  let length = out.reduce((n, s) => n + s.length + 1, 0);
  for (let i = asked.length - 1; i >= 0 && length < SEARCH_TEXT_MAX; i--) {
    const texts: string[] = [];
    messageTexts(asked[i], texts);
    const text = texts.join("\n");
    if (text) {
      out.push(text);
      length += text.length + 1;
    }
  }
  // Lowercased, so a search is a case-sensitive LIKE (about 4x cheaper per row than ILIKE).
  const all = out.join("\n");
  return all ? all.slice(0, SEARCH_TEXT_MAX).toLowerCase() : null;
}
