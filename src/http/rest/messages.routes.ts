import { controlHeaderDocs, controlHeadersOf } from "./control-headers";
import { z } from "zod";
import { countMessageTokens, createMessage, CountTokensRequest, MessagesRequest } from "../../domain/protocols";
import { requestMeta } from "../request-meta";
import { anthropicError } from "./errors";
import { route } from "./route";
import { namedEvents, sseResponse } from "./sse";
import { CriteriaResultsWire } from "./wire-schemas";

const MessageWire = z.looseObject({
  id: z.string(),
  type: z.literal("message"),
  role: z.literal("assistant"),
  model: z.string(),
  content: z.array(z.looseObject({ type: z.string() })),
  stop_reason: z.string().nullable(),
  usage: z.looseObject({ input_tokens: z.number(), output_tokens: z.number() }),
  /** With op-criteria: the Message judged as a chat choice is. */
  criteria_results: CriteriaResultsWire.optional(),
});

const ANTHROPIC_STREAM = namedEvents((err) => ({ event: "error", data: anthropicError(err) }));

const HEADERS = {
  "x-api-key": "the project API key (or Authorization: Bearer)",
  "anthropic-beta": "forwarded to Anthropic",
  ...controlHeaderDocs("JSON array of criterion ids (not with stream): the results come as the Message's criteria_results"),
};

export const messagesRoutes = [
  route({
    method: "post",
    path: "/messages",
    summary: "Create a message (Anthropic Messages API); a bare model name is Anthropic's; `stream: true` answers with Anthropic's events",
    tag: "Gateway",
    auth: "project",
    body: { schema: MessagesRequest, read: "json" },
    headers: HEADERS,
    response: { schema: MessageWire },
    errors: [400, 401, 404, 409, 413, 429, 500, 502, 504],
    errorFormat: "anthropic",
    handler: async ({ ctx, deps, request, body }) => {
      requestMeta(request).holdOpen?.();
      const h = request.headers;
      const result = await createMessage(ctx, {
        body,
        headers: { ...controlHeadersOf(h), beta: h.get("anthropic-beta") },
        signal: request.signal,
      });
      const headers: Record<string, string> = result.cache ? { "x-hone-cache": result.cache } : {};
      if (result.kind === "message") return Response.json(result.message, { headers });
      return sseResponse(result.events, deps.config.sseKeepAliveMs, headers, ANTHROPIC_STREAM);
    },
  }),
  route({
    method: "post",
    path: "/messages/count_tokens",
    summary: "Count a message's input tokens (Anthropic's count for its models; an o200k estimate for others)",
    tag: "Gateway",
    auth: "project",
    body: { schema: CountTokensRequest, read: "json" },
    headers: { "x-api-key": HEADERS["x-api-key"], "anthropic-beta": HEADERS["anthropic-beta"] },
    response: { schema: z.looseObject({ input_tokens: z.number() }) },
    errors: [400, 401, 404, 429, 502, 504],
    errorFormat: "anthropic",
    handler: ({ ctx, request, body }) => countMessageTokens(ctx, { body, beta: request.headers.get("anthropic-beta"), signal: request.signal }),
  }),
];
