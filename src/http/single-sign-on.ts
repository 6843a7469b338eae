import type { Deps } from "../domain/deps";
import { recordAudit } from "../domain/audit";
import { finishSingleSignOn, SsoError, startSingleSignOn } from "../domain/teams";
import { DomainError } from "../core/errors";
import { errorFields } from "../core/logger";
import { clientOf } from "./audit-request";
import { requestMeta } from "./request-meta";
import { personActor, sessionCookie } from "./session-cookie";

// Binds a sign-in at the provider to the browser that started it. SameSite=Lax, not Strict: the
// provider's redirect back is a cross-site navigation, which a Strict cookie would not ride.
const FLOW_COOKIE = "hone_oidc";
const FLOW_PATH = "/auth/oidc";

const isHttps = (request: Request) => new URL(request.url).protocol === "https:" || request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim() === "https";

function flowCookie(request: Request, value: string, maxAgeS: number): string {
  return `${FLOW_COOKIE}=${value}; Path=${FLOW_PATH}; HttpOnly; SameSite=Lax; Max-Age=${maxAgeS}${isHttps(request) ? "; Secure" : ""}`;
}

function cookieOf(request: Request, name: string): string | null {
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim() || null;
  }
  return null;
}

const redirect = (to: string, cookies: string[]) => {
  const headers = new Headers({ location: to, "cache-control": "no-store" });
  for (const c of cookies) headers.append("set-cookie", c);
  return new Response(null, { status: 303, headers });
};

/** GET /auth/oidc/start[?invite=<token>]: off to the provider. */
export async function ssoStart(deps: Deps, request: Request): Promise<Response> {
  if (!deps.config.oidc) throw new DomainError("NOT_FOUND", "Single sign-on is not configured here (HONE_OIDC_ISSUER, HONE_OIDC_CLIENT_ID)");
  const invite = new URL(request.url).searchParams.get("invite");
  try {
    const started = await startSingleSignOn(deps, { inviteToken: invite && invite.length <= 100 ? invite : null });
    return redirect(started.redirectTo, [flowCookie(request, started.browserToken, 600)]);
  } catch (err) {
    if (err instanceof SsoError) return redirect(`/?sso_error=${err.reason}`, []);
    throw err;
  }
}

/** GET /auth/oidc/callback: the provider's return; a session cookie and on to the console, or back to sign-in saying why. */
export async function ssoCallback(deps: Deps, request: Request): Promise<Response> {
  if (!deps.config.oidc) throw new DomainError("NOT_FOUND", "Single sign-on is not configured here");
  const url = new URL(request.url);
  const cleared = flowCookie(request, "", 0);
  const client = clientOf(deps, request);
  try {
    if (url.searchParams.get("error")) throw new SsoError("provider", `The provider said: ${url.searchParams.get("error")}`);
    const started = await finishSingleSignOn(deps, url, cookieOf(request, FLOW_COOKIE), client, requestMeta(request).requestId);
    const s = started.session;
    const actor = personActor(s);
    if (actor) {
      await recordAudit(deps, {
        actor,
        projectId: null,
        transport: "console",
        verb: "session.signInWithSso",
        input: { email: s.user?.email, issuer: deps.config.oidc.issuer },
        outcome: "ok",
        ...client,
        requestId: requestMeta(request).requestId,
      });
    }
    return redirect("/", [cleared, sessionCookie(request, started.token, deps.config.sessionMaxMs)]);
  } catch (err) {
    if (err instanceof SsoError) {
      deps.logger.info("single sign-on refused", { reason: err.reason, message: err.message });
      return redirect(`/?sso_error=${err.reason}`, [cleared]);
    }
    deps.logger.error("single sign-on failed", errorFields(err));
    return redirect("/?sso_error=provider", [cleared]);
  }
}
