import { asc, eq, lt } from "drizzle-orm";
import type * as Oidc from "openid-client";
import { memberships, oidcFlows, organizations, users } from "../../db/schema";
import type { Deps } from "../../deps";
import { DomainError } from "../../errors";
import { randomBase62 } from "../../ids";
import { errorFields } from "../../logger";
import { type StartedSession, startPersonSession } from "../sessions";
import type { ClientInfo } from "./accounts";
import { acceptInvitation, publicUrlOf } from "./organization";

/** How long a sign-in may stay at the provider before its return is refused. */
const FLOW_TTL_MS = 10 * 60_000;
/** A deadline for every request to the provider (discovery, the token exchange). */
const PROVIDER_TIMEOUT_S = 10;

/** Why a single sign-on did not sign anyone in; the console's sign-in page explains each. */
export type SsoFailure = "state" | "nonce" | "domain" | "disabled" | "unverified" | "provider" | "no-organization";

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
 * allowed domains. The person is found by their provider identity, else linked by email, else
 * provisioned into the configured organisation with the configured role (or by the invitation
 * the flow carried).
 */
export async function finishSingleSignOn(deps: Deps, currentUrl: URL, browserToken: string | null, client: ClientInfo): Promise<StartedSession> {
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
  if (!email || claims.email_verified === false) throw new SsoError("unverified", "The identity provider did not give a verified email address");
  const domain = email.split("@")[1] ?? "";
  if (settings.allowedDomains && !settings.allowedDomains.includes(domain)) {
    throw new SsoError("domain", `Email addresses at ${domain} may not sign in here (HONE_OIDC_ALLOWED_DOMAINS)`);
  }
  const subject = `${claims.iss} ${claims.sub}`;
  const name = typeof claims.name === "string" ? claims.name.slice(0, 200) : null;
  let [user] = await db.select().from(users).where(eq(users.oidcSubject, subject));
  if (!user) {
    [user] = await db.select().from(users).where(eq(users.email, email));
    // The provider vouched for the email: the account that has it is linked to this identity.
    if (user) await db.update(users).set({ oidcSubject: subject }).where(eq(users.id, user.id));
  }
  if (user?.disabledAt) throw new SsoError("disabled", "This account is disabled");
  if (!user) {
    const id = deps.ids("user");
    [user] = await db.insert(users).values({ id, email, name, oidcSubject: subject, createdAt: deps.clock() }).returning();
  }
  if (flow.inviteToken) {
    try {
      return await acceptInvitation(deps, { token: flow.inviteToken }, client, { ssoUserId: user!.id });
    } catch (err) {
      deps.logger.warn("single sign-on: the invitation could not be accepted", errorFields(err));
    }
  }
  const [member] = await db.select({ org: memberships.organizationId }).from(memberships).where(eq(memberships.userId, user!.id)).limit(1);
  if (!member) {
    // Provisioned on first sign-in into the configured organisation (by name), or the oldest.
    const [org] = settings.organization
      ? await db.select({ id: organizations.id }).from(organizations).where(eq(organizations.name, settings.organization)).limit(1)
      : await db.select({ id: organizations.id }).from(organizations).orderBy(asc(organizations.createdAt)).limit(1);
    if (!org) throw new SsoError("no-organization", "No organisation to join yet: the first owner must be created first");
    await db
      .insert(memberships)
      .values({ organizationId: org.id, userId: user!.id, role: settings.defaultRole, createdAt: deps.clock() })
      .onConflictDoNothing();
    return startPersonSession(deps, db, { userId: user!.id, organizationId: org.id, ...client });
  }
  return startPersonSession(deps, db, { userId: user!.id, ...client });
}
