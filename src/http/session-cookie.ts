import type { Actor, Ctx } from "../domain/context";
import type { Deps } from "../domain/deps";
import { type ResolvedSession, resolveSession, type SessionInfo } from "../domain/sessions";
import { DomainError } from "../core/errors";
import type { Principal } from "./principal";
import { requestMeta } from "./request-meta";

export const SESSION_COOKIE = "hone_session";
/**
 * Every request that authenticates with the session cookie must carry this header. A cross-site
 * form or image cannot send a custom header, so the cookie alone never acts (SameSite=Strict is
 * the first guard, this the second).
 */
export const CONSOLE_HEADER = "x-hone-console";

export function sessionTokenOf(request: Request): string | null {
  const cookie = request.headers.get("cookie");
  if (!cookie) return null;
  for (const part of cookie.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) return decodeURIComponent(part.slice(eq + 1).trim()) || null;
  }
  return null;
}

const isHttps = (request: Request) => new URL(request.url).protocol === "https:" || request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim() === "https";

/** Set-Cookie for a new session: HttpOnly, SameSite=Strict, Secure behind https, for the session's life. */
export function sessionCookie(request: Request, token: string, maxAgeMs: number): string {
  const secure = isHttps(request) ? "; Secure" : "";
  return `${SESSION_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${Math.floor(maxAgeMs / 1000)}${secure}`;
}

export function clearedSessionCookie(request: Request): string {
  const secure = isHttps(request) ? "; Secure" : "";
  return `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0${secure}`;
}

export function requireConsoleHeader(request: Request): void {
  if (!request.headers.get(CONSOLE_HEADER)) {
    throw new DomainError("FORBIDDEN", `A request signed in with the console's session cookie must send the ${CONSOLE_HEADER} header`);
  }
}

export type SessionAuth = { session: ResolvedSession; principal: Principal | null; admin: Principal | null };

/** The principals a console session acts as: its project (key or admin's choice) and, for an admin, the admin. */
export async function authenticateSession(deps: Deps, request: Request, token: string): Promise<SessionAuth> {
  requireConsoleHeader(request);
  const session = await resolveSession(deps, token);
  if (!session.user && !deps.config.consoleKeySignIn) {
    throw new DomainError(
      "UNAUTHORIZED",
      "Signing in to the console with an API key or the admin token is switched off (HONE_CONSOLE_KEY_SIGNIN=false): sign in as yourself",
    );
  }
  const meta = requestMeta(request);
  const requestId = meta.requestId;
  let principal: Principal | null = null;
  if (session.projectId) {
    meta.projectId = session.projectId;
    const ctx: Ctx = {
      deps,
      actor: session.user
        ? {
            type: "user",
            userId: session.user.id,
            email: session.user.email,
            sessionId: session.id,
            organizationId: session.organization!.id,
            role: session.role!,
            orgRole: session.orgRole!,
          }
        : session.admin
          ? { type: "admin" }
          : { type: "apiKey", keyId: session.apiKeyId!, projectId: session.projectId, ...(session.keyGrant ? { grant: session.keyGrant } : {}) },
      projectId: session.projectId,
      requestId,
    };
    principal = { kind: "project", ctx };
  }
  const admin: Principal | null = session.admin ? { kind: "admin", ctx: { deps, actor: { type: "admin" }, requestId } } : null;
  return { session, principal, admin };
}

/** A person's session as the actor of their organisation's work (their organisation role); null for a key's or the admin's session. */
export function personActor(s: {
  id?: string;
  user: SessionInfo["user"];
  organization: SessionInfo["organization"];
  orgRole: SessionInfo["orgRole"];
}): Actor | null {
  if (!s.user || !s.organization || !s.orgRole) return null;
  return {
    type: "user",
    userId: s.user.id,
    email: s.user.email,
    sessionId: s.id ?? "",
    organizationId: s.organization.id,
    role: s.orgRole,
    orgRole: s.orgRole,
  };
}
