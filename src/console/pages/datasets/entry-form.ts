import { TRPCClientError } from "@trpc/client";
import { errorMessageOf } from "../../lib/trpc";
import type { Entry } from "./queries";

// The entry editor's form values and their conversion to and from the chat format, and the API's
// issue paths turned into the form's field paths (so each error shows under its field).

export const ROLES = ["system", "developer", "user", "assistant", "tool"] as const;
export type Role = (typeof ROLES)[number] | "function";

export type ToolCallValues = { key: string; id: string; name: string; arguments: string };
export type MessageValues = {
  key: string;
  role: Role;
  /** Text content. */
  content: string;
  /** Content that is not plain text (parts: images, audio), edited as JSON; null for text. */
  contentJson: string | null;
  toolCalls: ToolCallValues[];
  toolCallId: string;
  /** The message's other members (name, refusal, audio...), kept as they were. */
  rest: Record<string, unknown>;
};
export const JSON_FIELDS = ["tools", "toolChoice", "responseFormat", "metadata"] as const;
export type JsonField = (typeof JSON_FIELDS)[number];
export type EntryValues = { messages: MessageValues[]; split: "TRAIN" | "TEST" } & Record<JsonField, string>;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
let keys = 0;
export const newKey = () => `k${++keys}`;

export const pretty = (v: unknown) => JSON.stringify(v ?? null, null, 2);

export function newMessage(role: Role, content = ""): MessageValues {
  return { key: newKey(), role, content, contentJson: null, toolCalls: [], toolCallId: "", rest: {} };
}

export const newToolCall = (): ToolCallValues => ({ key: newKey(), id: `call_${Math.random().toString(36).slice(2, 10)}`, name: "", arguments: "{}" });

export function messageToValues(m: unknown): MessageValues {
  if (!isObj(m)) return { ...newMessage("user"), contentJson: pretty(m) };
  const { role, content, tool_calls, tool_call_id, ...rest } = m;
  const calls = Array.isArray(tool_calls) ? tool_calls : [];
  return {
    key: newKey(),
    role: (typeof role === "string" ? role : "user") as Role,
    content: typeof content === "string" ? content : "",
    contentJson: content == null || typeof content === "string" ? null : pretty(content),
    toolCalls: calls.map((c) => {
      const fn = isObj(c) && isObj(c.function) ? c.function : {};
      return {
        key: newKey(),
        id: isObj(c) && typeof c.id === "string" ? c.id : "",
        name: typeof fn.name === "string" ? fn.name : "",
        arguments: typeof fn.arguments === "string" ? fn.arguments : pretty(fn.arguments),
      };
    }),
    toolCallId: typeof tool_call_id === "string" ? tool_call_id : "",
    rest,
  };
}

/** The chat-format message of a form message (content parts parsed; JSON errors are the form's to catch first). */
export function valuesToMessage(v: MessageValues): Obj {
  const out: Obj = { role: v.role, ...v.rest };
  const content = v.contentJson !== null ? JSON.parse(v.contentJson) : v.content;
  if (v.role === "assistant") {
    out.content = content === "" && v.toolCalls.length ? null : content;
    if (v.toolCalls.length) {
      out.tool_calls = v.toolCalls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.arguments } }));
    }
  } else {
    out.content = content;
  }
  if (v.role === "tool") out.tool_call_id = v.toolCallId;
  return out;
}

export function entryToValues(entry: Entry | null): EntryValues {
  const messages = (entry?.messages as unknown[] | undefined) ?? [
    { role: "user", content: "" },
    { role: "assistant", content: "" },
  ];
  return {
    messages: messages.map(messageToValues),
    split: entry?.split ?? "TRAIN",
    tools: pretty(entry?.tools),
    toolChoice: pretty(entry?.toolChoice),
    responseFormat: pretty(entry?.responseFormat),
    metadata: pretty(entry?.metadata ?? {}),
  };
}

const jsonProblem = (text: string): string | null => {
  try {
    JSON.parse(text);
    return null;
  } catch (err) {
    return `not valid JSON: ${(err as Error).message}`;
  }
};

