import { namesFallbacks, createChatCompletion, parseControls } from "../completions";
import { z } from "zod";
import type { Ctx } from "../context";
import { DomainError, parseInput } from "../../core/errors";
import { type ChatCompletion, type ChatCompletionChunk, fromAnthropicMessage, fromAnthropicRequest, type NativeEvent, type Batches } from "../../providers";
import { modelName } from "../chat";
import { createCallLog, resolveUpstream, type Upstream, CompiledChatCompletionRequest, type ControlHeaders, HoneControls } from "../calls";
import { resolveModel } from "../projects";
import { type CallRouter, routeCall } from "../routing";
import { checkTagShapes } from "../logs";
import { nativeCache } from "./native-cache";
import { judgedAnswer, type NativeJudge, nativeJudge, withCriteriaResults } from "./native-criteria";
import { relayEvents } from "./relay";
import { maskingOfCall } from "../masking";
import { batchOf, messageEvents } from "./replay";
import { type AnthropicEvent, createAnthropicEventWriter, createMessageAccumulator, toAnthropicMessage } from "./messages-format";
import { tokenCounter } from "../token-counter";

// POST /api/v1/messages: Anthropic's Messages API. To an Anthropic model the request goes as it is
// (thinking signatures, cache_control, documents, betas: nothing lost); to any other model it is
// translated to a chat completion and the answer translated back. Either way the call is logged
// in chat form (for datasets) with the request and answer as the client saw them beside it.

const MAX_MESSAGES = 100_000;
const MAX_BLOCKS = 10_000;
const MAX_TOOLS = 1_000;

const Block = z.looseObject({ type: z.string({ error: "a content block needs a type" }).min(1).max(64) });
const Content = z.union([z.string(), z.array(Block).max(MAX_BLOCKS, `at most ${MAX_BLOCKS} content blocks`)], {
  error: "content must be a string or an array of content blocks",
});

export const MessagesRequest = z.looseObject({
  model: modelName("model"),
  max_tokens: z.number({ error: "max_tokens is required: a positive integer" }).int().min(1),
  messages: z
    .array(z.looseObject({ role: z.enum(["user", "assistant", "system"], { error: "role must be user or assistant" }), content: Content }), {
      error: "messages must be an array of messages",
    })
    .min(1, "messages must not be empty")
    .max(MAX_MESSAGES, `at most ${MAX_MESSAGES} messages`),
  system: z.union([z.string(), z.array(Block).max(MAX_BLOCKS)], { error: "system must be a string or an array of text blocks" }).optional(),
  tools: z
    .array(z.looseObject({ name: z.string({ error: "a tool needs a name" }).min(1).max(256) }))
    .max(MAX_TOOLS, `at most ${MAX_TOOLS} tools`)
    .optional(),
  tool_choice: z.looseObject({ type: z.enum(["auto", "any", "tool", "none"], { error: "tool_choice.type must be auto, any, tool or none" }) }).optional(),
  thinking: z.looseObject({ type: z.string().min(1).max(32) }).optional(),
  metadata: z.looseObject({ user_id: z.string().max(512).nullish() }).optional(),
  stop_sequences: z.array(z.string().max(10_000)).max(1_000).optional(),
  temperature: z.number().min(0).max(1).optional(),
  top_k: z.number().int().min(0).optional(),
  top_p: z.number().min(0).max(1).optional(),
  stream: z.boolean().optional(),
  hone: HoneControls.optional(),
});
export type MessagesRequest = z.output<typeof MessagesRequest>;

export const CountTokensRequest = MessagesRequest.omit({ max_tokens: true, stream: true });

type Input = {
  body: unknown;
  headers: ControlHeaders & { beta?: string | null };
  signal: AbortSignal;
};

export type MessageResult =
  | { kind: "message"; message: Record<string, unknown>; cache: "HIT" | "MISS" | null }
  /** Iterating drives the upstream; stopping early aborts it and logs what arrived. */
  | { kind: "stream"; events: AsyncGenerator<AnthropicEvent> | Batches<NativeEvent>; cache: "HIT" | "MISS" | null };

/** On this endpoint a bare model name is Anthropic's. */
export const anthropicModel = (model: string) => (model.includes(":") ? model : `anthropic:${model}`);

