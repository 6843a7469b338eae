import { Elysia } from "elysia";
import type { Deps } from "./domain/deps";
import { DomainError, toDomainError } from "./core/errors";
import { createConsoleServer } from "./http/console/console-assets";
import { notFoundPage, wantsHtmlPage } from "./http/console/not-found-page";
import { incomingRequestId, newRequestId, requestMeta, setRequestMeta } from "./http/request-meta";
import { bodyIdle, guardBodyStream, payloadTooLarge } from "./http/rest/body";
import { anthropicErrorResponse, errorResponse, openAiErrorResponse } from "./http/rest/errors";
import { bodyLimitOf, readsOwnJsonBody, restApi, type RestOptions } from "./http/rest/mount";
import { checkMetricsToken } from "./http/auth";
import { controlResponse } from "./http/control";
import { ssoCallback, ssoStart } from "./http/single-sign-on";
import { errorFields } from "./core/logger";
import { REST_ROUTES } from "./http/rest/routes";
import { LOG_QUEUE_CAPACITY } from "./log-writer/log-writer";

export type App = {
  /**
   * Serves one request: what Bun.serve calls (with the peer's address, `server.requestIP`), and
   * what in-process tests call (no peer: the client is "local").
   */
  handle(request: Request, peer?: string | null, holdOpen?: () => void): Promise<Response>;
  /** Bundles the console now, so the first page view does not wait for it. */
  warmConsole(): Promise<{ buildMs: number; initialGzipBytes: number }>;
};

