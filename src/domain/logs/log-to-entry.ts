import { ChatEntry } from "../chat";
import { issuesFromZod } from "../../core/errors";
import { isTruncatedPayload, TRUNCATED_PAYLOAD_KEY } from "./store/rows";

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const ASSISTANT_MEMBERS = ["content", "tool_calls", "function_call", "refusal", "name", "audio", "annotations"] as const;

/**
 * A successful logged call as a training example: the request's messages with the response's
 * first choice appended; functions/function_call become tools/tool_choice.
 */
export function logToEntry(req: unknown, resp: unknown, metadata: Record<string, string>): ChatEntry | string {
  // A payload stored cut short (or not at all) is not the call any more: training on it would teach a fragment.
  for (const [name, p] of [
    ["request", req],
    ["response", resp],
  ] as const) {
    if (isTruncatedPayload(p)) {
      const size = p[TRUNCATED_PAYLOAD_KEY].bytes.toLocaleString("en-US");
      return `the logged ${name} (${size} bytes) was stored cut short (HONE_MAX_LOGGED_PAYLOAD_BYTES), so it cannot become an entry`;
    }
    if (isObject(p) && "hone_payload_not_stored" in p) return `the logged ${name} was not stored (the database refused it), so it cannot become an entry`;
  }
  if (!isObject(req) || !Array.isArray(req.messages)) return "the logged request has no messages";
  const choices = isObject(resp) ? resp.choices : undefined;
  const message = Array.isArray(choices) && isObject(choices[0]) ? choices[0].message : undefined;
  if (!isObject(message)) return "the logged response has no message to learn";
  const assistant: Record<string, unknown> = { role: "assistant" };
  for (const k of ASSISTANT_MEMBERS) if (message[k] !== undefined && message[k] !== null) assistant[k] = message[k];
  if (!("content" in assistant)) assistant.content = null;
  const tools = req.tools ?? (Array.isArray(req.functions) ? req.functions.map((f) => ({ type: "function", function: f })) : undefined);
  const fc = req.function_call;
  const toolChoice = req.tool_choice ?? (typeof fc === "string" ? fc : isObject(fc) ? { type: "function", function: { name: fc.name } } : undefined);
  const r = ChatEntry.safeParse({
    messages: [...req.messages, assistant],
    ...(tools !== undefined ? { tools } : {}),
    ...(toolChoice !== undefined ? { tool_choice: toolChoice } : {}),
    ...(req.response_format !== undefined ? { response_format: req.response_format } : {}),
    metadata,
  });
  return r.success
    ? r.data
    : issuesFromZod(r.error)
        .map((i) => i.message)
        .join("; ");
}