/** The form's own checks before anything is sent: JSON that does not parse, by field. */
export function validateEntry(values: EntryValues): Record<string, string> {
  const errors: Record<string, string> = {};
  values.messages.forEach((m, i) => {
    if (m.contentJson !== null) {
      const p = jsonProblem(m.contentJson);
      if (p) errors[`messages.${i}.contentJson`] = p;
    }
    if (m.role !== "assistant") return;
    m.toolCalls.forEach((c, j) => {
      if (!c.name.trim()) errors[`messages.${i}.toolCalls.${j}.name`] = "a tool call needs the function's name";
      const p = jsonProblem(c.arguments);
      if (p) errors[`messages.${i}.toolCalls.${j}.arguments`] = `arguments: ${p}`;
    });
  });
  for (const f of JSON_FIELDS) {
    const p = jsonProblem(values[f] || "null");
    if (p) errors[f] = p;
  }
  return errors;
}

type Issue = { message: string; path?: (string | number)[] };
const issuesOf = (error: unknown): Issue[] | null =>
  error instanceof TRPCClientError ? ((error.data as { issues?: Issue[] } | undefined)?.issues ?? []).filter((i) => i.path?.length) : null;

const ALIAS: Record<string, JsonField> = {
  tool_choice: "toolChoice",
  response_format: "responseFormat",
  toolChoice: "toolChoice",
  responseFormat: "responseFormat",
};

/**
 * The form field an API issue path names: ["messages", 2, "tool_calls", 0, "function", "arguments"]
 * is `messages.2.toolCalls.0.arguments`; in JSON mode every message issue is the Messages field's.
 */
function fieldOf(path: (string | number)[], values: EntryValues, jsonMode: boolean): { field: string; where: string } {
  const [head, i, member, j, , leaf] = path;
  const rest = path.slice(1).join(".");
  if (head === "messages") {
    const m = typeof i === "number" ? values.messages[i] : undefined;
    if (jsonMode || !m) return { field: "messages", where: path.join(".") };
    const base = `messages.${i}`;
    const tail = path.slice(3).join(".");
    if (member === "tool_calls" && typeof j === "number" && m.toolCalls[j]) {
      return { field: `${base}.toolCalls.${j}.${leaf === "arguments" ? "arguments" : "name"}`, where: path.slice(4).join(".") };
    }
    if (member === "tool_calls") return { field: `${base}.toolCalls`, where: tail };
    if (member === "content") return { field: m.contentJson !== null ? `${base}.contentJson` : `${base}.content`, where: tail };
    if (member === "tool_call_id" && m.role === "tool") return { field: `${base}.toolCallId`, where: "" };
    if (member === "role") return { field: `${base}.role`, where: "" };
    return { field: base, where: member === undefined ? "" : path.slice(2).join(".") };
  }
  if (head === "split") return { field: "split", where: "" };
  const alias = ALIAS[String(head)] ?? (JSON_FIELDS.includes(head as JsonField) ? (head as JsonField) : null);
  return alias ? { field: alias, where: rest } : { field: "form", where: path.join(".") };
}

/** The API's refusal as form errors (field path -> message), `form` for what names no field. */
export function apiErrorsOf(error: unknown, values: EntryValues, jsonMode: boolean): Record<string, string> {
  const issues = issuesOf(error);
  if (!issues?.length) return { form: errorMessageOf(error) };
  const out: Record<string, string> = {};
  for (const issue of issues) {
    const { field, where } = fieldOf(issue.path!, values, jsonMode);
    // The API's messages may start with their own path ("messages.0: ..."): said once, by the field.
    const own = `${issue.path!.join(".")}: `;
    const message = issue.message.startsWith(own) ? issue.message.slice(own.length) : issue.message;
    const line = where ? `${where}: ${message}` : message;
    out[field] = out[field] ? `${out[field]}\n${line}` : line;
  }
  return out;
}

/** The update (or add) the form's values make; JSON fields parsed (validateEntry passed). */
export function entryPayload(values: EntryValues) {
  const parse = (f: JsonField) => JSON.parse(values[f] || "null") as unknown;
  return {
    messages: values.messages.map(valuesToMessage),
    tools: parse("tools") as unknown[] | null,
    toolChoice: parse("toolChoice"),
    responseFormat: parse("responseFormat"),
    metadata: (parse("metadata") ?? {}) as Record<string, string>,
    split: values.split,
  };
}
