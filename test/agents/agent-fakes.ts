// Fake upstream servers for offline agent tests.
// Each speaks a real provider wire protocol (Anthropic Messages, OpenAI Responses,
// OpenAI Chat Completions) and runs a scripted two-step tool loop:
//   1. request offers tools and the conversation has no tool result yet -> call a tool
//      that reads a file / runs a harmless shell command;
//   2. conversation ends with a tool result -> final text that quotes the tool output.
// Requests without tools (side calls: titles, quota checks, ...) get a short text answer.

export interface RecordedRequest {
  at: number;
  method: string;
  path: string; // pathname only
  query: string; // raw query string including "?" or ""
  headers: Record<string, string>;
  body: any; // parsed JSON, raw string, or null
}

export interface FakeServer {
  url: string; // server root, e.g. http://127.0.0.1:12345
  requests: RecordedRequest[];
  stop(): void;
}

export interface FakeOptions {
  /** File the agent should read (relative to its working dir). Default "secret.txt" (Anthropic) / "marker.txt" (Responses). */
  file?: string;
  /** Shell command the agent should run (Codex-style shell tools). Default `cat <file>`. */
  command?: string;
  /** Model name echoed back. */
  model?: string;
}

// ---------------------------------------------------------------------------
// helpers

let idCounter = 0;
function rid(prefix: string, len = 24): string {
  const chars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  let s = "";
  for (let i = 0; i < len; i++) s += chars[Math.floor(Math.random() * chars.length)];
  return `${prefix}${s}${(idCounter++).toString(36)}`;
}

function headersToObject(h: Headers): Record<string, string> {
  const o: Record<string, string> = {};
  h.forEach((v, k) => {
    o[k] = v;
  });
  return o;
}

async function record(req: Request, requests: RecordedRequest[]): Promise<RecordedRequest> {
  const u = new URL(req.url);
  let body: any = null;
  if (req.method !== "GET" && req.method !== "HEAD") {
    const text = await req.text();
    if (text.length) {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
    }
  }
  const r: RecordedRequest = {
    at: Date.now(),
    method: req.method,
    path: u.pathname,
    query: u.search,
    headers: headersToObject(req.headers),
    body,
  };
  requests.push(r);
  return r;
}

function json(data: unknown, status = 200, extra: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(data), {
    status,
    headers: { "content-type": "application/json", ...extra },
  });
}

function sse(chunks: string[], extra: Record<string, string> = {}): Response {
  const enc = new TextEncoder();
  const stream = new ReadableStream({
    start(controller) {
      for (const c of chunks) controller.enqueue(enc.encode(c));
      controller.close();
    },
  });
  return new Response(stream, {
    status: 200,
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      connection: "keep-alive",
      ...extra,
    },
  });
}

/** `event: <name>\ndata: <json>\n\n` */
function ev(name: string, data: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}

function roughTokens(x: unknown): number {
  const s = typeof x === "string" ? x : JSON.stringify(x ?? "");
  return Math.max(1, Math.ceil(s.length / 4));
}

/** Split a string into a few pieces so deltas are actually incremental. */
function pieces(s: string, n = 3): string[] {
  if (s.length <= n) return [s];
  const size = Math.ceil(s.length / n);
  const out: string[] = [];
  for (let i = 0; i < s.length; i += size) out.push(s.slice(i, i + size));
  return out;
}

// ---------------------------------------------------------------------------
// tool planning, shared by all three protocols

export interface ToolSpec {
  name: string;
  /** JSON schema of the arguments, if any (function tools). */
  schema?: any;
  /** Tool type as offered ("function", "custom", "web_search", ...). */
  type?: string;
}

export interface PlannedCall {
  name: string;
  args: Record<string, unknown>;
}

/** Find the working directory an agent announces in its system prompt / instructions. */
export function findCwd(text: string): string | undefined {
  const pats = [/Primary working directory:\s*(\S+)/, /Working directory:\s*(\S+)/, /<cwd>([^<]+)<\/cwd>/, /"?cwd"?\s*[:=]\s*"?([^"\s<]+)/];
  for (const p of pats) {
    const m = text.match(p);
    if (m) return m[1]!.trim();
  }
  return undefined;
}

/**
 * Pick a tool call that reads `file` (or runs `command`) given the tools the agent offers.
 * Claude Code: Read{file_path} (absolute path) or Bash{command}.
 * Codex: shell{command:[argv]} | shell_command{command:string} | exec_command{cmd:string} | local_shell.
 */