export function createApp(deps: Deps, opts: RestOptions & { controlToken?: string } = {}): App {
  const { logger } = deps;
  // GraphQL (yoga, and the schema Pothos builds) is loaded by the first request that needs it: a
  // gateway that is never asked a GraphQL question does not hold it in memory. tRPC (its router and
  // every procedure's schema) likewise, by the console or client that first asks for it.
  const graphql = loadedOnFirstUse(() => import("./http/graphql/yoga").then((m) => m.createGraphqlHandler(deps)));
  const trpc = loadedOnFirstUse(() => import("./http/trpc/handler").then((m) => m.createTrpcHandler(deps)));

  const rest = restApi(deps, opts);
  const consoleServer = createConsoleServer(logger);
  const bodyLimit = bodyLimitOf(deps.config);

  const elysia = new Elysia()
    .onError(({ error, code, request }) => {
      // Elysia reads an error's own `code` member, so DomainErrors are told apart first.
      if (error instanceof DomainError) return errorResponse(error);
      if (code === "NOT_FOUND") {
        return errorResponse(new DomainError("NOT_FOUND", `Not found: ${new URL(request.url).pathname}`));
      }
      if (code === "PARSE") {
        return errorResponse(new DomainError("VALIDATION", "Malformed request body", { issues: [{ message: "the body could not be parsed" }] }));
      }
      const domain = toDomainError(error);
      if (domain.code === "INTERNAL") {
        logger.error("unhandled error", { requestId: requestMeta(request).requestId, ...errorFields(error) });
      }
      return errorResponse(domain);
    })
    .get("/health", () => health(deps))
    .get("/metrics", ({ request }) => metricsResponse(deps, request))
    .post("/internal/control", ({ request }) =>
      opts.controlToken ? controlResponse(deps, request, opts.controlToken) : errorResponse(new DomainError("NOT_FOUND", "Not found: /internal/control")),
    )
    .get("/auth/oidc/start", ({ request }) => ssoStart(deps, request))
    .get("/auth/oidc/callback", ({ request }) => ssoCallback(deps, request))
    .all("/graphql", ({ request }) => graphql(request), { parse: "none" })
    .all("/trpc/*", ({ request }) => trpc(request), { parse: "none" })
    .use(rest);

  return {
    warmConsole: () => consoleServer.warm(),
    async handle(incoming, peer, holdOpen) {
      const url = new URL(incoming.url);
      // Clients that join a base URL ending in "/" with "/report" send "//report": accept it.
      const sent = url.pathname.includes("//") ? url.pathname.replace(/\/{2,}/g, "/") : url.pathname;
      // The OTLP receiver's standard path under its prefix (HONE_OTLP_PREFIX) is the receiver.
      const path = sent === deps.config.otlpAliasPath ? OTLP_RECEIVER_PATH : sent;
      // Elysia looks for the path from the URL's 12th character on, as if every origin were at least
      // `http://` and four more: behind `Host: api` (a container or Kubernetes service on port 80)
      // it would route nothing. Such a request is routed under a stand-in host; its Host header
      // still says what the client sent.
      const shortOrigin = url.origin.length < ELYSIA_PATH_SEARCH_FROM;
      let request = incoming;
      if (path !== url.pathname || shortOrigin) {
        url.pathname = path;
        if (shortOrigin) url.hostname = SHORT_HOST_STAND_IN;
        request = new Request(url, incoming);
      }
      const meta = { requestId: incomingRequestId(request) ?? newRequestId(), startedAt: performance.now(), peer: peer ?? undefined, holdOpen };
      setRequestMeta(request, meta);
      let response: Response;
      let guarded: ReturnType<typeof guardBodyStream> | undefined;
      const hasBody = request.method !== "GET" && request.method !== "HEAD" && request.headers.get("content-length") !== "0";
      const declared = Number(request.headers.get("content-length") ?? 0);
      const limit = bodyLimit(path);
      // Refused before routing, yet in the shape of the protocol the path speaks.
      const refuse = path.startsWith("/api/v1/messages") ? anthropicErrorResponse : PROVIDER_SHAPED.test(path) ? openAiErrorResponse : errorResponse;
      if (!wellEncoded(path)) {
        response = refuse(
          new DomainError("VALIDATION", "Malformed URL: the path has an invalid percent-encoding", {
            issues: [{ message: "invalid percent-encoding in the path" }],
          }),
        );
      } else if (declared > limit) {
        response = refuse(payloadTooLarge(limit));
      } else {
        // A declared length was checked above and the server reads no more than it; a body of
        // undeclared length (chunked) is counted while it streams. A body that stops arriving is
        // cut off after HONE_BODY_IDLE_TIMEOUT_MS: the REST JSON routes time their own reads (the
        // gateway's usual requests never touch `request.body`, a JS stream); every other body
        // (chunked ones, GraphQL, tRPC, uploads) is read through the guard.
        let routed = request;
        if (hasBody && request.body && (request.headers.get("content-length") === null || !readsOwnJsonBody(path))) {
          guarded = guardBodyStream(request, limit, deps.config.bodyIdleTimeoutMs);
          routed = guarded.request;
          setRequestMeta(routed, meta);
        }
        try {
          response = (await consoleServer.handle(routed, path)) ?? (await elysia.handle(routed));
          // A browser that follows a wrong link gets a page saying so; API paths keep their JSON 404.
          if (response.status === 404 && wantsHtmlPage(request) && !API_PATH.test(path)) {
            await response.body?.cancel().catch(() => {});
            response = notFoundPage(path);
          }
        } catch (err) {
          logger.error("request failed outside the router", { requestId: meta.requestId, ...errorFields(err) });
          response = errorResponse(toDomainError(err));
        }
        if (guarded?.exceeded() && response.status !== 413) {
          // REST and tRPC answer 413 in their own format; GraphQL reports a broken body as a 400
          // about JSON. The client is told the real reason, in both shapes /graphql's 401 uses.
          await response.body?.cancel().catch(() => {});
          response = tooLargeResponse(payloadTooLarge(limit));
        } else if (guarded?.idled() && response.status !== 408) {
          await response.body?.cancel().catch(() => {});
          response = tooLargeResponse(bodyIdle(deps.config.bodyIdleTimeoutMs));
        }
      }
      // A failed request whose body may be unread, or a guarded body left unread, ends its connection:
      // Bun would otherwise keep reading (or waiting for) the rest of that body.
      const unread = guarded ? !guarded.consumed() : hasBody && response.status >= 400;
      response = withResponseHeaders(response, meta.requestId, unread);
      deps.metrics.http(routeLabel(path), request.method, response.status, (performance.now() - meta.startedAt) / 1000);
      if (logger.enabled("info")) {
        logger.info("request", {
          method: request.method,
          path,
          status: response.status,
          durationMs: Math.round((performance.now() - meta.startedAt) * 100) / 100,
          requestId: meta.requestId,
          projectId: requestMeta(request).projectId ?? null,
        });
      }
      return response;
    },
  };
}

const OTLP_RECEIVER_PATH = "/api/v1/otel/v1/traces";

/** Where Elysia starts its search for the path's "/" in a request URL (its `standardHostname`). */
const ELYSIA_PATH_SEARCH_FROM = 11;
// Long enough for any scheme and port; a name that no one outside can own.
const SHORT_HOST_STAND_IN = "short-host.invalid";

