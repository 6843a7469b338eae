import { controlHeaderDocs, controlHeadersOf } from "./control-headers";
import { createChatCompletion } from "../../domain/completions";
import { ChatCompletionRequest } from "../../domain/calls";
import { jsonText } from "../../lib/json-text";
import { requestMeta } from "../request-meta";
import { route } from "./route";
import { sseResponse } from "./sse";
import * as W from "./wire-schemas";

export const completionsRoutes = [
  route({
    method: "post",
    path: "/chat/completions",
    summary: "Create a chat completion (OpenAI-compatible); `stream: true` answers with server-sent events",
    tag: "Gateway",
    auth: "project",
    // The verb validates the body as OpenAI would, so any JSON value is handed to it.
    body: { schema: ChatCompletionRequest, read: "json" },
    headers: controlHeaderDocs('JSON array of criterion ids, e.g. ["crit_…@v1"]'),
    response: { schema: W.ChatCompletionWire },
    errors: [400, 401, 404, 409, 413, 429, 500, 502, 504],
    errorFormat: "openai",
    handler: async ({ ctx, deps, request, body }) => {
      // The body is read: from here the call waits on a provider, maybe for minutes with nothing to
      // send (a non-streamed answer), which the server's idle timeout must not cut short.
      requestMeta(request).holdOpen?.();
      const result = await createChatCompletion(ctx, {
        body,
        headers: controlHeadersOf(request.headers),
        // The client going away aborts the upstream call.
        signal: request.signal,
      });
      const headers: Record<string, string> = result.cache ? { "x-hone-cache": result.cache } : {};
      if (result.kind === "completion") {
        // An answer passed through unchanged goes back as the upstream's own text.
        return new Response(jsonText(result.completion), { headers: { "content-type": "application/json;charset=utf-8", ...headers } });
      }
      if (result.kind === "pass-through") {
        // Larger than Hone holds: its bytes, passed on as they arrive.
        return new Response(result.body, { headers: { "content-type": "application/json;charset=utf-8", ...headers } });
      }
      return sseResponse(result.chunks, deps.config.sseKeepAliveMs, headers);
    },
  }),
];
