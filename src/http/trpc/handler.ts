import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import type { Deps } from "../../domain/deps";
import { errorFields } from "../../core/logger";
import { toDomainError } from "../../core/errors";
import { newAnswerBudget } from "../../domain/answer-budget";
import { type Principal, resolvePrincipal } from "../auth";
import { authenticateSession, sessionTokenOf } from "../session-cookie";
import { requestMeta } from "../request-meta";
import { retryAfterOf } from "../rest/errors";
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
      // A query whose input is long (a selection of 1,000 log ids) may come as a POST: URLs
      // have length limits that bodies, under HONE_MAX_BODY_BYTES, do not.
      allowMethodOverride: true,
      createContext: async ({ resHeaders }) => {
        const requestId = requestMeta(request).requestId;
        // One budget for the whole batch (its answers go out as one body), shared by its calls.
        const answer = newAnswerBudget(deps.config.maxResponseBytes);
        const budgeted = <P extends Principal | null>(p: P): P => {
          if (p) p.ctx.answer = answer;
          return p;
        };
        const base = { deps, request, resHeaders, requestId, session: null, sessionToken: null, admin: null };
        // A bearer token (API key or admin token) wins; otherwise the console's session cookie.
        const sessionToken = request.headers.get("authorization") ? null : sessionTokenOf(request);
        if (sessionToken) {
          try {
            const auth = await authenticateSession(deps, request, sessionToken);
            return {
              ...base,
              sessionToken,
              session: auth.session,
              principal: budgeted(auth.principal),
              admin: auth.admin?.ctx ?? null,
              authError: null,
            };
          } catch (err) {
            const domain = toDomainError(err);
            if (domain.code === "UNAUTHORIZED" || domain.code === "FORBIDDEN" || domain.code === "UNAVAILABLE") {
              return { ...base, sessionToken, principal: null, authError: domain };
            }
            throw err;
          }
        }
        const auth = await resolvePrincipal(deps, request);
        const principal = budgeted("principal" in auth ? auth.principal : null);
        return {
          ...base,
          principal,
          admin: principal?.kind === "admin" ? principal.ctx : null,
          authError: "error" in auth ? auth.error : null,
        };
      },
      // A refusal that says when to come back (the sign-in throttle's 429, a 503) says it in
      // Retry-After too, as on REST.
      responseMeta: ({ errors }) => {
        const seconds = Math.max(0, ...errors.map((e) => retryAfterOf(domainErrorOf(e)) ?? 0));
        return seconds > 0 ? { headers: new Headers({ "retry-after": String(seconds) }) } : {};
      },
      onError: ({ error, path }) => {
        if (domainErrorOf(error).code === "INTERNAL") {
          deps.logger.error("trpc procedure failed", { requestId: requestMeta(request).requestId, path, ...errorFields(error.cause ?? error) });
        }
      },
    });
  };
}
