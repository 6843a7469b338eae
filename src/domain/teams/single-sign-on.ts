import { and, asc, eq, isNull, lt } from "drizzle-orm";
import type * as Oidc from "openid-client";
import { memberships, oidcFlows, organizations, users } from "../../db/schema";
import { type BaseCtx, dbOf } from "../context";
import type { Deps } from "../deps";
import { DomainError } from "../../core/errors";
import { randomBase62 } from "../../lib/ids";
import { errorFields } from "../../core/logger";
import { type StartedSession, startPersonSession } from "../sessions";
import type { ClientInfo } from "./accounts";
import { acceptInvitation } from "./invitations";
import { memberOf } from "./members";
import { organizationOf, publicUrlOf } from "./organization";
import type { Member } from "./schemas";
import { recordAudit } from "../audit";
import { asOrganizationActor, requireRole } from "../projects";

/** How long a sign-in may stay at the provider before its return is refused. */
const FLOW_TTL_MS = 10 * 60_000;
/** A deadline for every request to the provider (discovery, the token exchange). */
const PROVIDER_TIMEOUT_S = 10;

/** Why a single sign-on did not sign anyone in; the console's sign-in page explains each. */
export type SsoFailure =
  | "state"
  | "nonce"
  | "domain"
  | "disabled"
  | "unverified"
  | "provider"
  | "no-organization"
  /** The email's account is linked to another identity at the provider. */
  | "linked-elsewhere"
  /** The email's account exists, and the provider did not say `email_verified: true`. */
  | "link-unverified";

export class SsoError extends Error {
  constructor(
    readonly reason: SsoFailure,
    message: string,
  ) {
    super(message);
  }
}

// openid-client (and jose) are loaded by the first sign-on, not by every server that never uses it.
let loaded: Promise<typeof Oidc> | null = null;
const openidClient = () => (loaded ??= import("openid-client"));

// The provider's configuration, discovered once per process (and again after a failure).
const discovered = new WeakMap<Deps, Promise<Oidc.Configuration>>();

/** Throws NOT_FOUND at once (not as a rejection) when single sign-on is not configured. */
function configurationOf(deps: Deps): Promise<Oidc.Configuration> {
  const settings = deps.config.oidc;
  if (!settings) throw new DomainError("NOT_FOUND", "Single sign-on is not configured (HONE_OIDC_ISSUER, HONE_OIDC_CLIENT_ID)");
  let found = discovered.get(deps);
  if (!found) {
    const insecure = new URL(settings.issuer).protocol === "http:";
    found = openidClient()
      .then((oidc) =>
        oidc.discovery(new URL(settings.issuer), settings.clientId, settings.clientSecret, settings.clientSecret ? undefined : oidc.None(), {
          timeout: PROVIDER_TIMEOUT_S,
          // An http issuer (a provider on the same host, a test) is allowed when configured so.
          ...(insecure ? { execute: [oidc.allowInsecureRequests] } : {}),
        }),
      )
      .then((config) => {
        config.timeout = PROVIDER_TIMEOUT_S;
        return config;
      });
    found.catch(() => discovered.delete(deps));
    discovered.set(deps, found);
  }
  return found;
}

/**
 * A link made or a sign-in refused, in the log of every organisation the account is in (no one is
 * signed in yet to file it under), or in none when there is no account.
 */
async function auditSso(
  deps: Deps,
  client: ClientInfo,
  requestId: string | null,
  verb: string,
  input: Record<string, unknown>,
  userId: string | null,
  outcome: "ok" | "error",
): Promise<void> {
  const orgs = userId
    ? (await deps.database.db.select({ id: memberships.organizationId }).from(memberships).where(eq(memberships.userId, userId))).map((m) => m.id)
    : [];
  for (const organizationId of orgs.length ? orgs : [null]) {
    await recordAudit(deps, {
      actor: { type: "system", job: "single sign-on" },
      projectId: null,
      organizationId,
      transport: "console",
      verb,
      input,
      outcome,
      ...(outcome === "error" ? { error: "FORBIDDEN" } : {}),
      address: client.address,
      userAgent: client.userAgent,
      requestId,
    });
  }
}

const callbackUrl = (deps: Deps) => `${publicUrlOf(deps)}/auth/oidc/callback`;
const hashOf = (s: string) => Bun.SHA256.hash(s, "hex");

/**
 * Starts a sign-in at the provider: the authorization code flow with PKCE, a state and a nonce
 * kept in the database (every process can take the return), bound to this browser by a cookie.
 * Returns where to send the browser and the cookie's value.
 */
