// Fake LLM upstreams on 127.0.0.1 speaking the real wire protocols (JSON and SSE), so the real
// provider code runs in tests. Behaviour is chosen by the model name:
//   error-<status>  the provider's error body with that HTTP status
//   hang            never answers (until the caller gives up)
//   broken          streams two chunks, then drops the connection
//   stall           streams one chunk, then goes silent
//   slow-<ms>       waits before answering / between stream chunks
//   not-a-list      (embeddings) answers 200 with a body that is not an embedding list
//   anything else   answers "echo: <last user text>", or a tool call when tools are offered

/** A content part of a message as sent upstream (text, image, tool result, ...). */
export type SentPart = { type?: string; text?: string; [key: string]: unknown };
/** A message (or a Responses input item) as sent upstream, OpenAI's or Anthropic's shape. */
export type SentMessage = { role?: string; type?: string; content?: string | SentPart[] | null; [key: string]: unknown };
/** A tool as sent upstream: OpenAI's `{ type, function }`, or Anthropic's and Responses' flat `{ name }`. */
export type SentTool = {
  type?: string;
  name?: string;
  function?: { name: string; parameters?: { required?: string[]; [key: string]: unknown }; [key: string]: unknown };
  [key: string]: unknown;
};
/**
 * A request body as a fake received it: the members the fakes and tests read (chat completions,
 * Anthropic messages, Responses, embeddings), the rest unknown. A body that is not a JSON object
 * is recorded as `{}` (its text is `text`).
 */
export type SentBody = {
  model?: string;
  messages?: SentMessage[];
  input?: string | number[] | (string | number[])[] | SentMessage[];
  tools?: SentTool[];
  tool_choice?: string | { type?: string; [key: string]: unknown };
  stream?: boolean;
  stream_options?: { include_usage?: boolean; [key: string]: unknown };
  n?: number;
  thinking?: { type?: string; [key: string]: unknown };
  reasoning?: unknown;
  store?: boolean;
  encoding_format?: string;
  dimensions?: number;
  [key: string]: unknown;
};

type Recorded = { path: string; url: string; headers: Record<string, string>; text: string; body: SentBody };

export type FakeUpstream = {
  url: string;
  requests: Recorded[];
  /** Requests whose client went away before the response ended. */
  aborted: number;
  /** Every request waits this long before answering (for benchmarks). */
  latencyMs: number;
  /**
   * The verdict a judge call (a forced `record_verdict` tool call) gets, from the judge prompt.
   * Default: FAIL when the prompt contains the word "wrong", else PASS.
   */
  judge: (prompt: string) => { judgement: "PASS" | "FAIL"; explanation: string };
  stop(): Promise<void>;
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const encoder = new TextEncoder();

function lastUserText(messages: SentMessage[] | undefined): string {
  const m = [...(messages ?? [])].reverse().find((x) => x.role === "user");
  if (!m) return "";
  if (typeof m.content === "string") return m.content;
  if (Array.isArray(m.content))
    return m.content
      .filter((p) => p.type === "text")
      .map((p) => p.text)
      .join(" ");
  return "";
}

function startServer(handle: (req: Request, rec: Recorded, fake: FakeUpstream) => Promise<Response>): FakeUpstream {
  const fake: FakeUpstream = {
    url: "",
    requests: [],
    aborted: 0,
    latencyMs: 0,
    judge: (prompt) =>
      /\bwrong\b/i.test(prompt) ? { judgement: "FAIL", explanation: "The output is wrong." } : { judgement: "PASS", explanation: "The output is fine." },
    stop: async () => {},
  };
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    async fetch(req) {
      const url = new URL(req.url);
      const text = await req.text();
      let parsed: unknown = null;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = null;
      }
      const body: SentBody = parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as SentBody) : {};
      const rec: Recorded = { path: url.pathname, url: req.url, headers: Object.fromEntries(req.headers), text, body };
      fake.requests.push(rec);
      req.signal.addEventListener("abort", () => fake.aborted++);
      if (fake.latencyMs) await sleep(fake.latencyMs);
      return handle(req, rec, fake);
    },
  });
  fake.url = `http://127.0.0.1:${server.port}`;
  fake.stop = () => server.stop(true);
  return fake;
}

