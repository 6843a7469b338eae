import { z } from "zod";
import { DomainError } from "../../core/errors";
import type { ChatCompletion, Usage } from "../../providers";
import { modelName } from "../chat";
import { HoneControls } from "../calls";
import { Tags } from "../logs";

// OpenAI's Responses API as Hone's clients speak it on POST /api/v1/responses, translated to and
// from chat completions (which every upstream Hone has can answer): the request and its history as
// chat messages, the completion as a Response, its chunks as the Responses stream's events.

export type Json = Record<string, unknown>;
export type Item = Json & { type?: string };

const MAX_ITEMS = 100_000;
const MAX_TOOLS = 1_000;

const ItemSchema = z.looseObject({ type: z.string().min(1).max(64).optional(), role: z.string().max(32).optional() });

export const ResponsesRequest = z.looseObject({
  model: modelName("model"),
  input: z.union([z.string(), z.array(ItemSchema).max(MAX_ITEMS, `at most ${MAX_ITEMS} input items`)], {
    error: "input must be a string or an array of input items",
  }),
  instructions: z.string().nullish(),
  tools: z
    .array(z.looseObject({ type: z.string({ error: "a tool needs a type" }).min(1).max(64) }))
    .max(MAX_TOOLS)
    .nullish(),
  tool_choice: z.union([z.enum(["auto", "none", "required"]), z.looseObject({ type: z.string().min(1).max(64) })]).nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  text: z.looseObject({ format: z.looseObject({ type: z.string().min(1).max(32) }).nullish() }).nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  max_output_tokens: z.number().int().min(1).nullish(),
  reasoning: z.looseObject({ effort: z.string().max(32).nullish() }).nullish(),
  metadata: Tags.nullish(),
  store: z.boolean().nullish(),
  stream: z.boolean().nullish(),
  previous_response_id: z.string().min(1).max(256).nullish(),
  include: z.array(z.string().max(128)).max(64).nullish(),
  hone: HoneControls.optional(),
});
export type ResponsesRequest = z.output<typeof ResponsesRequest>;

/** Tool types OpenAI runs itself: no other provider can. */
const HOSTED = (type: string) => type !== "function" && type !== "custom";

export const rid = (prefix: string) => `${prefix}_${crypto.randomUUID().replaceAll("-", "")}`;

function bad(message: string, path: (string | number)[]): DomainError {
  return new DomainError("VALIDATION", message, { issues: [{ message, path }] });
}

/** The input as items: a string is one user message; items get ids (input_items lists them). */
export function normalizeInput(input: ResponsesRequest["input"]): Item[] {
  if (typeof input === "string") return [{ id: rid("msg"), type: "message", role: "user", content: [{ type: "input_text", text: input }] }];
  return input.map((item) => {
    const type = item.type ?? (item.role ? "message" : undefined);
    // A reference's id is the item it names, never one of its own.
    const named = item.id || type === "item_reference";
    return { ...item, ...(type ? { type } : {}), ...(named ? {} : { id: rid(type === "message" ? "msg" : "item") }) };
  });
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return (content as Json[]).map((p) => (typeof p.text === "string" ? p.text : typeof p.refusal === "string" ? p.refusal : "")).join("");
}

/** A message item's parts as chat content parts (text, images, files). */
function userParts(content: unknown, at: (string | number)[]): string | Json[] {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) throw bad("a message's content must be a string or an array of parts", at);
  const parts: Json[] = [];
  for (const [i, p] of (content as Json[]).entries()) {
    if (p.type === "input_text" || p.type === "output_text" || p.type === "text") parts.push({ type: "text", text: String(p.text ?? "") });
    else if (p.type === "input_image") {
      const url = typeof p.image_url === "string" ? p.image_url : null;
      if (!url) throw bad("an input_image needs an image_url (file_id images are OpenAI's own)", [...at, i, "image_url"]);
      parts.push({ type: "image_url", image_url: { url, ...(typeof p.detail === "string" ? { detail: p.detail } : {}) } });
    } else if (p.type === "input_file") {
      if (typeof p.file_data !== "string") throw bad("an input_file needs file_data (file_id and file_url are OpenAI's own)", [...at, i]);
      parts.push({ type: "file", file: { file_data: p.file_data, ...(typeof p.filename === "string" ? { filename: p.filename } : {}) } });
    } else throw bad(`unknown content part type ${JSON.stringify(p.type)}`, [...at, i, "type"]);
  }
  return parts.length === 1 && parts[0]!.type === "text" ? String(parts[0]!.text) : parts;
}

