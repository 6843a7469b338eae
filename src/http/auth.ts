import type { Actor, Ctx } from "../domain/context";
import type { Principal } from "./principal";
import { secretsEqual } from "../lib/crypto";
import type { Deps } from "../domain/deps";
import { type Authenticated, authenticateApiKey } from "../domain/projects";
import { checkCredential } from "../domain/sessions";
import { DomainError } from "../core/errors";
import { traceContextOf } from "../lib/trace-context";
import { clientAddress } from "./client-address";
import { requestMeta } from "./request-meta";
import { authenticateSession, sessionTokenOf } from "./session-cookie";

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/**
 * Bearer project key -> a project-scoped context. Throws UNAUTHORIZED (missing, malformed,
 * unknown), or RATE_LIMITED while the client's wrong keys are throttled.
 */
export async function authenticateRequest(deps: Deps, request: Request, opts: { keyHeaders?: readonly string[] } = {}): Promise<Ctx> {
  // Anthropic's clients send the key as x-api-key, OpenTelemetry exporters as whatever header they
  // are set up with: the routes that take such a header name it.
  let other: string | null = null;
  for (const h of opts.keyHeaders ?? []) other ??= request.headers.get(h);
  const authorization = request.headers.get("authorization") ?? (other ? `Bearer ${other}` : null);
  // No credential header but the console's cookie: a person's (or a key's) console session, with
  // its role; the console header is required, so a cross-site request cannot use the cookie.
  if (!authorization) {
    const sessionToken = sessionTokenOf(request);
    if (sessionToken) {
      const auth = await authenticateSession(deps, request, sessionToken);
      if (auth.principal?.kind === "project") return { ...auth.principal.ctx, replyHeaders: {} };
      throw new DomainError("NOT_FOUND", "No project is selected: create one or switch to one");
    }
  }
  const token = bearerTokenOf(authorization);
  // A missing or malformed header guesses nothing: it is answered without the throttle.
  if (token === null) return projectCtx(deps, request, await authenticateApiKey(deps, authorization));
  return checkCredential(deps, {
    token,
    kind: "bearer",
    address: () => clientAddress(request, deps.config.trustedProxies),
    apiKey: async () => projectCtx(deps, request, await authenticateApiKey(deps, authorization)),
    other: () => null,
  });
}

/**
 * GET /metrics with HONE_METRICS_TOKEN set: the bearer token must be it (compared through digests
 * of equal length, so nothing about it, its length included, leaks in the timing). Wrong tokens
 * count toward the same throttle as sign-ins: the token may be short enough to guess.
 */
export async function checkMetricsToken(deps: Deps, request: Request, expected: string): Promise<void> {
  const wrong = () => new DomainError("UNAUTHORIZED", "GET /metrics needs Authorization: Bearer <HONE_METRICS_TOKEN>");
  const token = bearerTokenOf(request.headers.get("authorization"));
  if (token === null) throw wrong();
  await checkCredential(deps, {
    token,
    kind: "bearer",
    address: () => clientAddress(request, deps.config.trustedProxies),
    apiKey: async () => {
      throw wrong();
    },
    other: () => (secretsEqual(token, expected) ? true : null),
  }).then((ok) => {
    if (!ok) throw wrong();
  });
}

function projectCtx(deps: Deps, request: Request, auth: Authenticated): Ctx {
  const meta = requestMeta(request);
  meta.projectId = auth.projectId;
  return {
    deps,
    actor: { type: "apiKey", keyId: auth.keyId, projectId: auth.projectId, grant: auth.grant },
    projectId: auth.projectId,
    requestId: meta.requestId,
    replyHeaders: {},
    trace: traceContextOf((name) => request.headers.get(name)),
  };
}

function bearerTokenOf(authorization: string | null): string | null {
  return authorization ? (BEARER.exec(authorization)?.[1] ?? null) : null;
}

/** The admin token compared in constant time; false when no admin token is configured. */
function isAdminToken(deps: Deps, token: string): boolean {
  const expected = deps.config.adminToken;
  return expected ? secretsEqual(token, expected) : false;
}

export type { Principal };

/**
 * For the management APIs (GraphQL, tRPC): either the admin token or a project key. Errors are
 * returned, not thrown, so each transport reports them in its own format.
 */
export async function resolvePrincipal(deps: Deps, request: Request): Promise<{ principal: Principal } | { error: DomainError }> {
  const authorization = request.headers.get("authorization");
  const token = bearerTokenOf(authorization);
  try {
    if (token === null) return { principal: { kind: "project", ctx: projectCtx(deps, request, await authenticateApiKey(deps, authorization)) } };
    const principal = await checkCredential<Principal>(deps, {
      token,
      kind: "bearer",
      address: () => clientAddress(request, deps.config.trustedProxies),
      apiKey: async () => ({ kind: "project", ctx: projectCtx(deps, request, await authenticateApiKey(deps, authorization)) }),
      other: () => {
        if (!isAdminToken(deps, token)) return null;
        const actor: Actor = { type: "admin" };
        return { kind: "admin", ctx: { deps, actor, requestId: requestMeta(request).requestId } };
      },
    });
    return { principal };
  } catch (err) {
    if (err instanceof DomainError) return { error: err };
    throw err;
  }
}
