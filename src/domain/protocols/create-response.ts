import { namesFallbacks, createChatCompletion, parseControls } from "../completions";
import type { Ctx } from "../context";
import { DomainError, parseInput, toDomainError } from "../../core/errors";
import type { ChatCompletion, ChatCompletionChunk, NativeEvent, Batches } from "../../providers";
import { createCallLog, CompiledChatCompletionRequest, type ControlHeaders } from "../calls";
import { type ModelRoute, resolveModel } from "../projects";
import type { Upstream } from "../calls";
import { type CallRouter, routeCall } from "../routing";
import { checkTagShapes } from "../logs";
import { nativeCache } from "./native-cache";
import { judgedAnswer, type NativeJudge, nativeJudge, withCriteriaResults } from "./native-criteria";
import { relayEvents } from "./relay";
import { type Masking, maskingOfCall } from "../masking";
import { batchOf, responseEvents } from "./replay";
import { type Item, newResponseId, normalizeInput, ResponsesRequest, responseEnvelope, responseToChat, toChatRequest, toResponse } from "./responses-format";
import { createResponseEventWriter } from "./responses-events";
import { conversationOf, resolveItemReferences, saveResponse } from "./stored-responses";

// POST /api/v1/responses: OpenAI's Responses API for every provider Hone has. The request, with
// the conversation its previous_response_id continues (kept by Hone, per project), becomes a chat
// completion through the gateway (cache, criteria, tags and logging as on /chat/completions); the
// answer becomes a Response, streamed as the Responses API's events. With store (the default) the
// Response is kept, so a later call can continue from it whatever provider answers next.

type Input = { body: unknown; headers: ControlHeaders; signal: AbortSignal };

export type ResponseResult =
  | { kind: "response"; response: Record<string, unknown>; cache: "HIT" | "MISS" | null; warning: string | null }
  | { kind: "stream"; events: AsyncGenerator<{ event: string; data: unknown }> | Batches<NativeEvent>; cache: "HIT" | "MISS" | null; warning: string | null };

