import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { users } from "../../src/db/schema";
import { firstOwnerLink } from "../../src/domain/teams";
import { createTestApp, type TestApp } from "../helpers/app";
import { startOidcProvider, type TestOidcProvider } from "../helpers/oidc-provider";
import { consoleClient } from "../helpers/trpc";

// Which account a single sign-on lands in, through the whole redirect flow against a real OpenID
// provider (test/helpers/oidc-provider.ts): an existing account is linked by email only when the
// provider says email_verified: true and the account has no identity yet; a link never changes by
// a sign-in, only by an owner removing it; links and refusals are in the organisation's audit log.
const HONE = "http://hone.test";
const PASSWORD = "a long password 123";
let t: TestApp;
let idp: TestOidcProvider;
let owner: ReturnType<typeof consoleClient>;
let issuer = "";

beforeAll(async () => {
  idp = await startOidcProvider({ redirectUri: `${HONE}/auth/oidc/callback` });
  issuer = idp.issuer;
  t = await createTestApp({
    env: {
      HONE_PUBLIC_URL: HONE,
      HONE_OIDC_ISSUER: idp.issuer,
      HONE_OIDC_CLIENT_ID: idp.clientId,
      HONE_OIDC_CLIENT_SECRET: idp.clientSecret,
      HONE_OIDC_DEFAULT_ROLE: "member",
    },
  });
  owner = consoleClient(t);
  const link = (await firstOwnerLink(t.deps))!;
  await owner.client.session.acceptInvitation.mutate({ token: link.split("#")[1]!, email: "owner@example.com", password: PASSWORD, organizationName: "Acme" });
  // People with a password account, before any single sign-on.
  for (const email of ["ann@example.com", "silent-bob@example.com", "unverified-cy@example.com"]) {
    const inv = await owner.client.team.invite.mutate({ email, role: "member" });
    await consoleClient(t).client.session.acceptInvitation.mutate({ token: inv.url.split("#")[1]!, password: PASSWORD });
  }
}, 60_000);
afterAll(async () => {
  await t?.close();
  await idp?.stop();
});

