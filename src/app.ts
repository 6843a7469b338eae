import { Elysia } from "elysia";
import type { Deps } from "./deps";
import { DomainError, toDomainError } from "./errors";
import { createConsoleServer } from "./http/console/console-assets";
import { createGraphqlHandler } from "./http/graphql/yoga";
import { incomingRequestId, newRequestId, requestMeta, setRequestMeta } from "./http/request-meta";
import { limitBodyStream, payloadTooLarge } from "./http/rest/body";
import { errorResponse } from "./http/rest/errors";
import { bodyLimitOf, restApi, type RestOptions } from "./http/rest/mount";
import { createTrpcHandler } from "./http/trpc/handler";
import { errorFields } from "./logger";
import { REST_ROUTES } from "./http/rest/routes";
import { LOG_QUEUE_CAPACITY } from "./log-writer/log-writer";
import { createHash, timingSafeEqual } from "node:crypto";

export type App = {
  /**
   * Serves one request: what Bun.serve calls (with the peer's address, `server.requestIP`), and
   * what in-process tests call (no peer: the client is "local").
   */
  handle(request: Request, peer?: string | null): Promise<Response>;
  /** Bundles the console now, so the first page view does not wait for it. */
  warmConsole(): Promise<{ buildMs: number; initialGzipBytes: number }>;
};

export function createApp(deps: Deps, opts: RestOptions = {}): App {
  const { logger } = deps;
  const graphql = createGraphqlHandler(deps);
  const trpc = createTrpcHandler(deps);

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
    .all("/graphql", ({ request }) => graphql(request), { parse: "none" })
    .all("/trpc/*", ({ request }) => trpc(request), { parse: "none" })
    .use(rest);

  return {
    warmConsole: () => consoleServer.warm(),
    async handle(incoming, peer) {
      const url = new URL(incoming.url);
      // Clients that join a base URL ending in "/" with "/report" send "//report": accept it.
      const path = url.pathname.includes("//") ? url.pathname.replace(/\/{2,}/g, "/") : url.pathname;
      let request = incoming;
      if (path !== url.pathname) {
        url.pathname = path;
        request = new Request(url, incoming);
      }
      const meta = { requestId: incomingRequestId(request) ?? newRequestId(), startedAt: performance.now(), peer: peer ?? undefined };
      setRequestMeta(request, meta);
      let response: Response;
      const declared = Number(request.headers.get("content-length") ?? 0);
      const limit = bodyLimit(path);
      if (!wellEncoded(path)) {
        response = errorResponse(
          new DomainError("VALIDATION", "Malformed URL: the path has an invalid percent-encoding", {
            issues: [{ message: "invalid percent-encoding in the path" }],
          }),
        );
      } else if (declared > limit) {
        response = errorResponse(payloadTooLarge(limit));
      } else {
        // A declared length was checked above and the server reads no more than it; only a body of
        // undeclared length (chunked) is counted while it streams. Checking the header first keeps
        // `request.body` (a JS stream) untouched on the gateway's usual requests.
        let routed = request;
        let limited: ReturnType<typeof limitBodyStream> | undefined;
        if (request.headers.get("content-length") === null && request.method !== "GET" && request.method !== "HEAD" && request.body) {
          limited = limitBodyStream(request, limit);
          routed = limited.request;
          setRequestMeta(routed, meta);
        }
        try {
          response = (await consoleServer.handle(routed, path)) ?? (await elysia.handle(routed));
        } catch (err) {
          logger.error("request failed outside the router", { requestId: meta.requestId, ...errorFields(err) });
          response = errorResponse(toDomainError(err));
        }
        if (limited?.exceeded() && response.status !== 413) {
          // REST and tRPC answer 413 in their own format; GraphQL reports a broken body as a 400
          // about JSON. The client is told the real reason, in both shapes /graphql's 401 uses.
          await response.body?.cancel().catch(() => {});
          response = tooLargeResponse(payloadTooLarge(limit));
        }
      }
      response = withHeader(response, "x-request-id", meta.requestId);
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

function withHeader(response: Response, name: string, value: string): Response {
  try {
    response.headers.set(name, value);
    return response;
  } catch {
    // Some responses (e.g. from fetch) have immutable headers; copy them.
    const copy = new Response(response.body, response);
    copy.headers.set(name, value);
    return copy;
  }
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

const sha256 = (s: string) => createHash("sha256").update(s).digest();

async function metricsResponse(deps: Deps, request: Request): Promise<Response> {
  const token = deps.config.metricsToken;
  if (token) {
    // Digests of equal length, so the comparison tells nothing of the token, its length included.
    const given = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get("authorization") ?? "")?.[1] ?? "";
    if (!timingSafeEqual(sha256(given), sha256(token))) {
      return errorResponse(new DomainError("UNAUTHORIZED", "GET /metrics needs Authorization: Bearer <HONE_METRICS_TOKEN>"));
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
