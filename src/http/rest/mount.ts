import { Elysia } from "elysia";
import type { Config } from "../../core/config";
import type { Ctx } from "../../domain/context";
import type { Deps } from "../../domain/deps";
import { DomainError, toDomainError } from "../../core/errors";
import { errorFields } from "../../core/logger";
import { authenticateRequest } from "../auth";
import { requestMeta } from "../request-meta";
import { auditRequest } from "../audit-request";
import { readJsonBody } from "./body";
import { docsPageResponse } from "./docs-page";
import { anthropicErrorResponse, openAiErrorResponse } from "./errors";
import { buildOpenApiDocument } from "./openapi";
import { checkResponse } from "./response-check";
import { pathPattern, type RestRoute, scopeOf } from "./route";
import { requireScope } from "../../domain/projects";
import { logRefusal } from "../../domain/calls";
import type { LogApi } from "../../domain/logs";
import { REST_ROUTES } from "./routes";
import { asObject } from "./wire";

export type RestOptions = {
  /**
   * Tests only: every 2xx JSON answer (and each JSONL row) is checked against the route's declared
   * response schema, and a mismatch answers 500 naming it. Off in production: no extra work.
   */
  checkResponses?: boolean;
};

/** The REST API under /api/v1: its public description, then every route of the table. */
export function restApi(deps: Deps, opts: RestOptions = {}, routes: readonly RestRoute[] = REST_ROUTES) {
  const openapi = JSON.stringify(buildOpenApiDocument(routes));
  const app = new Elysia({ prefix: "/api/v1", name: "rest" })
    // The API's own description is public: it holds no project data.
    .get("/openapi.json", () => new Response(openapi, { headers: { "content-type": "application/json" } }))
    .get("/docs", () => docsPageResponse());
  for (const r of routes) app.route(r.method.toUpperCase(), r.path, handlerOf(r, deps, opts), { parse: "none" });
  return app;
}

const NO_QUERY: Record<string, string | undefined> = Object.freeze({});

/** The routes that call a model, by path, and the protocol each speaks: their refusals are logged. */
const MODEL_CALLS: Record<string, LogApi | undefined> = {
  "/chat/completions": "chat",
  "/responses": "responses",
  "/messages": "messages",
  "/embeddings": "embeddings",
};

function handlerOf(r: RestRoute, deps: Deps, opts: RestOptions) {
  const max = r.maxBodyBytes?.(deps.config) ?? deps.config.maxBodyBytes;
  const read = r.body?.read;
  const scope = scopeOf(r);
  const what = `${r.method.toUpperCase()} /api/v1${r.path}`;
  const refusedApi = MODEL_CALLS[r.path];
  // Changes through the management routes are audited, and so are their reads when refused (someone
  // tried); model calls and what rides with them are logs.
  const audited = scope === "write";
  const refusalsAudited = scope === "read";
  const run = async (request: Request, params: Record<string, string>, query: Record<string, string | undefined>) => {
    if (r.enabledIf && !r.enabledIf.enabled(deps.config)) throw new DomainError("NOT_FOUND", r.enabledIf.reason);
    const ctx =
      r.auth === "public"
        ? null
        : await authenticateRequest(deps, request, { keyHeaders: r.keyHeaders ?? (r.errorFormat === "anthropic" ? ["x-api-key"] : []) });
    if (refusalsAudited && ctx) {
      try {
        return await serve(ctx, request, params, query);
      } catch (err) {
        await auditRequest(deps, request, { actor: ctx.actor, projectId: ctx.projectId, transport: "rest", verb: what, input: params, error: err });
        throw err;
      }
    }
    if (!audited || !ctx) return serve(ctx, request, params, query);
    try {
      const result = await serve(ctx, request, params, query);
      await auditRequest(deps, request, {
        actor: ctx.actor,
        projectId: ctx.projectId,
        transport: "rest",
        verb: what,
        input: { ...params, ...auditedBody.get(request) },
      });
      return result;
    } catch (err) {
      await auditRequest(deps, request, { actor: ctx.actor, projectId: ctx.projectId, transport: "rest", verb: what, input: params, error: err });
      throw err;
    }
  };
  const auditedBody = new WeakMap<Request, object>();
  const serve = async (ctx: Ctx | null, request: Request, params: Record<string, string>, query: Record<string, string | undefined>) => {
    if (ctx) {
      try {
        requireScope(ctx.actor, scope, `call ${what}`);
      } catch (err) {
        // A model call the key may not make is logged as a refusal (its body is not read).
        if (refusedApi && err instanceof DomainError) logRefusal(ctx, { api: refusedApi, model: null, reqPayload: null, tags: {}, error: err });
        throw err;
      }
    }
    const limits = { maxBytes: max, maxDepth: deps.config.maxJsonDepth, idleMs: deps.config.bodyIdleTimeoutMs };
    const body = read === "object" ? asObject(await readJsonBody(request, limits)) : read === "json" ? await readJsonBody(request, limits) : undefined;
    if (audited && body && typeof body === "object") auditedBody.set(request, body);
    const result = await r.handler({ ctx, deps, request, params, query, body } as never);
    if (ctx?.replyHeaders && result instanceof Response) for (const k in ctx.replyHeaders) result.headers.set(k, ctx.replyHeaders[k]!);
    return opts.checkResponses ? checkResponse(r, result) : result;
  };
  const errorAnswer = r.errorFormat === "anthropic" ? anthropicErrorResponse : openAiErrorResponse;
  const guarded = r.errorFormat
    ? async (request: Request, params: Record<string, string>, query: Record<string, string | undefined>) => {
        try {
          return await run(request, params, query);
        } catch (err) {
          // Verbs hand back DomainErrors only (and log their own bugs); anything else failed here.
          if (!(err instanceof DomainError)) {
            deps.logger.error("chat completion failed", { requestId: requestMeta(request).requestId, ...errorFields(err) });
          }
          return errorAnswer(toDomainError(err));
        }
      }
    : run;
  // Elysia reads a handler's source to decide what to parse: only routes that declare query
  // parameters name `query`, so the others (the gateway's hot path among them) never parse one.
  return r.query
    ? ({ request, params, query }: { request: Request; params: Record<string, string>; query: Record<string, string | undefined> }) =>
        guarded(request, params, query)
    : ({ request, params }: { request: Request; params: Record<string, string> }) => guarded(request, params, NO_QUERY);
}

const STREAMED_BODIES = REST_ROUTES.filter((r) => r.body?.read === "stream").map((r) => pathPattern(r.path));

/**
 * REST paths whose JSON body the route reads itself through readJsonBody, which times the read
 * (HONE_BODY_IDLE_TIMEOUT_MS): every /api/v1 path but the ones that stream their body (uploads).
 */
export function readsOwnJsonBody(path: string): boolean {
  return path.startsWith("/api/v1/") && !STREAMED_BODIES.some((p) => p.test(path));
}

/** The body limit of a request path: a route's own (dataset import) or HONE_MAX_BODY_BYTES. */
export function bodyLimitOf(config: Config): (path: string) => number {
  const own = REST_ROUTES.filter((r) => r.maxBodyBytes).map((r) => ({
    pattern: pathPattern(r.path),
    max: r.maxBodyBytes!(config),
  }));
  return (path) => {
    for (const o of own) if (o.pattern.test(path)) return o.max;
    return config.maxBodyBytes;
  };
}
