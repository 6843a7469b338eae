import { controlHeadersOf } from "./control-headers";

const withoutCriteria = <T extends { criteria?: unknown }>({ criteria: _c, ...rest }: T) => rest;
import { createEmbeddings } from "../../domain/completions";
import { EmbeddingsRequest } from "../../domain/calls";
import { jsonText } from "../../lib/json-text";
import { requestMeta } from "../request-meta";
import { route } from "./route";
import * as W from "./wire-schemas";

export const embeddingsRoutes = [
  route({
    method: "post",
    path: "/embeddings",
    summary: "Create embeddings (OpenAI-compatible); the log keeps each vector's size only, unless `op-log-vectors: true`",
    tag: "Gateway",
    auth: "project",
    // The verb validates the body as OpenAI would, so any JSON value is handed to it.
    body: { schema: EmbeddingsRequest, read: "json" },
    headers: {
      "op-log-request": "true | false (default true)",
      "op-log-vectors": "true | false (default false): keep the vectors in the call's log",
      "op-cache": "readWrite | readOnly | writeOnly | true | false",
      "op-tags": "JSON object of metadata tags",
      "op-fallbacks": "JSON array of model strings tried in turn when the model fails (429, 5xx, timeouts)",
    },
    response: { schema: W.EmbeddingListWire },
    errors: [400, 401, 404, 409, 413, 429, 500, 502, 504],
    errorFormat: "openai",
    handler: async ({ ctx, request, body }) => {
      // The body is read: the call now waits on a provider, which the server's idle timeout must not cut short.
      requestMeta(request).holdOpen?.();
      const h = request.headers;
      const result = await createEmbeddings(ctx, {
        body,
        // op-criteria means nothing here (there is no answer to judge): it is not read.
        headers: { ...withoutCriteria(controlHeadersOf(h)), logVectors: h.get("op-log-vectors") },
        // The client going away aborts the upstream call.
        signal: request.signal,
      });
      const headers: Record<string, string> = result.cache ? { "x-hone-cache": result.cache } : {};
      // An answer passed on unchanged goes back as the upstream's own text.
      return new Response(jsonText(result.response), { headers: { "content-type": "application/json;charset=utf-8", ...headers } });
    },
  }),
];