/** Block types only Anthropic understands: refused, with the reason, on the way to any other provider. */
const ANTHROPIC_ONLY = new Set([
  "document",
  "search_result",
  "container_upload",
  "server_tool_use",
  "web_search_tool_result",
  "mcp_tool_use",
  "mcp_tool_result",
]);

export async function createMessage(ctx: Ctx, input: Input): Promise<MessageResult> {
  const req = parseInput(MessagesRequest, input.body);
  checkTagShapes((input.body as { hone?: { tags?: unknown } }).hone?.tags, ["hone", "tags"]);
  const { hone, ...original } = req;
  const model = anthropicModel(req.model);
  const route = resolveModel(model, ctx.deps.config.modelPrefixes);
  // A Message's stream ends with its usage: the chat stream is asked for it.
  const chatBody = { ...fromAnthropicRequest(original), model, ...(req.stream ? { stream_options: { include_usage: true } } : {}), ...(hone ? { hone } : {}) };

  // mask_upstream puts placeholders in the request and the values back in the answer: it does so on
  // the chat form, so such a call goes through the chat gateway whatever its model (docs/masking.md).
  const masking = await maskingOfCall(ctx, model);
  if (route.provider !== "anthropic" || namesFallbacks(input.headers, hone) || masking.mode === "mask_upstream") return translated(ctx, input, req, chatBody);

  // Native: the request as it is, to Anthropic.
  const controls = parseControls(input.headers, hone);
  // The log's chat form is a translation: it never stands in the way of the call itself.
  const checked = CompiledChatCompletionRequest.safeParse({ ...chatBody, hone: undefined });
  const call = await createCallLog(ctx, {
    request: checked.success ? checked.data : ({ model, messages: [] } as never),
    rawBody: { ...chatBody, hone: undefined },
    tags: controls.tags,
    // The body as it came (its JSON text is reused when the log is written), unless Hone's own member is to come out.
    protocol: { api: "messages", request: hone ? original : input.body },
    shouldLog: () => controls.logRequest ?? true,
  });
  let up: Upstream;
  let router: CallRouter;
  let body: Record<string, unknown>;
  let judge: NativeJudge | null;
  try {
    judge = await nativeJudge(ctx, controls.criteria, { stream: req.stream === true, request: checked.success ? checked.data : null, endpoint: "/messages" });
    // One upstream, or a key pool's keys in turn (no fallbacks here: a call naming them is translated).
    router = await routeCall(ctx, call, { model, route, fallbacks: [], tags: controls.tags, signal: input.signal });
    up = router.upstream()!;
    body = { ...original, model: up.upstreamModel };
  } catch (err) {
    throw call.failure(err);
  }
  const beta = input.headers.beta;
  // The Message as the client receives it (judged, with op-criteria), logged.
  const answer = (message: Record<string, unknown>, cacheHit = false) =>
    judgedAnswer(call, judge, { native: message, chat: fromAnthropicMessage(message, Math.floor(ctx.deps.clock().getTime() / 1000)), cacheHit });
  // The completion cache, as on every endpoint: keyed by the body Anthropic gets and its beta flags.
  const cache = nativeCache(ctx, controls.cache, { up, body: { ...body, beta: input.headers.beta ?? null }, api: "messages" });
  const hit = await cache.read();
  if (hit) {
    const message = await answer(hit, true);
    if (!req.stream) return { kind: "message", message, cache: "HIT" };
    return { kind: "stream", events: batchOf(messageEvents(hit)), cache: "HIT" };
  }
  // A Message that ended (a stop reason) is whole; one cut short by an error never is.
  const keep = async (message: Record<string, unknown> | null) => {
    if (message?.stop_reason) await cache.write(message);
  };
  if (!req.stream) {
    try {
      const message = await router.send((u, signal) => u.client.anthropic!.message(body, { signal, beta }));
      await keep(message);
      // A sample is judged off the answer's path (a route's judge, a model's online evaluation).
      if (checked.success && message.stop_reason) router.answered(checked.data, fromAnthropicMessage(message, Math.floor(ctx.deps.clock().getTime() / 1000)));
      return { kind: "message", message: await answer(message), cache: cache.status };
    } catch (err) {
      throw call.failure(err);
    }
  }
  let upstream: Batches<NativeEvent>;
  try {
    upstream = await router.send((u, signal) => u.client.anthropic!.stream(body, { signal, beta }));
  } catch (err) {
    throw call.failure(err);
  }
  const received = createMessageAccumulator();
  const events = relayEvents(
    ctx,
    upstream,
    (e) => {
      received.add(e.event, e.data);
      return undefined;
    },
    (outcome) => {
      const message = received.result();
      const chat = message ? fromAnthropicMessage(message, Math.floor(ctx.deps.clock().getTime() / 1000)) : null;
      call.log({ ...outcome, respPayload: chat, respPayloadOriginal: message, usage: chat?.usage, completionId: message ? String(message.id ?? "") : null });
      if (outcome.statusCode === 200 && chat && checked.success && message?.stop_reason) router.answered(checked.data, chat);
      // Stored before the stream's last event goes.
      if (outcome.statusCode === 200) return keep(message);
    },
  );
  return { kind: "stream", events, cache: cache.status };
}