const outputText = (o: unknown) => (typeof o === "string" ? o : Array.isArray(o) ? textOf(o) : JSON.stringify(o ?? ""));

/** Conversation items as chat messages: function calls join the assistant turn before them. */
export function itemsToMessages(items: Item[], path: string): Json[] {
  const messages: Json[] = [];
  const assistantTurn = (): Json & { tool_calls: Json[] } => {
    const last = messages.at(-1);
    if (last?.role === "assistant") {
      last.tool_calls ??= [];
      return last as Json & { tool_calls: Json[] };
    }
    const turn = { role: "assistant", content: null, tool_calls: [] as Json[] };
    messages.push(turn);
    return turn;
  };
  for (const [i, item] of items.entries()) {
    const at = [path, i];
    switch (item.type) {
      case "message": {
        const role = String(item.role ?? "user");
        if (role === "assistant") messages.push({ role: "assistant", content: textOf(item.content) || null });
        else if (role === "system" || role === "developer") messages.push({ role, content: textOf(item.content) });
        else if (role === "user") messages.push({ role: "user", content: userParts(item.content, [...at, "content"]) });
        else throw bad(`unknown role ${JSON.stringify(role)}: user, assistant, system or developer`, [...at, "role"]);
        break;
      }
      case "function_call":
        assistantTurn().tool_calls.push({
          id: String(item.call_id ?? ""),
          type: "function",
          function: { name: String(item.name ?? ""), arguments: String(item.arguments ?? "") },
        });
        break;
      case "custom_tool_call":
        assistantTurn().tool_calls.push({
          id: String(item.call_id ?? ""),
          type: "function",
          function: { name: String(item.name ?? ""), arguments: JSON.stringify({ input: String(item.input ?? "") }) },
        });
        break;
      case "function_call_output":
      case "custom_tool_call_output":
        messages.push({ role: "tool", tool_call_id: String(item.call_id ?? ""), content: outputText(item.output) });
        break;
      case "reasoning":
        // Reasoning (encrypted or summarised) means something to the model that made it only.
        break;
      case "item_reference":
        // Resolved before translation (stored-responses.ts): one left here has no item behind it.
        throw bad(`item_reference ${JSON.stringify(item.id)} names no item Hone has`, [...at, "id"]);
      default:
        // Records of OpenAI's hosted tools (web_search_call, ...) have no chat form.
        break;
    }
  }
  for (const m of messages) if (Array.isArray(m.tool_calls) && m.tool_calls.length === 0) delete m.tool_calls;
  return messages;
}

export type ChatTranslation = {
  body: Json;
  /** Names of custom (freeform) tools: their calls come back as custom_tool_call items. */
  customTools: Set<string>;
  /** What was left out, for the log's warning and the x-hone-warning header. */
  dropped: string[];
};

