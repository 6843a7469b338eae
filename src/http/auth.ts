import type { Actor, BaseCtx, Ctx } from "../context";
import { secretsEqual } from "../crypto";
import type { Deps } from "../deps";
import { authenticateApiKey } from "../domain/projects";
import { DomainError } from "../errors";
import { requestMeta } from "./request-meta";

/** Bearer project key -> a project-scoped context. Throws UNAUTHORIZED (missing, malformed, unknown). */
export async function authenticateRequest(deps: Deps, request: Request): Promise<Ctx> {
  const meta = requestMeta(request);
  const auth = await authenticateApiKey(deps, request.headers.get("authorization"));
  meta.projectId = auth.projectId;
  return {
    deps,
    actor: { type: "apiKey", keyId: auth.keyId, projectId: auth.projectId },
    projectId: auth.projectId,
    requestId: meta.requestId,
  };
}

/** The admin token compared in constant time; false when no admin token is configured. */
function isAdminToken(deps: Deps, authorization: string | null): boolean {
  const expected = deps.config.adminToken;
  if (!expected || !authorization) return false;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (!m) return false;
  return secretsEqual(m[1]!, expected);
}

export type Principal = { kind: "project"; ctx: Ctx } | { kind: "admin"; ctx: BaseCtx };

/**
 * For the management APIs (GraphQL, tRPC): either the admin token or a project key. Errors are
 * returned, not thrown, so each transport reports them in its own format.
 */
export async function resolvePrincipal(deps: Deps, request: Request): Promise<{ principal: Principal } | { error: DomainError }> {
  const authorization = request.headers.get("authorization");
  if (isAdminToken(deps, authorization)) {
    const actor: Actor = { type: "admin" };
    return { principal: { kind: "admin", ctx: { deps, actor, requestId: requestMeta(request).requestId } } };
  }
  try {
    return { principal: { kind: "project", ctx: await authenticateRequest(deps, request) } };
  } catch (err) {
    if (err instanceof DomainError) return { error: err };
    throw err;
  }
}