function sse(events: AsyncIterable<string> | Iterable<string>, opts: { breakAfter?: number } = {}): Response {
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      let i = 0;
      try {
        for await (const e of events as AsyncIterable<string>) {
          if (opts.breakAfter !== undefined && i >= opts.breakAfter) {
            controller.error(new Error("connection dropped"));
            return;
          }
          controller.enqueue(encoder.encode(e));
          i++;
          // Give the socket time to send what came before a deliberate break.
          if (opts.breakAfter !== undefined) await sleep(20);
        }
        controller.close();
      } catch {
        // client went away
      }
    },
  });
  return new Response(stream, { headers: { "content-type": "text/event-stream" } });
}

const hang = (req: Request) => new Promise<Response>((resolve) => req.signal.addEventListener("abort", () => resolve(new Response("gone", { status: 499 }))));

function parseSlow(model: string): number {
  const m = /^slow-(\d+)$/.exec(model);
  return m ? Number(m[1]) : 0;
}

// ---------------------------------------------------------------- OpenAI (and Azure, Gemini, custom)

/**
 * The fake's vector for one embeddings input: deterministic, and made of multiples of 1/256 so that
 * float32 (base64) and JSON numbers carry exactly the same values.
 */
export function fakeEmbedding(input: string | number[], dimensions = 8): number[] {
  let h = 2166136261;
  for (const ch of JSON.stringify(input)) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
  return Array.from({ length: dimensions }, (_, j) => ((((h >>> (j % 24)) + j * 37) % 512) - 256) / 256);
}

/** Tokens the fake counts for one embeddings input: words of a string, ids of a token array. */
export const fakeEmbeddingTokens = (input: string | number[]) => (typeof input === "string" ? input.split(/\s+/).filter(Boolean).length : input.length);

/** OpenAI's `POST /embeddings`: float vectors, or base64 of little-endian float32 when asked. */
function fakeEmbeddings(body: SentBody, model: string): Response {
  const raw = body.input;
  const inputs = (typeof raw === "string" ? [raw] : Array.isArray(raw) && typeof raw[0] === "number" ? [raw] : (raw ?? [])) as (string | number[])[];
  const base64 = body.encoding_format === "base64";
  const tokens = inputs.reduce((n, x) => n + fakeEmbeddingTokens(x), 0);
  return Response.json({
    object: "list",
    data: inputs.map((x, index) => {
      const v = fakeEmbedding(x, body.dimensions ?? 8);
      return { object: "embedding", index, embedding: base64 ? Buffer.from(new Float32Array(v).buffer).toString("base64") : v };
    }),
    model,
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  });
}