/** A Responses request (with its stored history before it) as a chat completions body. */
export function toChatRequest(req: ResponsesRequest, model: string, history: Item[], input: Item[], provider: string): ChatTranslation {
  const messages: Json[] = [];
  if (req.instructions) messages.push({ role: provider === "openai" ? "developer" : "system", content: req.instructions });
  messages.push(...itemsToMessages(history, "previous_response_id"), ...itemsToMessages(input, "input"));
  if (!messages.some((m) => m.role !== "system" && m.role !== "developer")) throw bad("input has no message to answer", ["input"]);

  const customTools = new Set<string>();
  const dropped: string[] = [];
  const tools: Json[] = [];
  for (const [i, t] of (req.tools ?? []).entries()) {
    if (t.type === "function") {
      if (typeof t.name !== "string" || !t.name) throw bad("a function tool needs a name", ["tools", i, "name"]);
      tools.push({
        type: "function",
        function: {
          name: t.name,
          ...(typeof t.description === "string" ? { description: t.description } : {}),
          parameters: (t.parameters as Json | null | undefined) ?? { type: "object", properties: {} },
          ...(typeof t.strict === "boolean" ? { strict: t.strict } : {}),
        },
      });
    } else if (t.type === "custom") {
      if (typeof t.name !== "string" || !t.name) throw bad("a custom tool needs a name", ["tools", i, "name"]);
      customTools.add(t.name);
      const grammar = (t.format as Json | undefined)?.definition;
      tools.push({
        type: "function",
        function: {
          name: t.name,
          description:
            `${typeof t.description === "string" ? t.description : ""}${typeof grammar === "string" ? `\nThe input follows this grammar:\n${grammar}` : ""}`.trim(),
          parameters: { type: "object", properties: { input: { type: "string", description: "The tool's freeform input" } }, required: ["input"] },
        },
      });
    } else dropped.push(`tool ${t.type}`);
  }

  const body: Json = { model, messages };
  if (tools.length) body.tools = tools;
  const tc = req.tool_choice;
  if (typeof tc === "string") {
    if (tools.length || tc === "none") body.tool_choice = tc;
    else if (tc === "required") throw bad("tool_choice required, but no tool can be offered to this model", ["tool_choice"]);
  } else if (tc) {
    if (tc.type === "function" || tc.type === "custom") body.tool_choice = { type: "function", function: { name: String(tc.name ?? "") } };
    else if (tc.type === "allowed_tools") body.tool_choice = tc.mode === "required" ? "required" : "auto";
    else if (HOSTED(tc.type)) throw bad(`tool_choice requires the hosted tool ${tc.type}, which only OpenAI runs`, ["tool_choice", "type"]);
  }
  if (typeof req.parallel_tool_calls === "boolean" && tools.length) body.parallel_tool_calls = req.parallel_tool_calls;
  if (typeof req.temperature === "number") body.temperature = req.temperature;
  if (typeof req.top_p === "number") body.top_p = req.top_p;
  if (typeof req.max_output_tokens === "number") body.max_completion_tokens = req.max_output_tokens;
  if (req.metadata) body.metadata = req.metadata;
  const effort = req.reasoning?.effort;
  if (typeof effort === "string" && provider === "openai") body.reasoning_effort = effort;
  const format = req.text?.format;
  if (format?.type === "json_schema") {
    body.response_format = {
      type: "json_schema",
      json_schema: {
        name: String(format.name ?? "output"),
        schema: format.schema ?? {},
        ...(typeof format.strict === "boolean" ? { strict: format.strict } : {}),
      },
    };
  } else if (format?.type === "json_object") body.response_format = { type: "json_object" };
  if (req.stream) {
    body.stream = true;
    body.stream_options = { include_usage: true };
  }
  if (req.hone) body.hone = req.hone;
  return { body, customTools, dropped };
}

/** Chat usage in the Responses API's terms. */
export function responsesUsage(u: Usage | null | undefined): Json {
  const input = u?.prompt_tokens ?? 0;
  const output = u?.completion_tokens ?? 0;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: u?.prompt_tokens_details?.cached_tokens ?? 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: u?.completion_tokens_details?.reasoning_tokens ?? 0 },
    total_tokens: input + output,
  };
}

/** What every Response repeats of its request. */
export function responseEnvelope(req: ResponsesRequest, id: string, model: string, createdAt: number): Json {
  return {
    id,
    object: "response",
    created_at: createdAt,
    status: "in_progress",
    background: false,
    error: null,
    incomplete_details: null,
    instructions: req.instructions ?? null,
    max_output_tokens: req.max_output_tokens ?? null,
    model,
    output: [],
    parallel_tool_calls: req.parallel_tool_calls ?? true,
    previous_response_id: req.previous_response_id ?? null,
    reasoning: { effort: req.reasoning?.effort ?? null, summary: null },
    store: req.store ?? true,
    temperature: req.temperature ?? 1,
    text: req.text ?? { format: { type: "text" } },
    tool_choice: req.tool_choice ?? "auto",
    tools: req.tools ?? [],
    top_p: req.top_p ?? 1,
    truncation: "disabled",
    usage: null,
    metadata: req.metadata ?? {},
  };
}