/** Paths whose 404 is the API's JSON, whatever the client accepts (the console's missing assets too). */
const API_PATH = /^\/(api|graphql|trpc|console|health|metrics)(\/|$)/;
/** Routes that mimic OpenAI: their errors also carry OpenAI's `error` object. */
const PROVIDER_SHAPED = /^\/api\/v1\/(chat\/completions|responses|embeddings)(\/|$)/;

function tooLargeResponse(err: DomainError): Response {
  return errorResponse(err, { errors: [{ message: err.message, extensions: { code: err.code } }] });
}

function wellEncoded(path: string): boolean {
  if (!path.includes("%")) return true;
  try {
    decodeURI(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * The headers every answer carries: its request id, and nosniff (a JSON body or an echoed payload
 * is never run as a script or a style sheet). Set in place; copied once only when immutable.
 */
function withResponseHeaders(response: Response, requestId: string, close: boolean): Response {
  let target = response;
  try {
    target.headers.set("x-request-id", requestId);
  } catch {
    // Some responses (e.g. from fetch) have immutable headers; copy them.
    target = new Response(response.body, response);
    target.headers.set("x-request-id", requestId);
  }
  target.headers.set("x-content-type-options", "nosniff");
  if (close) target.headers.set("connection", "close");
  return target;
}

// ------------------------------------------------------------------------------ health, metrics

/**
 * A log backlog past either bound makes /health answer 503: logs are not keeping up. Healthy, the
 * queue holds one flush's worth (HONE_LOG_FLUSH_MS, 50 ms) and drains in milliseconds. Half the
 * queue leaves time to act before the writer drops the oldest (at 5,000 logs/s, 10 s); a minute is
 * the writer's retry window for an unreachable database, after which it drops logs.
 */
const HEALTH_MAX_QUEUE = LOG_QUEUE_CAPACITY / 2;
const HEALTH_MAX_AGE_MS = 60_000;

/** Liveness plus the log backlog; 503 "degraded" when logs are not being stored in time. */
function health(deps: Deps): Response {
  const s = deps.logWriter.stats();
  const degraded = s.depth > HEALTH_MAX_QUEUE || (s.oldestAgeMs ?? 0) > HEALTH_MAX_AGE_MS;
  return Response.json(
    { status: degraded ? "degraded" : "ok", logQueue: { depth: s.depth, oldestAgeMs: s.oldestAgeMs, written: s.written, dropped: s.dropped } },
    { status: degraded ? 503 : 200 },
  );
}

async function metricsResponse(deps: Deps, request: Request): Promise<Response> {
  const token = deps.config.metricsToken;
  if (token) {
    try {
      await checkMetricsToken(deps, request, token);
    } catch (err) {
      return errorResponse(toDomainError(err));
    }
  }
  return new Response(await deps.metrics.render(), { headers: { "content-type": "text/plain; version=0.0.4; charset=utf-8" } });
}

// Route labels for metrics. Paths without parameters (the gateway's among them) are found in one
// Map lookup; the few with one are matched by pattern.
const OWN_ROUTES = ["/health", "/metrics", "/graphql", "/api/v1/openapi.json", "/api/v1/docs"];
const STATIC_ROUTES = new Map<string, string>(OWN_ROUTES.map((p) => [p, p]));
const PARAM_ROUTES: { label: string; pattern: RegExp }[] = [];
for (const r of REST_ROUTES) {
  const label = `/api/v1${r.path}`;
  if (!r.path.includes(":")) STATIC_ROUTES.set(label, label);
  else if (!PARAM_ROUTES.some((p) => p.label === label)) PARAM_ROUTES.push({ label, pattern: new RegExp(`^${label.replace(/:\w+/g, "[^/]+")}$`) });
}

/** A request's route for metrics: its pattern, never its raw path (ids would explode the series). */
function routeLabel(path: string): string {
  const known = STATIC_ROUTES.get(path);
  if (known !== undefined) return known;
  if (path.startsWith("/trpc/")) return "/trpc";
  if (path.startsWith("/api/v1/")) {
    for (const r of PARAM_ROUTES) if (r.pattern.test(path)) return r.label;
    return "/api/v1 (no route)";
  }
  return "console";
}

type Handler = (request: Request) => Promise<Response>;

/** A handler imported by the first request that needs it; a failed import is tried again by the next one. */
function loadedOnFirstUse(load: () => Promise<Handler>): Handler {
  let loading: Promise<Handler> | null = null;
  return async (request) => {
    loading ??= load().catch((err) => {
      loading = null;
      throw err;
    });
    return (await loading)(request);
  };
}
