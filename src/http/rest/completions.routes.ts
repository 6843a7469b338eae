import { Elysia } from "elysia";
import type { Deps } from "../../deps";
import { createChatCompletion } from "../../domain/completions";
import { DomainError, toDomainError } from "../../errors";
import { jsonText } from "../../json-text";
import { errorFields } from "../../logger";
import { authenticateRequest } from "../auth";
import { requestMeta } from "../request-meta";
import { readJsonBody } from "./body";
import { openAiErrorResponse } from "./errors";
import { sseResponse } from "./sse";

export function completionsRoutes(deps: Deps) {
  const max = deps.config.maxBodyBytes;
  return new Elysia({ name: "rest-completions" }).post(
    "/chat/completions",
    async ({ request }) => {
      // Every failure here, authentication included, is answered in the OpenAI-compatible shape.
      try {
        const ctx = await authenticateRequest(deps, request);
        const body = await readJsonBody(request, max);
        const h = request.headers;
        const result = await createChatCompletion(ctx, {
          body,
          headers: {
            logRequest: h.get("op-log-request"),
            cache: h.get("op-cache"),
            criteria: h.get("op-criteria"),
            tags: h.get("op-tags"),
          },
          // The client going away aborts the upstream call.
          signal: request.signal,
        });
        const headers: Record<string, string> = result.cache ? { "x-hone-cache": result.cache } : {};
        if (result.kind === "completion") {
          // An answer passed through unchanged goes back as the upstream's own text.
          return new Response(jsonText(result.completion), { headers: { "content-type": "application/json;charset=utf-8", ...headers } });
        }
        return sseResponse(result.chunks, headers);
      } catch (err) {
        // The verb hands back DomainErrors only (and logs its own bugs); anything else failed here.
        if (!(err instanceof DomainError)) {
          deps.logger.error("chat completion failed", { requestId: requestMeta(request).requestId, ...errorFields(err) });
        }
        return openAiErrorResponse(toDomainError(err));
      }
    },
    { parse: "none" },
  );
}