export function callItem(call: { id?: string; function?: { name?: string; arguments?: string } }, customTools: Set<string>): Item {
  const name = call.function?.name ?? "";
  const args = call.function?.arguments ?? "";
  if (customTools.has(name)) {
    let input = args;
    try {
      const parsed = JSON.parse(args) as { input?: unknown };
      if (typeof parsed.input === "string") input = parsed.input;
    } catch {
      // not JSON: the arguments are the input
    }
    return { id: rid("ctc"), type: "custom_tool_call", status: "completed", call_id: call.id ?? rid("call"), name, input };
  }
  return { id: rid("fc"), type: "function_call", status: "completed", call_id: call.id ?? rid("call"), name, arguments: args };
}

/** A chat completion's first choice as a finished Response. */
export function toResponse(envelope: Json, c: ChatCompletion, customTools: Set<string>): Json {
  const choice = c.choices?.[0];
  const m = choice?.message;
  const output: Item[] = [];
  if (typeof m?.reasoning_content === "string" && m.reasoning_content) {
    output.push({ id: rid("rs"), type: "reasoning", summary: [{ type: "summary_text", text: m.reasoning_content }] });
  }
  const text = typeof m?.content === "string" ? m.content : "";
  if (text || m?.refusal || !m?.tool_calls?.length) {
    const part = m?.refusal && !text ? { type: "refusal", refusal: m.refusal } : { type: "output_text", text, annotations: [], logprobs: [] };
    output.push({ id: rid("msg"), type: "message", status: "completed", role: "assistant", content: [part] });
  }
  for (const call of m?.tool_calls ?? []) output.push(callItem(call, customTools));
  const incomplete = choice?.finish_reason === "length" || choice?.finish_reason === "content_filter";
  return {
    ...envelope,
    status: incomplete ? "incomplete" : "completed",
    incomplete_details: incomplete ? { reason: choice?.finish_reason === "length" ? "max_output_tokens" : "content_filter" } : null,
    output,
    usage: responsesUsage(c.usage),
  };
}

/** The text of a Response's messages, as the SDKs' `output_text` is. */
export function outputTextOf(response: Json): string {
  return ((response.output as Item[] | undefined) ?? [])
    .filter((i) => i.type === "message")
    .flatMap((i) => (i.content as Json[] | undefined) ?? [])
    .filter((p) => p.type === "output_text")
    .map((p) => String(p.text ?? ""))
    .join("");
}

/** A Response (any provider's, OpenAI's own included) as a chat completion, for the log's chat form. */
export function responseToChat(r: Json): ChatCompletion {
  const items = (r.output as Item[] | undefined) ?? [];
  const text = outputTextOf(r);
  const reasoning = items
    .filter((i) => i.type === "reasoning")
    .flatMap((i) => (i.summary as Json[] | undefined) ?? [])
    .map((s) => String(s.text ?? ""))
    .join("");
  const calls = items
    .filter((i) => i.type === "function_call" || i.type === "custom_tool_call")
    .map((i) => ({
      id: String(i.call_id ?? ""),
      type: "function" as const,
      function: {
        name: String(i.name ?? ""),
        arguments: i.type === "custom_tool_call" ? JSON.stringify({ input: String(i.input ?? "") }) : String(i.arguments ?? ""),
      },
    }));
  const u = (r.usage ?? {}) as Json;
  const num = (v: unknown) => (typeof v === "number" ? v : 0);
  return {
    id: String(r.id ?? ""),
    object: "chat.completion",
    created: num(r.created_at),
    model: String(r.model ?? ""),
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: text || (calls.length ? null : ""),
          ...(calls.length ? { tool_calls: calls } : {}),
          ...(reasoning ? { reasoning_content: reasoning } : {}),
        },
        finish_reason: calls.length ? "tool_calls" : r.status === "incomplete" ? "length" : "stop",
      },
    ],
    usage: {
      prompt_tokens: num(u.input_tokens),
      completion_tokens: num(u.output_tokens),
      total_tokens: num(u.input_tokens) + num(u.output_tokens),
      prompt_tokens_details: { cached_tokens: num((u.input_tokens_details as Json | undefined)?.cached_tokens) },
      completion_tokens_details: { reasoning_tokens: num((u.output_tokens_details as Json | undefined)?.reasoning_tokens) },
    },
  };
}

export const newResponseId = () => rid("resp");