/** `chatUsage`: the usage every chat completion reports (OpenAI's shape), instead of the default counts. */
export function startFakeOpenAI(opts: { apiKey?: string; chatUsage?: Record<string, unknown> } = {}): FakeUpstream {
  return startServer(async (req, rec, fake) => {
    const embeddings = req.method === "POST" && rec.path.endsWith("/embeddings");
    const responses = req.method === "POST" && rec.path.endsWith("/responses");
    if (!embeddings && !responses && (req.method !== "POST" || !rec.path.endsWith("/chat/completions"))) {
      return Response.json({ error: { message: `Unknown path ${rec.path}`, type: "invalid_request_error" } }, { status: 404 });
    }
    const presented = rec.headers.authorization?.replace(/^Bearer /, "") ?? rec.headers["api-key"];
    if (opts.apiKey && presented !== opts.apiKey) {
      return Response.json(
        { error: { message: "Incorrect API key provided", type: "invalid_request_error", param: null, code: "invalid_api_key" } },
        { status: 401 },
      );
    }
    const body = rec.body;
    const model = body.model ?? rec.path.split("/deployments/")[1]?.split("/")[0] ?? "unknown";
    const err = /^error-(\d{3})$/.exec(model);
    if (err) {
      return Response.json(
        { error: { message: `Simulated upstream error ${err[1]}`, type: "server_error", param: null, code: `simulated_${err[1]}` } },
        { status: Number(err[1]) },
      );
    }
    if (model === "hang") return hang(req);
    if (responses) return fakeResponse(body, model);
    const slow = parseSlow(model);
    if (embeddings) {
      if (slow) await sleep(slow);
      if (model === "not-a-list") return Response.json({ object: "list", data: "nope", model });
      return fakeEmbeddings(body, model);
    }
    const n = body.n ?? 1;
    const useTool = Array.isArray(body.tools) && body.tools.length > 0 && body.tool_choice !== "none";
    const text = `echo: ${lastUserText(body.messages)}`;
    const id = `chatcmpl-${crypto.randomUUID()}`;
    const created = Math.floor(Date.now() / 1000);
    const usage = opts.chatUsage ?? { prompt_tokens: 11, completion_tokens: 7 * n, total_tokens: 11 + 7 * n, prompt_tokens_details: { cached_tokens: 0 } };
    const firstTool = body.tools?.[0]?.function;
    const isJudge = useTool && firstTool?.name === "record_verdict";
    const toolCall = useTool
      ? {
          id: "call_abc",
          type: "function",
          function: {
            name: firstTool?.name ?? "",
            arguments: JSON.stringify(isJudge ? fake.judge(lastUserText(body.messages)) : { q: lastUserText(body.messages) }),
          },
        }
      : null;

    if (!body.stream) {
      if (slow) await sleep(slow);
      return Response.json({
        id,
        object: "chat.completion",
        created,
        model,
        system_fingerprint: "fp_fake",
        choices: Array.from({ length: n }, (_, i) => ({
          index: i,
          message: toolCall
            ? { role: "assistant", content: null, tool_calls: [toolCall], refusal: null }
            : { role: "assistant", content: i === 0 ? text : `${text} #${i}`, refusal: null },
          logprobs: null,
          finish_reason: toolCall ? "tool_calls" : "stop",
        })),
        usage,
        service_tier: "default",
      });
    }

    const includeUsage = body.stream_options?.include_usage === true;
    const chunk = (choices: object[], extra: object = {}) =>
      `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, system_fingerprint: "fp_fake", choices, ...(includeUsage ? { usage: null } : {}), ...extra })}\n\n`;
    async function* events() {
      for (let i = 0; i < n; i++) {
        yield chunk([{ index: i, delta: { role: "assistant", content: "" }, logprobs: null, finish_reason: null }]);
        if (toolCall) {
          yield chunk([
            {
              index: i,
              delta: { tool_calls: [{ index: 0, id: toolCall.id, type: "function", function: { name: toolCall.function.name, arguments: "" } }] },
              logprobs: null,
              finish_reason: null,
            },
          ]);
          const args = toolCall.function.arguments;
          for (const piece of [args.slice(0, 5), args.slice(5)]) {
            yield chunk([{ index: i, delta: { tool_calls: [{ index: 0, function: { arguments: piece } }] }, logprobs: null, finish_reason: null }]);
          }
        } else {
          const t = i === 0 ? text : `${text} #${i}`;
          for (const word of t.split(/(?<= )/)) {
            if (slow) await sleep(slow);
            yield chunk([{ index: i, delta: { content: word }, logprobs: null, finish_reason: null }]);
          }
        }
        if (model === "stall") await new Promise(() => {});
        yield chunk([{ index: i, delta: {}, logprobs: null, finish_reason: toolCall ? "tool_calls" : "stop" }]);
      }
      if (includeUsage) yield chunk([], { usage });
      yield "data: [DONE]\n\n";
    }
    return sse(events(), model === "broken" ? { breakAfter: 2 } : model === "stall" ? {} : {});
  });
}