export function planToolCall(tools: ToolSpec[], context: string, opts: { file: string; command?: string }): PlannedCall | undefined {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const cmd = opts.command ?? `cat ${opts.file}`;
  const cwd = findCwd(context);

  if (byName.has("Read") && cwd && !opts.command) {
    const p = opts.file.startsWith("/") ? opts.file : `${cwd.replace(/\/$/, "")}/${opts.file}`;
    return { name: "Read", args: { file_path: p } };
  }
  if (byName.has("Bash")) {
    return { name: "Bash", args: { command: cmd, description: "Show file contents" } };
  }
  if (byName.has("exec_command")) {
    const props = byName.get("exec_command")!.schema?.properties ?? {};
    const key = "cmd" in props ? "cmd" : "command";
    return { name: "exec_command", args: { [key]: cmd } };
  }
  if (byName.has("shell_command")) {
    return { name: "shell_command", args: { command: cmd } };
  }
  if (byName.has("shell")) {
    const t = byName.get("shell")!;
    const isArray = t.schema?.properties?.command?.type === "array";
    return { name: "shell", args: { command: isArray ? ["bash", "-lc", cmd] : cmd } };
  }
  if (byName.has("Read") && !opts.command) {
    return { name: "Read", args: { file_path: opts.file } };
  }
  return undefined;
}

function finalText(output: string): string {
  return `The file says: ${output.trim()}`;
}

// ---------------------------------------------------------------------------
// Anthropic Messages API

function anthropicToolResultText(block: any): string {
  const c = block?.content;
  if (typeof c === "string") return c;
  if (Array.isArray(c)) return c.map((p: any) => (p?.type === "text" ? p.text : "")).join("");
  return "";
}

function anthropicSystemText(body: any): string {
  const s = body?.system;
  if (typeof s === "string") return s;
  if (Array.isArray(s)) return s.map((b: any) => b?.text ?? "").join("\n");
  return "";
}

function anthropicMessageText(m: any): string {
  if (!m) return "";
  if (typeof m.content === "string") return m.content;
  if (Array.isArray(m.content)) return m.content.map((b: any) => (b?.type === "text" ? b.text : "")).join("\n");
  return "";
}

type AnthBlock = { type: "text"; text: string } | { type: "tool_use"; id: string; name: string; input: any };