export async function startSingleSignOn(deps: Deps, opts: { inviteToken?: string | null } = {}): Promise<{ redirectTo: string; browserToken: string }> {
  const config = await configurationOf(deps).catch((err) => {
    deps.logger.warn("single sign-on: the provider could not be discovered", errorFields(err));
    throw new SsoError("provider", "The identity provider could not be reached");
  });
  const oidc = await openidClient();
  const codeVerifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const browserToken = randomBase62(40);
  const now = deps.clock();
  const db = deps.database.db;
  await db.delete(oidcFlows).where(lt(oidcFlows.expiresAt, now));
  await db.insert(oidcFlows).values({
    state,
    browserHash: hashOf(browserToken),
    codeVerifier,
    nonce,
    inviteToken: opts.inviteToken ?? null,
    expiresAt: new Date(now.getTime() + FLOW_TTL_MS),
  });
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: callbackUrl(deps),
    scope: "openid email profile",
    code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: "S256",
    state,
    nonce,
  });
  return { redirectTo: url.href, browserToken };
}

/**
 * The provider's return: the state must name a flow this browser started, not expired, used once;
 * the code is exchanged (PKCE), the ID token's nonce checked, the email verified and in the
 * allowed domains. The person is found by their provider identity; else the account with the email
 * is linked, only when the provider says `email_verified: true` and the account has no identity
 * yet; else, when no account has the email, one is provisioned into the configured organisation
 * with the configured role (or by the invitation the flow carried). Links and refusals are audited.
 */