export async function createResponse(ctx: Ctx, input: Input): Promise<ResponseResult> {
  const req = parseInput(ResponsesRequest, input.body);
  checkTagShapes((input.body as { metadata?: unknown }).metadata, ["metadata"]);
  const route = resolveModel(req.model, ctx.deps.config.modelPrefixes);
  const history = req.previous_response_id ? await conversationOf(ctx, req.previous_response_id) : [];
  const items = normalizeInput(req.input);
  // mask_upstream masks and restores on the chat form: such a call goes through the chat gateway (docs/masking.md).
  const masking = await maskingOfCall(ctx, req.model);
  if (route.provider === "openai" && !namesFallbacks(input.headers, req.hone) && masking.mode !== "mask_upstream") {
    return native(ctx, input, req, route, history, items, masking);
  }
  // Hone keeps every item it answered with, so a reference to one is made the item itself here, for
  // a provider that never saw it. What is stored is the input as sent (references included).
  const [past, now] = await resolveItemReferences(ctx, [
    { items: history, path: "previous_response_id" },
    { items, path: "input" },
  ]);
  const { body, customTools, dropped } = toChatRequest(req, req.model, past!, now!, route.provider);
  const warning = dropped.length ? `left out for ${req.model}, which OpenAI's hosted tools do not reach: ${dropped.join(", ")}` : null;

  const id = newResponseId();
  const envelope = responseEnvelope(req, id, req.model, Math.floor(ctx.deps.clock().getTime() / 1000));
  const { hone: _h, ...original } = req;
  const store = req.store !== false;
  const keep = (response: Record<string, unknown>) => {
    if (store) saveResponse(ctx, { id, previousResponseId: req.previous_response_id ?? null, input: items, response }, masking);
  };

  // The Response is built once: what the client receives is what the log keeps.
  let built: Record<string, unknown> | null = null;
  let finish: (() => Record<string, unknown>) | null = null;
  const result = await createChatCompletion(ctx, {
    body,
    headers: input.headers,
    signal: input.signal,
    protocol: {
      api: "responses",
      request: original,
      warning,
      response: (chat) =>
        finish ? finish() : (built ??= withCriteriaResults(toResponse(envelope, chat as ChatCompletion, customTools), chat as ChatCompletion)),
    },
  });
  if (result.kind === "completion") {
    const logged = built ?? withCriteriaResults(toResponse(envelope, result.completion, customTools), result.completion);
    // The Response as logged, with the masked values put back for the client (mask_upstream).
    const response = result.restore ? result.restore(logged) : logged;
    keep(response);
    return { kind: "response", response, cache: result.cache, warning };
  }
  if (result.kind === "pass-through") {
    await result.body.cancel();
    throw new DomainError("UPSTREAM_ERROR", "The answer is larger than Hone holds (HONE_MAX_LOGGED_PAYLOAD_BYTES) and cannot be made a Response", {
      upstreamStatus: 502,
    });
  }
  const chunks = result.chunks;
  const writer = createResponseEventWriter(envelope, customTools);
  let ended: { events: Record<string, unknown>[]; response: Record<string, unknown> } | null = null;
  finish = () => (ended ??= writer.end()).response;
  async function* events(): AsyncGenerator<{ event: string; data: unknown }> {
    const named = (e: Record<string, unknown>) => ({ event: String(e.type), data: e });
    try {
      for (const e of writer.begin()) yield named(e);
      for await (const chunk of chunks as AsyncGenerator<ChatCompletionChunk>) for (const e of writer.add(chunk)) yield named(e);
      ended ??= writer.end();
      keep(ended.response);
      for (const e of ended.events) yield named(e);
    } catch (err) {
      const e = toDomainError(err);
      // The client sees the Response fail (as OpenAI's stream does), then the stream ends.
      for (const ev of writer.fail({ code: e.code.toLowerCase(), message: e.message })) yield named(ev);
    } finally {
      await chunks.return(undefined);
    }
  }
  return { kind: "stream", events: events(), cache: result.cache, warning };
}

/**
 * To OpenAI the request goes as it is (reasoning items, hosted tools, includes: nothing lost), with
 * the conversation Hone keeps written into its input when it continues one; the Response and its
 * events come back as OpenAI sent them. Logged like the others, and kept (store) under OpenAI's id.
 */