/** Starts at Hone, signs in at the provider as `login` (its login and consent pages), and returns Hone's answer to the callback. */
async function ssoSignIn(login: string): Promise<{ status: number; location: string; signedIn: boolean }> {
  const start = await t.app.handle(new Request(`${HONE}/auth/oidc/start`));
  expect(start.status).toBe(303);
  const flowCookie = start.headers.getSetCookie()[0]!.split(";")[0]!;
  const jar = new Map<string, string>();
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
  let url = new URL(start.headers.get("location")!);
  let body: URLSearchParams | null = null;
  for (let hop = 0; hop < 20 && !url.href.startsWith(HONE); hop++) {
    const res: Response = await fetch(url, {
      method: body ? "POST" : "GET",
      redirect: "manual",
      headers: { cookie: cookie(), ...(body ? { "content-type": "application/x-www-form-urlencoded" } : {}) },
      body,
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(";");
      const eqAt = pair!.indexOf("=");
      jar.set(pair!.slice(0, eqAt), pair!.slice(eqAt + 1));
    }
    body = null;
    if (res.status >= 300 && res.status < 400) {
      url = new URL(res.headers.get("location")!, url);
      continue;
    }
    const html: string = await res.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    if (!action) throw new Error(`the provider answered ${res.status} without a form: ${html.slice(0, 300)}`);
    url = new URL(action.replaceAll("&amp;", "&"), url);
    body = html.includes('name="login"')
      ? new URLSearchParams({ prompt: "login", login, password: "any password" })
      : new URLSearchParams({ prompt: "consent" });
  }
  const callback = await t.app.handle(new Request(url, { headers: { cookie: flowCookie } }));
  return {
    status: callback.status,
    location: callback.headers.get("location") ?? "",
    signedIn: callback.headers.getSetCookie().some((c) => c.startsWith("hone_session=") && !c.startsWith("hone_session=;")),
  };
}

const subjectOf = async (email: string) => (await t.deps.database.db.select({ s: users.oidcSubject }).from(users).where(eq(users.email, email)))[0]?.s;
const userIdOf = async (email: string) => (await t.deps.database.db.select({ id: users.id }).from(users).where(eq(users.email, email)))[0]!.id;

/** The organisation's audit log as its owner reads it, oldest first, for one verb. */
async function auditOf(verb: string, email: string) {
  const page = await owner.client.team.auditLog.query({ filter: { verb } });
  return page.events.filter((e) => (e.summary as { email?: string } | null)?.email === email).reverse();
}

describe("single sign-on links accounts only on a verified email, and never re-links them", () => {
  test("email_verified: true links the existing password account once, and audits it", async () => {
    expect(await subjectOf("ann@example.com")).toBeNull();
    const res = await ssoSignIn("ann");
    expect(res).toMatchObject({ status: 303, location: "/", signedIn: true });
    expect(await subjectOf("ann@example.com")).toBe(`${issuer} ann`);
    const links = await auditOf("session.ssoLink", "ann@example.com");
    expect(links).toHaveLength(1);
    expect(links[0]).toMatchObject({
      action: "session.ssoLink",
      outcome: "ok",
      actorType: "system",
      resourceId: await userIdOf("ann@example.com"),
      summary: { email: "ann@example.com", subject: "ann", emailVerified: true, account: "existing" },
    });
    // Signing in again by the same identity makes no new link.
    expect(await ssoSignIn("ann")).toMatchObject({ location: "/", signedIn: true });
    expect(await auditOf("session.ssoLink", "ann@example.com")).toHaveLength(1);
  }, 60_000);

  test("another identity with the email of a linked account is refused; the link stays", async () => {
    // Same email, another subject: someone who got an identity at the provider showing ann's email.
    const res = await ssoSignIn("ann@example.com");
    expect(res).toMatchObject({ status: 303, location: "/?sso_error=linked-elsewhere", signedIn: false });
    expect(await subjectOf("ann@example.com")).toBe(`${issuer} ann`);
    const refused = await auditOf("session.ssoRefused", "ann@example.com");
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({
      outcome: "error",
      resourceId: await userIdOf("ann@example.com"),
      summary: { subject: "ann@example.com", reason: "linked-elsewhere", error: "FORBIDDEN" },
    });
    // The rightful identity still signs in.
    expect(await ssoSignIn("ann")).toMatchObject({ location: "/", signedIn: true });
  }, 60_000);

  test("no email_verified claim (as Entra ID sends) does not link an existing account", async () => {
    const res = await ssoSignIn("silent-bob");
    expect(res).toMatchObject({ status: 303, location: "/?sso_error=link-unverified", signedIn: false });
    expect(await subjectOf("silent-bob@example.com")).toBeNull();
    const refused = await auditOf("session.ssoRefused", "silent-bob@example.com");
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({ outcome: "error", summary: { emailVerified: null, reason: "link-unverified" } });
    // The password still signs in.
    const bob = consoleClient(t);
    expect((await bob.client.session.signInWithPassword.mutate({ email: "silent-bob@example.com", password: PASSWORD })).user?.email).toBe(
      "silent-bob@example.com",
    );
  }, 60_000);

  test("email_verified: false is refused and audited", async () => {
    const res = await ssoSignIn("unverified-cy");
    expect(res).toMatchObject({ status: 303, location: "/?sso_error=unverified", signedIn: false });
    expect(await subjectOf("unverified-cy@example.com")).toBeNull();
    const refused = await auditOf("session.ssoRefused", "unverified-cy@example.com");
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({ outcome: "error", summary: { emailVerified: false, reason: "unverified" } });
  }, 60_000);

  test("a new person is still provisioned by single sign-on, even without the claim, and audited", async () => {
    const res = await ssoSignIn("silent-newcomer");
    expect(res).toMatchObject({ status: 303, location: "/", signedIn: true });
    expect(await subjectOf("silent-newcomer@example.com")).toBe(`${issuer} silent-newcomer`);
    const members = await owner.client.team.members.query();
    expect(members.find((m) => m.email === "silent-newcomer@example.com")).toMatchObject({ role: "member", sso: true });
    const links = await auditOf("session.ssoLink", "silent-newcomer@example.com");
    expect(links).toHaveLength(1);
    expect(links[0]).toMatchObject({ outcome: "ok", summary: { account: "new", emailVerified: null } });
  }, 60_000);

  test("after an owner removes the link, the next verified identity links, and that is audited", async () => {
    const annId = await userIdOf("ann@example.com");
    const member = await owner.client.team.unlinkSso.mutate({ userId: annId });
    expect(member).toMatchObject({ email: "ann@example.com", sso: false });
    expect(await subjectOf("ann@example.com")).toBeNull();
    const unlinked = await owner.client.team.auditLog.query({ filter: { verb: "team.unlinkSso" } });
    expect(unlinked.events[0]).toMatchObject({ actor: "owner@example.com", outcome: "ok", resourceId: annId });
    expect(await ssoSignIn("ann@example.com")).toMatchObject({ location: "/", signedIn: true });
    expect(await subjectOf("ann@example.com")).toBe(`${issuer} ann@example.com`);
    expect(await auditOf("session.ssoLink", "ann@example.com")).toHaveLength(2);
    // And the old identity is now the one refused.
    expect(await ssoSignIn("ann")).toMatchObject({ location: "/?sso_error=linked-elsewhere", signedIn: false });
    expect(await subjectOf("ann@example.com")).toBe(`${issuer} ann@example.com`);
  }, 60_000);

  test("only an owner removes a link", async () => {
    const inv = await owner.client.team.invite.mutate({ email: "adam@example.com", role: "admin" });
    const admin = consoleClient(t);
    await admin.client.session.acceptInvitation.mutate({ token: inv.url.split("#")[1]!, password: PASSWORD });
    const annId = await userIdOf("ann@example.com");
    await expect(admin.client.team.unlinkSso.mutate({ userId: annId })).rejects.toThrow(/owner/i);
    expect(await subjectOf("ann@example.com")).toBe(`${issuer} ann@example.com`);
  }, 60_000);
});