export function startFakeAnthropic(opts: FakeOptions = {}): FakeServer {
  const requests: RecordedRequest[] = [];
  const file = opts.file ?? "secret.txt";

  function decide(body: any): { blocks: AnthBlock[]; stop: string } {
    const tools: ToolSpec[] = (body?.tools ?? [])
      .filter((t: any) => t?.name)
      .map((t: any) => ({ name: t.name, schema: t.input_schema, type: t.type ?? "custom" }));
    const msgs: any[] = body?.messages ?? [];
    const last = msgs[msgs.length - 1];
    const lastResults = Array.isArray(last?.content) ? last.content.filter((b: any) => b?.type === "tool_result") : [];
    if (last?.role === "user" && lastResults.length) {
      const out = lastResults.map(anthropicToolResultText).join("\n");
      return { blocks: [{ type: "text", text: finalText(out) }], stop: "end_turn" };
    }
    const anyResult = msgs.some((m) => Array.isArray(m?.content) && m.content.some((b: any) => b?.type === "tool_result"));
    if (tools.length && !anyResult) {
      const context = `${anthropicSystemText(body)}\n${msgs.map(anthropicMessageText).join("\n")}`;
      const call = planToolCall(tools, context, { file, command: opts.command });
      if (call) {
        return {
          blocks: [
            { type: "text", text: "Let me read that file." },
            { type: "tool_use", id: rid("toolu_01"), name: call.name, input: call.args },
          ],
          stop: "tool_use",
        };
      }
    }
    return { blocks: [{ type: "text", text: "OK." }], stop: "end_turn" };
  }

  function messageJson(body: any, blocks: AnthBlock[], stop: string) {
    return {
      id: rid("msg_01"),
      type: "message",
      role: "assistant",
      model: body?.model ?? opts.model ?? "claude-fake",
      content: blocks,
      stop_reason: stop,
      stop_sequence: null,
      usage: {
        input_tokens: roughTokens(body?.messages),
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        output_tokens: roughTokens(blocks),
        service_tier: "standard",
      },
    };
  }

  function streamChunks(body: any, blocks: AnthBlock[], stop: string): string[] {
    const msg = messageJson(body, blocks, stop);
    const out: string[] = [];
    out.push(
      ev("message_start", {
        type: "message_start",
        message: { ...msg, content: [], stop_reason: null, stop_sequence: null, usage: { ...msg.usage, output_tokens: 1 } },
      }),
    );
    blocks.forEach((b, index) => {
      if (b.type === "text") {
        out.push(ev("content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } }));
        if (index === 0) out.push(ev("ping", { type: "ping" }));
        for (const p of pieces(b.text)) out.push(ev("content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text: p } }));
      } else {
        out.push(
          ev("content_block_start", {
            type: "content_block_start",
            index,
            content_block: { type: "tool_use", id: b.id, name: b.name, input: {} },
          }),
        );
        out.push(ev("content_block_delta", { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: "" } }));
        for (const p of pieces(JSON.stringify(b.input)))
          out.push(ev("content_block_delta", { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: p } }));
      }
      out.push(ev("content_block_stop", { type: "content_block_stop", index }));
    });
    out.push(
      ev("message_delta", {
        type: "message_delta",
        delta: { stop_reason: stop, stop_sequence: null },
        usage: {
          input_tokens: msg.usage.input_tokens,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
          output_tokens: msg.usage.output_tokens,
        },
      }),
    );
    out.push(ev("message_stop", { type: "message_stop" }));
    return out;
  }

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 120,
    async fetch(req) {
      const r = await record(req, requests);
      const reqHeaders = { "request-id": rid("req_01") };
      if (req.method === "POST" && r.path === "/v1/messages/count_tokens") {
        return json({ input_tokens: roughTokens(r.body?.messages) + roughTokens(r.body?.system) + roughTokens(r.body?.tools) }, 200, reqHeaders);
      }
      if (req.method === "POST" && r.path === "/v1/messages") {
        const body = r.body ?? {};
        const { blocks, stop } = decide(body);
        if (body.stream) return sse(streamChunks(body, blocks, stop), reqHeaders);
        return json(messageJson(body, blocks, stop), 200, reqHeaders);
      }
      if (req.method === "GET" && r.path === "/v1/models") {
        return json({
          data: [{ type: "model", id: opts.model ?? "claude-fake", display_name: "Fake", created_at: "2025-01-01T00:00:00Z" }],
          has_more: false,
          first_id: null,
          last_id: null,
        });
      }
      return json({ type: "error", error: { type: "not_found_error", message: `fake: no route ${req.method} ${r.path}` } }, 404);
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, requests, stop: () => server.stop(true) };
}

// ---------------------------------------------------------------------------
// OpenAI Responses API

function responsesTools(body: any): ToolSpec[] {
  const out: ToolSpec[] = [];
  for (const t of body?.tools ?? []) {
    if (t?.type === "function" && t.name) out.push({ name: t.name, schema: t.parameters, type: "function" });
    else if (t?.type === "custom" && t.name) out.push({ name: t.name, type: "custom" });
    else if (t?.type === "local_shell") out.push({ name: "local_shell", type: "local_shell" });
    else if (t?.type === "namespace" && Array.isArray(t.tools)) {
      // namespaced tools (e.g. MCP) — not used for the scripted call
    } else if (t?.type) out.push({ name: t.name ?? t.type, type: t.type });
  }
  return out;
}

function responsesInputText(body: any): string {
  const parts: string[] = [typeof body?.instructions === "string" ? body.instructions : ""];
  const input = body?.input;
  if (typeof input === "string") parts.push(input);
  else if (Array.isArray(input))
    for (const it of input) {
      if (typeof it?.content === "string") parts.push(it.content);
      else if (Array.isArray(it?.content)) for (const c of it.content) if (typeof c?.text === "string") parts.push(c.text);
    }
  return parts.join("\n");
}

function functionCallOutputText(item: any): string {
  const o = item?.output;
  if (typeof o === "string") return o;
  if (Array.isArray(o)) return o.map((p: any) => p?.text ?? "").join("");
  if (o && typeof o === "object" && typeof o.content === "string") return o.content;
  return JSON.stringify(o ?? "");
}

export function startFakeResponses(opts: FakeOptions = {}): FakeServer {
  const requests: RecordedRequest[] = [];
  const file = opts.file ?? "marker.txt";

  type OutItem = { kind: "message"; text: string } | { kind: "function_call"; name: string; args: string };

  function decide(body: any): OutItem[] {
    const input: any[] = Array.isArray(body?.input) ? body.input : [];
    const outputs = input.filter((i) => i?.type === "function_call_output" || i?.type === "custom_tool_call_output");
    if (outputs.length) {
      // answer based on the latest tool output
      return [{ kind: "message", text: finalText(functionCallOutputText(outputs[outputs.length - 1])) }];
    }
    const tools = responsesTools(body);
    if (tools.length) {
      const call = planToolCall(tools, responsesInputText(body), { file, command: opts.command });
      if (call) return [{ kind: "function_call", name: call.name, args: JSON.stringify(call.args) }];
    }
    return [{ kind: "message", text: "OK." }];
  }

  function build(body: any, items: OutItem[]) {
    const respId = rid("resp_");
    const created = Math.floor(Date.now() / 1000);
    const model = body?.model ?? opts.model ?? "gpt-fake";
    const events: [string, any][] = [];
    const finalItems: any[] = [];
    const base = {
      id: respId,
      object: "response",
      created_at: created,
      status: "in_progress",
      background: false,
      error: null,
      incomplete_details: null,
      instructions: body?.instructions ?? null,
      max_output_tokens: body?.max_output_tokens ?? null,
      model,
      output: [] as any[],
      parallel_tool_calls: body?.parallel_tool_calls ?? true,
      previous_response_id: body?.previous_response_id ?? null,
      reasoning: body?.reasoning ?? { effort: null, summary: null },
      store: body?.store ?? false,
      temperature: 1,
      text: body?.text ?? { format: { type: "text" } },
      tool_choice: body?.tool_choice ?? "auto",
      tools: body?.tools ?? [],
      top_p: 1,
      truncation: "disabled",
      usage: null as any,
      user: null,
      metadata: {},
    };
    events.push(["response.created", { response: { ...base } }]);
    events.push(["response.in_progress", { response: { ...base } }]);
    items.forEach((it, output_index) => {
      if (it.kind === "message") {
        const id = rid("msg_");
        events.push(["response.output_item.added", { output_index, item: { id, type: "message", status: "in_progress", content: [], role: "assistant" } }]);
        events.push([
          "response.content_part.added",
          { item_id: id, output_index, content_index: 0, part: { type: "output_text", annotations: [], logprobs: [], text: "" } },
        ]);
        for (const p of pieces(it.text)) events.push(["response.output_text.delta", { item_id: id, output_index, content_index: 0, delta: p, logprobs: [] }]);
        events.push(["response.output_text.done", { item_id: id, output_index, content_index: 0, text: it.text, logprobs: [] }]);
        const part = { type: "output_text", annotations: [], logprobs: [], text: it.text };
        events.push(["response.content_part.done", { item_id: id, output_index, content_index: 0, part }]);
        const done = { id, type: "message", status: "completed", content: [part], role: "assistant" };
        events.push(["response.output_item.done", { output_index, item: done }]);
        finalItems.push(done);
      } else {
        const id = rid("fc_");
        const call_id = rid("call_");
        events.push([
          "response.output_item.added",
          { output_index, item: { id, type: "function_call", status: "in_progress", arguments: "", call_id, name: it.name } },
        ]);
        for (const p of pieces(it.args)) events.push(["response.function_call_arguments.delta", { item_id: id, output_index, delta: p }]);
        events.push(["response.function_call_arguments.done", { item_id: id, output_index, name: it.name, arguments: it.args }]);
        const done = { id, type: "function_call", status: "completed", arguments: it.args, call_id, name: it.name };
        events.push(["response.output_item.done", { output_index, item: done }]);
        finalItems.push(done);
      }
    });
    const input_tokens = roughTokens(body?.input) + roughTokens(body?.instructions);
    const output_tokens = roughTokens(finalItems);
    const usage = {
      input_tokens,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: input_tokens + output_tokens,
    };
    const completed = { ...base, status: "completed", output: finalItems, usage };
    events.push(["response.completed", { response: completed }]);
    const chunks = events.map(([type, data], sequence_number) => ev(type, { type, sequence_number, ...data }));
    return { chunks, completed };
  }

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 120,
    async fetch(req) {
      const r = await record(req, requests);
      if (req.method === "POST" && /\/responses$/.test(r.path)) {
        const body = r.body ?? {};
        const { chunks, completed } = build(body, decide(body));
        if (body.stream) return sse(chunks, { "x-request-id": rid("req_") });
        return json(completed);
      }
      if (req.method === "GET" && /\/models$/.test(r.path)) {
        return json({ object: "list", data: [{ id: opts.model ?? "gpt-fake", object: "model", created: 0, owned_by: "fake" }] });
      }
      return json({ error: { message: `fake: no route ${req.method} ${r.path}`, type: "invalid_request_error", param: null, code: null } }, 404);
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, requests, stop: () => server.stop(true) };
}

// ---------------------------------------------------------------------------
// OpenAI Chat Completions API

export function startFakeChat(opts: FakeOptions = {}): FakeServer {
  const requests: RecordedRequest[] = [];
  const file = opts.file ?? "secret.txt";

  type Decision = { text?: string; call?: { id: string; name: string; args: string } };

  function msgText(m: any): string {
    if (typeof m?.content === "string") return m.content;
    if (Array.isArray(m?.content)) return m.content.map((p: any) => p?.text ?? "").join("");
    return "";
  }

  function decide(body: any): Decision {
    const msgs: any[] = body?.messages ?? [];
    const last = msgs[msgs.length - 1];
    if (last?.role === "tool") {
      // collect the trailing run of tool messages
      const outs: string[] = [];
      for (let i = msgs.length - 1; i >= 0 && msgs[i]?.role === "tool"; i--) outs.unshift(msgText(msgs[i]));
      return { text: finalText(outs.join("\n")) };
    }
    const anyTool = msgs.some((m) => m?.role === "tool");
    const tools: ToolSpec[] = (body?.tools ?? [])
      .filter((t: any) => t?.type === "function" && t.function?.name)
      .map((t: any) => ({ name: t.function.name, schema: t.function.parameters, type: "function" }));
    if (tools.length && !anyTool) {
      const context = msgs.map(msgText).join("\n");
      const call = planToolCall(tools, context, { file, command: opts.command });
      if (call) return { call: { id: rid("call_"), name: call.name, args: JSON.stringify(call.args) } };
    }
    return { text: "OK." };
  }

  function usageFor(body: any, d: Decision) {
    const prompt_tokens = roughTokens(body?.messages);
    const completion_tokens = roughTokens(d);
    return {
      prompt_tokens,
      completion_tokens,
      total_tokens: prompt_tokens + completion_tokens,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
    };
  }

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 120,
    async fetch(req) {
      const r = await record(req, requests);
      if (!(req.method === "POST" && /\/chat\/completions$/.test(r.path))) {
        if (req.method === "GET" && /\/models$/.test(r.path))
          return json({ object: "list", data: [{ id: opts.model ?? "gpt-fake", object: "model", created: 0, owned_by: "fake" }] });
        return json({ error: { message: `fake: no route ${req.method} ${r.path}`, type: "invalid_request_error", param: null, code: null } }, 404);
      }
      const body = r.body ?? {};
      const d = decide(body);
      const id = rid("chatcmpl-");
      const created = Math.floor(Date.now() / 1000);
      const model = body.model ?? opts.model ?? "gpt-fake";
      const finish_reason = d.call ? "tool_calls" : "stop";
      const usage = usageFor(body, d);
      if (!body.stream) {
        const message: any = { role: "assistant", content: d.text ?? null, refusal: null, annotations: [] };
        if (d.call) message.tool_calls = [{ id: d.call.id, type: "function", function: { name: d.call.name, arguments: d.call.args } }];
        return json({
          id,
          object: "chat.completion",
          created,
          model,
          choices: [{ index: 0, message, logprobs: null, finish_reason }],
          usage,
          service_tier: "default",
          system_fingerprint: null,
        });
      }
      const chunk = (choices: any[], extra: any = {}) =>
        `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, service_tier: "default", system_fingerprint: null, choices, ...extra })}\n\n`;
      const includeUsage = !!body.stream_options?.include_usage;
      const u = includeUsage ? { usage: null } : {};
      const out: string[] = [];
      if (d.call) {
        out.push(
          chunk(
            [
              {
                index: 0,
                delta: {
                  role: "assistant",
                  content: null,
                  tool_calls: [{ index: 0, id: d.call.id, type: "function", function: { name: d.call.name, arguments: "" } }],
                  refusal: null,
                },
                logprobs: null,
                finish_reason: null,
              },
            ],
            u,
          ),
        );
        for (const p of pieces(d.call.args))
          out.push(chunk([{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: p } }] }, logprobs: null, finish_reason: null }], u));
      } else {
        out.push(chunk([{ index: 0, delta: { role: "assistant", content: "", refusal: null }, logprobs: null, finish_reason: null }], u));
        for (const p of pieces(d.text!)) out.push(chunk([{ index: 0, delta: { content: p }, logprobs: null, finish_reason: null }], u));
      }
      out.push(chunk([{ index: 0, delta: {}, logprobs: null, finish_reason }], u));
      if (includeUsage) out.push(chunk([], { usage }));
      out.push("data: [DONE]\n\n");
      return sse(out);
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, requests, stop: () => server.stop(true) };
}