/** To any other provider: through the chat gateway (cache, criteria and all), the answer translated back. */
async function translated(ctx: Ctx, input: Input, req: MessagesRequest, chatBody: Record<string, unknown>): Promise<MessageResult> {
  for (const [i, m] of req.messages.entries()) {
    if (!Array.isArray(m.content)) continue;
    for (const [j, b] of m.content.entries()) {
      if (ANTHROPIC_ONLY.has(b.type)) {
        const why = `a ${b.type} block can only be sent to an anthropic model (${String(req.model)} is not)`;
        throw new DomainError("VALIDATION", why, { issues: [{ message: why, path: ["messages", i, "content", j, "type"] }] });
      }
    }
  }
  const { hone: _h, ...original } = req;
  // Anthropic's own settings mean nothing to other providers (OpenAI refuses unknown members).
  const { thinking: _t, top_k: _k, ...body } = chatBody;
  const result = await createChatCompletion(ctx, {
    body,
    headers: input.headers,
    signal: input.signal,
    protocol: {
      api: "messages",
      request: original,
      response: (chat) =>
        chat && typeof chat === "object" && "choices" in chat ? withCriteriaResults(toAnthropicMessage(chat as never), chat as ChatCompletion) : chat,
    },
  });
  if (result.kind === "completion")
    return { kind: "message", message: withCriteriaResults(toAnthropicMessage(result.completion), result.completion), cache: result.cache };
  if (result.kind === "pass-through") {
    await result.body.cancel();
    throw new DomainError("UPSTREAM_ERROR", "The answer is larger than Hone holds (HONE_MAX_LOGGED_PAYLOAD_BYTES) and cannot be translated to a Message", {
      upstreamStatus: 502,
    });
  }
  const chunks = result.chunks;
  async function* events(): AsyncGenerator<AnthropicEvent> {
    const writer = createAnthropicEventWriter();
    try {
      for await (const chunk of chunks as AsyncGenerator<ChatCompletionChunk>) yield* writer.add(chunk);
      yield* writer.end();
    } finally {
      await chunks.return(undefined);
    }
  }
  return { kind: "stream", events: events(), cache: result.cache };
}

/**
 * POST /api/v1/messages/count_tokens: Anthropic counts for its models; for others, the text of the
 * translated request is counted with the o200k tokenizer (an estimate, said so by `estimated`).
 */
export async function countMessageTokens(ctx: Ctx, input: { body: unknown; beta?: string | null; signal: AbortSignal }): Promise<Record<string, unknown>> {
  const req = parseInput(CountTokensRequest, input.body);
  const { hone: _h, ...original } = req;
  const model = anthropicModel(req.model);
  const route = resolveModel(model, ctx.deps.config.modelPrefixes);
  if (route.provider === "anthropic") {
    const up = await resolveUpstream(ctx, route);
    return up.client.anthropic!.countTokens({ ...original, model: up.upstreamModel }, { signal: input.signal, beta: input.beta });
  }
  const chat = fromAnthropicRequest(original);
  const text = JSON.stringify([chat.messages, chat.tools ?? null]);
  return { input_tokens: (await tokenCounter())(text), estimated: true };
}