/** The last user text of a Responses input (a string, or its last user message's text parts). */
function lastInputText(input: SentBody["input"]): string {
  if (typeof input === "string") return input;
  const items = (input ?? []) as SentMessage[];
  const m = [...items].reverse().find((x) => (x.type === "message" || !x.type) && x.role === "user");
  if (!m) return "";
  return typeof m.content === "string" ? m.content : (m.content ?? []).map((p) => p.text ?? "").join(" ");
}

/**
 * OpenAI's `POST /responses`: a reasoning item (with encrypted content) when reasoning is asked
 * for, then a function call when function tools are offered, else a message echoing the input.
 */
function fakeResponse(body: SentBody, model: string): Response {
  const id = `resp_fake${crypto.randomUUID().replaceAll("-", "")}`;
  const text = `echo: ${lastInputText(body.input)}`;
  const fn = (body.tools ?? []).find((t) => t.type === "function");
  const answered = Array.isArray(body.input) && (body.input as SentMessage[]).some((i) => i.type === "function_call_output");
  const reasoning = body.reasoning
    ? { id: "rs_fake1", type: "reasoning", summary: [{ type: "summary_text", text: "Thinking." }], encrypted_content: "enc-xyz" }
    : null;
  const last =
    fn && !answered
      ? {
          id: "fc_fake1",
          type: "function_call",
          status: "completed",
          call_id: "call_resp1",
          name: fn.name,
          arguments: JSON.stringify({ q: lastInputText(body.input) }),
        }
      : { id: "msg_fake1", type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text, annotations: [], logprobs: [] }] };
  const usage = {
    input_tokens: 13,
    input_tokens_details: { cached_tokens: 4 },
    output_tokens: 9,
    output_tokens_details: { reasoning_tokens: reasoning ? 5 : 0 },
    total_tokens: 22,
  };
  const base = {
    id,
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    model,
    // OpenAI echoes the request's instructions in the response (instrumentations read them there).
    instructions: body.instructions ?? null,
    tools: body.tools ?? [],
    store: body.store ?? true,
    error: null,
    incomplete_details: null,
  };
  const output = [...(reasoning ? [reasoning] : []), last];
  if (!body.stream) return Response.json({ ...base, status: "completed", output, usage });
  let seq = 0;
  const ev = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...data })}\n\n`;
  const events: string[] = [ev("response.created", { response: { ...base, status: "in_progress", output: [], usage: null } })];
  output.forEach((item, output_index) => {
    if ("content" in item && item.content) {
      events.push(ev("response.output_item.added", { output_index, item: { ...item, status: "in_progress", content: [] } }));
      events.push(
        ev("response.content_part.added", { item_id: item.id, output_index, content_index: 0, part: { type: "output_text", text: "", annotations: [] } }),
      );
      for (const word of text.split(/(?<= )/))
        events.push(ev("response.output_text.delta", { item_id: item.id, output_index, content_index: 0, delta: word, logprobs: [] }));
      events.push(ev("response.output_text.done", { item_id: item.id, output_index, content_index: 0, text, logprobs: [] }));
      events.push(ev("response.content_part.done", { item_id: item.id, output_index, content_index: 0, part: item.content[0] }));
    } else {
      events.push(ev("response.output_item.added", { output_index, item }));
    }
    events.push(ev("response.output_item.done", { output_index, item }));
  });
  if (model === "error-mid")
    events.push(
      ev("response.failed", {
        response: { ...base, status: "failed", error: { code: "server_error", message: "Simulated failure" }, output: [], usage: null },
      }),
    );
  else events.push(ev("response.completed", { response: { ...base, status: "completed", output, usage } }));
  return sse(events);
}

// ---------------------------------------------------------------- Anthropic Messages API

/** `usage`: the usage every Message reports (Anthropic's shape), instead of the default counts. */
export function startFakeAnthropic(opts: { apiKey?: string; usage?: Record<string, unknown> } = {}): FakeUpstream {
  return startServer(async (req, rec) => {
    if (req.method === "POST" && rec.path === "/v1/messages/count_tokens") {
      return Response.json({ input_tokens: JSON.stringify(rec.body.messages ?? []).length });
    }
    if (req.method !== "POST" || rec.path !== "/v1/messages") {
      return Response.json({ type: "error", error: { type: "not_found_error", message: `Unknown path ${rec.path}` } }, { status: 404 });
    }
    if (!rec.headers["anthropic-version"]) {
      return Response.json({ type: "error", error: { type: "invalid_request_error", message: "anthropic-version header is required" } }, { status: 400 });
    }
    if (opts.apiKey && rec.headers["x-api-key"] !== opts.apiKey) {
      return Response.json({ type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } }, { status: 401 });
    }
    const body = rec.body;
    const model = body.model ?? "";
    const err = /^error-(\d{3})$/.exec(model);
    if (err) {
      const type = err[1] === "529" ? "overloaded_error" : "api_error";
      return Response.json({ type: "error", error: { type, message: `Simulated ${type}` } }, { status: Number(err[1]) });
    }
    if (model === "hang") return hang(req);
    const useTool =
      Array.isArray(body.tools) && body.tools.length > 0 && (typeof body.tool_choice === "object" ? body.tool_choice.type : body.tool_choice) !== "none";
    const text = useTool ? "Let me check." : `echo: ${lastUserText(body.messages)}`;
    const id = `msg_${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`;
    const toolInput = { q: lastUserText(body.messages) };
    // With thinking on, a thinking block (and its signature) comes first.
    const thinking = body.thinking?.type === "enabled" ? { type: "thinking", thinking: "Let me think.", signature: "sig-abc123" } : null;
    const toolName = body.tools?.[0]?.name ?? "";
    const content: object[] = [...(thinking ? [thinking] : []), { type: "text", text }];
    if (useTool) content.push({ type: "tool_use", id: "toolu_01", name: toolName, input: toolInput });
    const usage: Record<string, unknown> = opts.usage ?? { input_tokens: 12, output_tokens: 6, cache_read_input_tokens: 3, cache_creation_input_tokens: 0 };
    const stopReason = useTool ? "tool_use" : "end_turn";

    if (!body.stream) {
      return Response.json({ id, type: "message", role: "assistant", model, content, stop_reason: stopReason, stop_sequence: null, usage });
    }
    const ev = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
    async function* events() {
      yield ev("message_start", {
        message: { id, type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } },
      });
      const t0 = thinking ? 1 : 0;
      if (thinking) {
        yield ev("content_block_start", { index: 0, content_block: { type: "thinking", thinking: "", signature: "" } });
        yield ev("content_block_delta", { index: 0, delta: { type: "thinking_delta", thinking: thinking.thinking } });
        yield ev("content_block_delta", { index: 0, delta: { type: "signature_delta", signature: thinking.signature } });
        yield ev("content_block_stop", { index: 0 });
      }
      yield ev("content_block_start", { index: t0, content_block: { type: "text", text: "" } });
      yield ev("ping", {});
      for (const word of text.split(/(?<= )/)) yield ev("content_block_delta", { index: t0, delta: { type: "text_delta", text: word } });
      if (model === "error-mid") {
        yield ev("error", { error: { type: "overloaded_error", message: "Overloaded" } });
        return;
      }
      yield ev("content_block_stop", { index: t0 });
      if (useTool) {
        yield ev("content_block_start", { index: t0 + 1, content_block: { type: "tool_use", id: "toolu_01", name: toolName, input: {} } });
        const json = JSON.stringify(toolInput);
        for (const piece of [json.slice(0, 4), json.slice(4)]) {
          yield ev("content_block_delta", { index: t0 + 1, delta: { type: "input_json_delta", partial_json: piece } });
        }
        yield ev("content_block_stop", { index: t0 + 1 });
      }
      yield ev("message_delta", { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } });
      yield ev("message_stop", {});
    }
    return sse(events(), model === "broken" ? { breakAfter: 3 } : {});
  });
}
