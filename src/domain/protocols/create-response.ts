import type { Ctx } from "../../context";
import { DomainError, parseInput, toDomainError } from "../../errors";
import type { ChatCompletion, ChatCompletionChunk } from "../../providers";
import { createChatCompletion } from "../completions";
import { resolveModel } from "../completions/resolve-model";
import type { ControlHeaders } from "../completions/schemas";
import { checkTagShapes } from "../logs";
import {
  createResponseEventWriter,
  type Item,
  newResponseId,
  normalizeInput,
  ResponsesRequest,
  responseEnvelope,
  toChatRequest,
  toResponse,
} from "./responses-format";
import { conversationOf, saveResponse } from "./stored-responses";

// POST /api/v1/responses: OpenAI's Responses API for every provider Hone has. The request, with
// the conversation its previous_response_id continues (kept by Hone, per project), becomes a chat
// completion through the gateway (cache, criteria, tags and logging as on /chat/completions); the
// answer becomes a Response, streamed as the Responses API's events. With store (the default) the
// Response is kept, so a later call can continue from it whatever provider answers next.

type Input = { body: unknown; headers: ControlHeaders; signal: AbortSignal };

export type ResponseResult =
  | { kind: "response"; response: Record<string, unknown>; cache: "HIT" | "MISS" | null; warning: string | null }
  | { kind: "stream"; events: AsyncGenerator<{ event: string; data: unknown }>; cache: "HIT" | "MISS" | null; warning: string | null };

export async function createResponse(ctx: Ctx, input: Input): Promise<ResponseResult> {
  const req = parseInput(ResponsesRequest, input.body);
  checkTagShapes((input.body as { metadata?: unknown }).metadata, ["metadata"]);
  const route = resolveModel(req.model, ctx.deps.config.modelPrefixes);
  const history = req.previous_response_id ? await conversationOf(ctx, req.previous_response_id) : [];
  const items = normalizeInput(req.input);
  const { body, customTools, dropped } = toChatRequest(req, req.model, history, items, route.provider);
  const warning = dropped.length ? `left out for ${req.model}, which OpenAI's hosted tools do not reach: ${dropped.join(", ")}` : null;

  const id = newResponseId();
  const envelope = responseEnvelope(req, id, req.model, Math.floor(Date.now() / 1000));
  const { hone: _h, ...original } = req;
  const store = req.store !== false;
  const keep = async (response: Record<string, unknown>) => {
    if (store) await saveResponse(ctx, { id, previousResponseId: req.previous_response_id ?? null, input: items, response });
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
      response: (chat) => (finish ? finish() : (built ??= toResponse(envelope, chat as ChatCompletion, customTools))),
    },
  });
  if (result.kind === "completion") {
    const response = built ?? toResponse(envelope, result.completion, customTools);
    await keep(response);
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
      await keep(ended.response);
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

export type { Item };
