import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { startOidcProvider, type TestOidcProvider } from "../helpers/oidc-provider";
import { type Browser, closeAll, type Hone, launchBrowser, shot, startHone } from "./harness";

// Single sign-on through the whole redirect flow in Chromium, against a real OpenID provider
// (oidc-provider) started here: a person provisioned on first sign-in with the configured role,
// then the failure paths (a forged state, a tampered nonce, a domain not allowed, a disabled user).
let hone: Hone;
let browser: Browser;
let idp: TestOidcProvider;
let base = "";
let ownerCookie = "";

const trpcAsOwner = async (path: string, input: unknown, mutation = true) => {
  const headers = { "x-hone-console": "1", "content-type": "application/json", cookie: ownerCookie };
  const res = mutation
    ? await fetch(`${base}/trpc/${path}`, { method: "POST", headers, body: JSON.stringify(input) })
    : await fetch(`${base}/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`, { headers });
  const body = (await res.json()) as any;
  if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
  return body.result.data;
};

beforeAll(async () => {
  const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = probe.port;
  probe.stop(true);
  base = `http://127.0.0.1:${port}`;
  idp = await startOidcProvider({ redirectUri: `${base}/auth/oidc/callback` });
  [hone, browser] = await Promise.all([
    startHone({
      seed: 0,
      env: {
        PORT: String(port),
        HOST: "127.0.0.1",
        HONE_PUBLIC_URL: base,
        HONE_OIDC_ISSUER: idp.issuer,
        HONE_OIDC_CLIENT_ID: idp.clientId,
        HONE_OIDC_CLIENT_SECRET: idp.clientSecret,
        HONE_OIDC_ALLOWED_DOMAINS: "example.com",
        HONE_OIDC_DEFAULT_ROLE: "member",
      },
    }),
    launchBrowser(),
  ]);
  // The first owner (and so the organisation people are provisioned into).
  const token = /hone_inv_[A-Za-z0-9]+/.exec(hone.server.output())![0];
  const res = await fetch(`${base}/trpc/session.acceptInvitation`, {
    method: "POST",
    headers: { "x-hone-console": "1", "content-type": "application/json" },
    body: JSON.stringify({ token, email: "owner@example.com", password: "owner password 123", organizationName: "Acme" }),
  });
  expect(res.status).toBe(200);
  ownerCookie = res.headers.getSetCookie()[0]!.split(";")[0]!;
}, 180_000);
afterAll(async () => {
  await closeAll(browser, hone);
  await idp?.stop();
});

async function freshPage(): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  await page.setViewportSize({ width: 1280, height: 800 });
  return page;
}

/** Through the provider's own login and consent pages. */
async function signInAtProvider(page: Page, login: string) {
  await page.goto(base);
  await page.getByRole("link", { name: "Sign in with SSO" }).click();
  await page.waitForURL((u) => u.href.startsWith(idp.issuer));
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill("any password");
  await page.getByRole("button", { name: "Sign-in" }).click();
  const consent = page.getByRole("button", { name: "Continue" });
  // The consent page comes the first time this account signs in to this client.
  await Promise.race([consent.waitFor({ timeout: 10_000 }).then(() => consent.click()), page.waitForURL((u) => u.href.startsWith(base), { timeout: 10_000 })]);
  await page.waitForURL((u) => u.href.startsWith(base));
}

describe("single sign-on", () => {
  test("a person signs in by SSO, is provisioned with the configured role, and signs out", async () => {
    const page = await freshPage();
    await signInAtProvider(page, "sam");
    await page.getByTestId("user-badge").waitFor();
    expect(await page.getByTestId("user-badge").textContent()).toBe("sam · member");
    // The role applies: a member makes datasets but has no audit log.
    await page.goto(`${base}/datasets`);
    await page.getByRole("button", { name: "New dataset" }).waitFor();
    expect(await page.getByRole("link", { name: "Audit log" }).count()).toBe(0);
    await shot(page, "sso-signed-in-member");
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("button", { name: "Sign in with password" }).waitFor();
    // Provisioned once, marked SSO in the members list; the sign-in is audited.
    const members = await trpcAsOwner("team.members", null, false);
    expect(members.find((m: any) => m.email === "sam@example.com")).toMatchObject({ role: "member", sso: true });
    const audit = await trpcAsOwner("team.auditLog", { filter: { verb: "signInWithSso" } }, false);
    expect(audit.events[0]).toMatchObject({ actor: "sam@example.com", action: "session.signInWithSso" });
    await page.context().close();
  });

  test("an email outside HONE_OIDC_ALLOWED_DOMAINS is refused", async () => {
    const page = await freshPage();
    await signInAtProvider(page, "eve@elsewhere.test");
    await page.getByTestId("sso-error").getByText("domain is not allowed").waitFor();
    expect(await page.getByTestId("user-badge").count()).toBe(0);
    await shot(page, "sso-domain-refused");
    await page.context().close();
  });

  test("a forged state is refused", async () => {
    const page = await freshPage();
    await page.goto(`${base}/auth/oidc/callback?code=forged-code&state=forged-state`);
    await page.getByTestId("sso-error").getByText("did not come back to the browser that started it").waitFor();
    await page.context().close();
  });

  test("a tampered nonce is refused", async () => {
    const page = await freshPage();
    // The authorization request leaves with another nonce than Hone chose: the ID token carries
    // that one back. (Hone's redirect is rewritten: a route sees only the first request of a chain.)
    await page.route(`${base}/auth/oidc/start`, async (route) => {
      const response = await route.fetch({ maxRedirects: 0 });
      const location = new URL(response.headers().location!);
      location.searchParams.set("nonce", "tampered-nonce");
      await route.fulfill({ status: 303, headers: { location: location.href, "set-cookie": response.headers()["set-cookie"]! } });
    });
    await signInAtProvider(page, "sam");
    await page.getByTestId("sso-error").getByText("did not match this sign-in (its nonce)").waitFor();
    expect(await page.getByTestId("user-badge").count()).toBe(0);
    await page.context().close();
  });

  test("a disabled person is refused", async () => {
    const members = await trpcAsOwner("team.members", null, false);
    const sam = members.find((m: any) => m.email === "sam@example.com");
    await trpcAsOwner("team.setDisabled", { userId: sam.userId, disabled: true });
    const page = await freshPage();
    await signInAtProvider(page, "sam");
    await page.getByTestId("sso-error").getByText("Your account is disabled").waitFor();
    await shot(page, "sso-disabled");
    await page.context().close();
  });
});