async function native(
  ctx: Ctx,
  input: Input,
  req: ResponsesRequest,
  route: ModelRoute,
  history: Item[],
  items: Item[],
  masking: Masking,
): Promise<ResponseResult> {
  const { hone, previous_response_id: _p, ...rest } = req;
  const controls = parseControls(input.headers, hone);
  // The log's chat form is a translation: it never stands in the way of the call itself.
  let chatBody: Record<string, unknown> | null = null;
  try {
    chatBody = toChatRequest({ ...req, stream: false, hone: undefined }, req.model, history, items, "openai").body;
  } catch {
    chatBody = null;
  }
  const checked = chatBody ? CompiledChatCompletionRequest.safeParse(chatBody) : null;
  const call = await createCallLog(ctx, {
    request: checked?.success ? checked.data : { model: req.model, metadata: req.metadata ?? null },
    rawBody: chatBody,
    tags: controls.tags,
    protocol: {
      api: "responses",
      request: hone ? { ...rest, ...(req.previous_response_id ? { previous_response_id: req.previous_response_id } : {}) } : input.body,
    },
    shouldLog: () => controls.logRequest ?? true,
  });
  let router: CallRouter;
  let body: Record<string, unknown>;
  let resolved: Upstream;
  let judge: NativeJudge | null;
  try {
    judge = await nativeJudge(ctx, controls.criteria, { stream: req.stream === true, request: checked?.success ? checked.data : null, endpoint: "/responses" });
    // One upstream, or a key pool's keys in turn (no fallbacks here: a call naming them is translated).
    router = await routeCall(ctx, call, { model: req.model, route, fallbacks: [], tags: controls.tags, signal: input.signal });
    const up = router.upstream()!;
    resolved = up;
    if (!up.client.responses) throw new DomainError("VALIDATION", `${req.model} has no Responses API`);
    // Reasoning items without their encrypted content can only be found where they were stored.
    const carried = history.filter((i) => i.type !== "reasoning" || typeof i.encrypted_content === "string");
    body = { ...rest, model: up.upstreamModel, ...(history.length ? { input: [...carried, ...items] } : {}) };
  } catch (err) {
    throw call.failure(err);
  }
  const keep = (response: Record<string, unknown>) => {
    if (req.store !== false && (response.status === "completed" || response.status === "incomplete")) {
      saveResponse(ctx, { id: String(response.id), previousResponseId: req.previous_response_id ?? null, input: items, response }, masking);
    }
  };
  // A streamed Response, as it ended (whole or cut short), logged.
  const logStreamed = (response: Record<string, unknown>, outcome: { statusCode: number; errorMessage: string | null }) => {
    const chat = responseToChat(response);
    call.log({ ...outcome, respPayload: chat, respPayloadOriginal: response, usage: chat.usage, completionId: String(response.id ?? "") });
  };
  // A whole Response as the client receives it (judged, with op-criteria), logged.
  const answer = (response: Record<string, unknown>, cacheHit = false) =>
    judgedAnswer(call, judge, { native: response, chat: responseToChat(response), cacheHit });
  const opts = { signal: input.signal };
  // The completion cache, as on every endpoint: keyed by the body OpenAI gets (the conversation
  // Hone keeps written into its input).
  const cache = nativeCache(ctx, controls.cache, { up: resolved, body, api: "responses" });
  const hit = await cache.read();
  if (hit) {
    const response = await answer(hit, true);
    keep(hit);
    if (!req.stream) return { kind: "response", response, cache: "HIT", warning: null };
    return { kind: "stream", events: batchOf(responseEvents(hit)), cache: "HIT", warning: null };
  }
  const cacheWhole = async (response: Record<string, unknown> | null) => {
    if (response?.status === "completed") await cache.write(response);
  };
  if (!req.stream) {
    try {
      const response = await router.send((u, signal) => u.client.responses!.create(body, { ...opts, signal }));
      keep(response);
      await cacheWhole(response);
      // A sample is judged off the answer's path (a route's judge, a model's online evaluation).
      if (checked?.success && response.status === "completed") router.answered(checked.data, responseToChat(response));
      return { kind: "response", response: await answer(response), cache: cache.status, warning: null };
    } catch (err) {
      throw call.failure(err);
    }
  }
  let upstream: Batches<NativeEvent>;
  try {
    upstream = await router.send((u, signal) => u.client.responses!.stream(body, { ...opts, signal }));
  } catch (err) {
    throw call.failure(err);
  }
  let last: Record<string, unknown> | null = null;
  const events = relayEvents(
    ctx,
    upstream,
    (e) => {
      const response = e.data.response as Record<string, unknown> | undefined;
      if (!response || typeof response !== "object") return undefined;
      last = response;
      if (e.event === "response.failed") {
        const error = (response.error ?? {}) as { message?: unknown };
        return { statusCode: 502, errorMessage: typeof error.message === "string" ? error.message : "the response failed" };
      }
      if (e.event === "response.completed" || e.event === "response.incomplete") keep(response);
      return undefined;
    },
    (outcome) => {
      if (!last) return call.log({ ...outcome, respPayload: null });
      logStreamed(last, outcome);
      if (outcome.statusCode === 200 && checked?.success && last.status === "completed") router.answered(checked.data, responseToChat(last));
      // Stored before the stream's last event goes.
      if (outcome.statusCode === 200) return cacheWhole(last);
    },
  );
  return { kind: "stream", events, cache: cache.status, warning: null };
}

export type { Item };
