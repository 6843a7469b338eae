import { controlHeaderDocs, controlHeadersOf } from "./control-headers";
import { z } from "zod";
import { createResponse, deleteStoredResponse, getStoredResponse, listInputItems, ResponsesRequest } from "../../domain/protocols";
import { requestMeta } from "../request-meta";
import { openAiError } from "./errors";
import { route } from "./route";
import { namedEvents, sseResponse } from "./sse";
import { CriteriaResultsWire } from "./wire-schemas";

const ResponseWire = z.looseObject({
  id: z.string(),
  object: z.literal("response"),
  status: z.string(),
  model: z.string(),
  output: z.array(z.looseObject({ type: z.string() })),
  /** With op-criteria: the Response judged as a chat choice is. */
  criteria_results: CriteriaResultsWire.optional(),
});

/** A failure before the first event is an HTTP error; after it, an `error` event (OpenAI's shape). */
const RESPONSES_STREAM = namedEvents((err) => {
  const e = openAiError(err);
  return { event: "error", data: { type: "error", sequence_number: 0, code: e.code, message: e.message, param: e.param } };
});

export const responsesRoutes = [
  route({
    method: "post",
    path: "/responses",
    summary: "Create a response (OpenAI Responses API) with any provider; previous_response_id continues a conversation Hone stored",
    tag: "Gateway",
    auth: "project",
    body: { schema: ResponsesRequest, read: "json" },
    headers: controlHeaderDocs("JSON array of criterion ids (not with stream): the results come as the Response's criteria_results"),
    response: { schema: ResponseWire },
    errors: [400, 401, 404, 409, 413, 429, 500, 502, 504],
    errorFormat: "openai",
    handler: async ({ ctx, deps, request, body }) => {
      requestMeta(request).holdOpen?.();
      const result = await createResponse(ctx, {
        body,
        headers: controlHeadersOf(request.headers),
        signal: request.signal,
      });
      const headers: Record<string, string> = {
        ...(result.cache ? { "x-hone-cache": result.cache } : {}),
        ...(result.warning ? { "x-hone-warning": result.warning } : {}),
      };
      if (result.kind === "response") return Response.json(result.response, { headers });
      return sseResponse(result.events, deps.config.sseKeepAliveMs, headers, RESPONSES_STREAM);
    },
  }),
  route({
    method: "get",
    path: "/responses/:responseId",
    summary: "A stored response",
    tag: "Gateway",
    auth: "project",
    response: { schema: ResponseWire },
    errors: [401, 404],
    errorFormat: "openai",
    handler: ({ ctx, params }) => getStoredResponse(ctx, params.responseId),
  }),
  route({
    method: "delete",
    path: "/responses/:responseId",
    summary: "Delete a stored response (a later previous_response_id to it is a 404)",
    tag: "Gateway",
    auth: "project",
    response: { schema: z.object({ id: z.string(), object: z.literal("response"), deleted: z.literal(true) }) },
    errors: [401, 404],
    errorFormat: "openai",
    handler: ({ ctx, params }) => deleteStoredResponse(ctx, params.responseId),
  }),
  route({
    method: "get",
    path: "/responses/:responseId/input_items",
    summary: "The input items of a stored response, a page at a time",
    tag: "Gateway",
    auth: "project",
    query: {
      limit: { schema: z.string(), description: "1 to 100 (default 20)" },
      order: { schema: z.enum(["asc", "desc"]), description: "desc (default) or asc" },
      after: { schema: z.string(), description: "an item id: the page after it" },
    },
    response: { schema: z.looseObject({ object: z.literal("list"), data: z.array(z.looseObject({})), has_more: z.boolean() }) },
    errors: [400, 401, 404],
    errorFormat: "openai",
    handler: ({ ctx, params, query }) => listInputItems(ctx, params.responseId, query),
  }),
];