export async function finishSingleSignOn(
  deps: Deps,
  currentUrl: URL,
  browserToken: string | null,
  client: ClientInfo,
  requestId: string | null = null,
): Promise<StartedSession> {
  const settings = deps.config.oidc;
  if (!settings) throw new DomainError("NOT_FOUND", "Single sign-on is not configured");
  const oidc = await openidClient();
  const state = currentUrl.searchParams.get("state") ?? "";
  const db = deps.database.db;
  // Single use: the flow is deleted as it is read.
  const [flow] = state.length > 0 && state.length <= 200 ? await db.delete(oidcFlows).where(eq(oidcFlows.state, state)).returning() : [];
  if (!flow || flow.expiresAt <= deps.clock() || !browserToken || flow.browserHash !== hashOf(browserToken)) {
    throw new SsoError("state", "The sign-in's state is unknown, expired, used, or from another browser");
  }
  const config = await configurationOf(deps).catch(() => {
    throw new SsoError("provider", "The identity provider could not be reached");
  });
  let claims: (Oidc.IDToken & Record<string, unknown>) | undefined;
  try {
    const callback = new URL(callbackUrl(deps));
    callback.search = currentUrl.search;
    const tokens = await oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: flow.codeVerifier,
      expectedState: flow.state,
      expectedNonce: flow.nonce,
      idTokenExpected: true,
    });
    claims = tokens.claims();
    // Providers that keep the email out of the ID token give it at the userinfo endpoint.
    if (claims && typeof claims.email !== "string") {
      const info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
      claims = { ...claims, email: info.email, email_verified: info.email_verified, name: claims.name ?? info.name };
    }
  } catch (err) {
    // openid-client names the claim that did not compare in the error's cause.
    const cause = (err as { cause?: { claim?: string; message?: string } }).cause;
    const text = `${(err as Error)?.message ?? err} ${cause?.message ?? ""}`;
    if (cause?.claim === "nonce" || /"nonce"/.test(text)) throw new SsoError("nonce", "The ID token's nonce is not the one this sign-in sent");
    deps.logger.warn("single sign-on: the provider's answer was refused", errorFields(err));
    throw new SsoError("provider", "The identity provider refused the sign-in or its answer was not valid");
  }
  if (!claims) throw new SsoError("provider", "The identity provider sent no ID token");
  const email = typeof claims.email === "string" ? claims.email.trim().toLowerCase() : null;
  const subject = `${claims.iss} ${claims.sub}`;
  const identity = { email, issuer: claims.iss, subject: claims.sub, emailVerified: claims.email_verified ?? null };
  const refuse = async (reason: SsoFailure, message: string, account?: { id: string } | null): Promise<never> => {
    await auditSso(deps, client, requestId, "session.ssoRefused", { ...identity, userId: account?.id ?? null, reason }, account?.id ?? null, "error");
    throw new SsoError(reason, message);
  };
  if (!email || claims.email_verified === false) {
    const [holder] = email ? await db.select({ id: users.id }).from(users).where(eq(users.email, email)) : [];
    await refuse("unverified", "The identity provider did not give a verified email address", holder);
  }
  const domain = email!.split("@")[1] ?? "";
  if (settings.allowedDomains && !settings.allowedDomains.includes(domain)) {
    await refuse("domain", `Email addresses at ${domain} may not sign in here (HONE_OIDC_ALLOWED_DOMAINS)`);
  }
  const name = typeof claims.name === "string" ? claims.name.slice(0, 200) : null;
  let [user] = await db.select().from(users).where(eq(users.oidcSubject, subject));
  let linked: "existing" | "new" | null = null;
  if (!user) {
    const [holder] = await db.select().from(users).where(eq(users.email, email!));
    if (holder) {
      // An email alone proves nothing unless the provider vouches for it, and an account already
      // linked stays with its identity: anyone who can get an identity showing a colleague's
      // email would otherwise take over the colleague's account.
      if (holder.oidcSubject !== null) {
        await refuse("linked-elsewhere", `The account of ${email} is linked to another identity at the provider`, holder);
      }
      if (claims.email_verified !== true) {
        await refuse("link-unverified", `The identity provider did not say that ${email} is verified, so it is not linked to the existing account`, holder);
      }
      if (holder.disabledAt) await refuse("disabled", "This account is disabled", holder);
      // Only while still unlinked: two sign-ins racing for one account cannot both link it.
      [user] = await db
        .update(users)
        .set({ oidcSubject: subject })
        .where(and(eq(users.id, holder.id), isNull(users.oidcSubject)))
        .returning();
      if (!user) await refuse("linked-elsewhere", `The account of ${email} is linked to another identity at the provider`, holder);
      linked = "existing";
    }
  }
  if (user?.disabledAt) await refuse("disabled", "This account is disabled", user);
  if (!user) {
    const id = deps.ids("user");
    [user] = await db.insert(users).values({ id, email: email!, name, oidcSubject: subject, createdAt: deps.clock() }).returning();
    linked = "new";
  }
  const signedIn = user!;
  // Recorded once the account is in its organisation (a new one joins below), so that its owners see it.
  const recordLink = () =>
    linked ? auditSso(deps, client, requestId, "session.ssoLink", { ...identity, userId: signedIn.id, account: linked }, signedIn.id, "ok") : Promise.resolve();
  if (flow.inviteToken) {
    try {
      const started = await acceptInvitation(deps, { token: flow.inviteToken }, client, { ssoUserId: signedIn.id });
      await recordLink();
      return started;
    } catch (err) {
      deps.logger.warn("single sign-on: the invitation could not be accepted", errorFields(err));
    }
  }
  const [member] = await db.select({ org: memberships.organizationId }).from(memberships).where(eq(memberships.userId, signedIn.id)).limit(1);
  if (!member) {
    // Provisioned on first sign-in into the configured organisation (by name), or the oldest.
    const [org] = settings.organization
      ? await db.select({ id: organizations.id }).from(organizations).where(eq(organizations.name, settings.organization)).limit(1)
      : await db.select({ id: organizations.id }).from(organizations).orderBy(asc(organizations.createdAt)).limit(1);
    if (!org) throw new SsoError("no-organization", "No organisation to join yet: the first owner must be created first");
    await db
      .insert(memberships)
      .values({ organizationId: org.id, userId: signedIn.id, role: settings.defaultRole, createdAt: deps.clock() })
      .onConflictDoNothing();
    await recordLink();
    return startPersonSession(deps, db, { userId: signedIn.id, organizationId: org.id, ...client });
  }
  await recordLink();
  return startPersonSession(deps, db, { userId: signedIn.id, ...client });
}

/**
 * An owner removes a member's link to their identity at the provider (the only way a link changes):
 * the next single sign-on with a verified email links whichever identity comes first.
 */
export async function unlinkSingleSignOn(orgCtx: BaseCtx & { projectId?: string }, userId: string): Promise<Member> {
  const ctx = asOrganizationActor(orgCtx);
  requireRole(ctx.actor, "owner", "remove single sign-on links");
  const org = await organizationOf(ctx);
  const [m] = await dbOf(ctx)
    .select({ userId: memberships.userId })
    .from(memberships)
    .where(and(eq(memberships.organizationId, org), eq(memberships.userId, userId)));
  if (!m) throw new DomainError("NOT_FOUND", `Member not found: ${userId}`);
  await dbOf(ctx).update(users).set({ oidcSubject: null }).where(eq(users.id, userId));
  return (await memberOf(ctx, userId))!;
}
