import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import type { Deps } from "../../deps";
import { errorFields } from "../../logger";
import { resolvePrincipal } from "../auth";
import { requestMeta } from "../request-meta";
import { domainErrorOf } from "./init";
import { appRouter } from "./router";

/** Calls in a batch request (`/trpc/a,b,c?batch=1`); 1 for a single call. */
function batchSizeOf(request: Request): number {
  const url = new URL(request.url);
  if (url.searchParams.get("batch") !== "1") return 1;
  return decodeURIComponent(url.pathname.slice(url.pathname.indexOf("/trpc/") + "/trpc/".length)).split(",").length;
}

/**
 * A batch over the limit is refused before any procedure runs or its context is built. tRPC's own
 * `maxBatchSize` check (kept below as a second guard) says only "Batch call exceeds maximum size";
 * this answer names the limit, in the shape the errorFormatter gives every other error.
 */
function batchTooLarge(request: Request, size: number, max: number): Response {
  const message = `A tRPC batch may carry at most ${max} calls; this one has ${size} (HONE_TRPC_MAX_BATCH)`;
  const requestId = requestMeta(request).requestId;
  return Response.json(
    { error: { message, code: -32600, data: { code: "VALIDATION", httpStatus: 400, path: null, issues: [{ message }], requestId } } },
    { status: 400 },
  );
}

export function createTrpcHandler(deps: Deps): (request: Request) => Promise<Response> {
  const maxBatchSize = deps.config.trpcMaxBatch;
  return async (request) => {
    const size = batchSizeOf(request);
    if (size > maxBatchSize) return batchTooLarge(request, size, maxBatchSize);
    return fetchRequestHandler({
      endpoint: "/trpc",
      req: request,
      router: appRouter,
      maxBatchSize,
      createContext: async () => {
        const auth = await resolvePrincipal(deps, request);
        return {
          deps,
          requestId: requestMeta(request).requestId,
          principal: "principal" in auth ? auth.principal : null,
          authError: "error" in auth ? auth.error : null,
        };
      },
      onError: ({ error, path }) => {
        if (domainErrorOf(error).code === "INTERNAL") {
          deps.logger.error("trpc procedure failed", { requestId: requestMeta(request).requestId, path, ...errorFields(error.cause ?? error) });
        }
      },
    });
  };
}
