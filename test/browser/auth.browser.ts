import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { BrowserContext, Page } from "playwright-core";
import { ADMIN_TOKEN, type Browser, type Hone, launchBrowser, PROJECT2_NAME, pageQuery, shot, signIn, startHone, closeAll } from "./harness";

// Signing in to the console, signing out, sessions that end, and what the browser keeps.
const SECTIONS = ["Logs", "Usage", "Datasets", "Models", "Criteria", "Evaluations", "Playground", "Settings"];
const ENDED = "Your session has ended";

let hone: Hone;
let browser: Browser;

beforeAll(async () => {
  [hone, browser] = await Promise.all([startHone(), launchBrowser()]);
}, 120_000);
afterAll(() => closeAll(browser, hone));

/** A page in a context of its own (own cookies), closed with the context. */
async function freshPage(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext();
  return { context, page: await context.newPage() };
}

const sessionCookie = async (context: BrowserContext) => (await context.cookies()).find((c) => c.name === "hone_session");

describe("console sign-in", () => {
  test("the harness seeded a few hundred calls over the gateway and both report routes", () => {
    const s = hone.seeded!;
    expect(s.logs).toBe(s.sent.total);
    expect(s.sent.total).toBe(300);
    expect(s.bySource).toEqual({ gateway: s.sent.gateway, report: s.sent.report, "report-anthropic": s.sent.reportAnthropic });
    // Models are stored as provider:model (a bare name is openai:).
    expect(Object.keys(s.byModel).sort()).toEqual([
      "anthropic:claude-3-5-haiku-latest",
      "anthropic:claude-3-5-sonnet-20241022",
      "openai:gpt-4o",
      "openai:gpt-4o-mini",
    ]);
    expect(Object.keys(s.byStatus).sort()).toEqual(["200", "400", "429", "500", "502"]);
    expect(Object.keys(s.byPromptId).sort()).toEqual(["p1", "p2", "p3", "p4", "p5"]);
    expect(Object.keys(s.byUser)).toHaveLength(20);
    expect(s.cacheHits).toBe(4);
    expect(s.totalTokens).toBeGreaterThan(0);
    expect(s.costUsd).toBeGreaterThan(0);
    expect(s.project2.logs).toBe(4);
  });

  test("signed out, / shows the sign-in form", async () => {
    const { context, page } = await freshPage();
    try {
      // A first load asks for the logs before the session is known: refused, quietly.
      const logsRefused = page.waitForResponse((r) => r.url().includes("/trpc/logs.list"));
      await page.goto(hone.url);
      expect((await logsRefused).status()).toBe(401);
      await expect(page.getByLabel("API key").getAttribute("type")).resolves.toBe("password");
      expect(await page.getByRole("button", { name: "Sign in", exact: true }).isVisible()).toBe(true);
      expect(await page.getByRole("link", { name: "Logs" }).count()).toBe(0);
      // Nobody was signed in: no "session ended", just the form.
      expect(await page.getByText(ENDED).count()).toBe(0);
      await shot(page, "sign-in");
    } finally {
      await context.close();
    }
  });

  test("a bad key is refused with an alert and no cookie", async () => {
    const { context, page } = await freshPage();
    try {
      await page.goto(hone.url);
      await page.getByLabel("API key").fill("hone_sk_thisisnotakeythisisnotakey0000");
      await page.getByRole("button", { name: "Sign in", exact: true }).click();
      const alert = page.getByRole("alert").filter({ hasText: /Invalid API key|API key/i });
      await alert.waitFor();
      expect(await alert.textContent()).toMatch(/invalid/i);
      // A bad key is not a session that ended: the form stays, with the key typed in.
      expect(await page.getByRole("heading", { name: ENDED }).count()).toBe(0);
      expect(await page.getByLabel("API key").isVisible()).toBe(true);
      expect(await sessionCookie(context)).toBeUndefined();
      expect(await page.getByRole("button", { name: "Sign out" }).count()).toBe(0);
    } finally {
      await context.close();
    }
  });

  test("sign in: the shell, the project and key in the header; the key is not kept; sign out ends the session", async () => {
    const { context, page } = await freshPage();
    try {
      await signIn(page, hone.url, hone.project.apiKey);
      const nav = page.getByRole("navigation", { name: "Sections" });
      for (const name of SECTIONS) expect(await nav.getByRole("link", { name, exact: true }).isVisible()).toBe(true);
      const header = page.getByRole("banner");
      expect(await header.textContent()).toContain(hone.project.name);
      const me = await pageQuery(page, "session.me");
      expect(me.status).toBe(200);
      expect(me.body.result.data.project).toEqual({ id: hone.project.id, name: hone.project.name });
      expect(me.body.result.data.admin).toBe(false);
      const keyLabel = me.body.result.data.key.name ?? me.body.result.data.key.prefix;
      expect(await header.textContent()).toContain(keyLabel);
      await shot(page, "shell");

      // The theme toggle flips Mantine's color scheme.
      const scheme = () => page.evaluate(() => document.documentElement.getAttribute("data-mantine-color-scheme"));
      const before = await scheme();
      await page.getByRole("button", { name: "Toggle color scheme" }).click();
      await page.waitForFunction((b) => document.documentElement.getAttribute("data-mantine-color-scheme") !== b, before);
      await page.getByRole("button", { name: "Toggle color scheme" }).click();
      await page.waitForFunction((b) => document.documentElement.getAttribute("data-mantine-color-scheme") === b, before);

      // The key is nowhere the page's script can read; the session cookie is HttpOnly and Strict.
      const stored = await page.evaluate(() => {
        const dump = (s: Storage) => Array.from({ length: s.length }, (_, i) => `${s.key(i)}=${s.getItem(s.key(i)!)}`).join("\n");
        return { local: dump(localStorage), session: dump(sessionStorage), cookie: document.cookie };
      });
      for (const where of Object.values(stored)) {
        expect(where).not.toContain(hone.project.apiKey);
        expect(where).not.toContain("hone_sk_");
      }
      expect(stored.cookie).not.toContain("hone_session");
      const cookie = await sessionCookie(context);
      expect(cookie).toBeDefined();
      expect(cookie!.httpOnly).toBe(true);
      expect(cookie!.sameSite).toBe("Strict");
      expect(cookie!.value).not.toContain(hone.project.apiKey);

      // Sign out: back to the sign-in form, still there after a reload, and the old cookie is dead.
      await page.getByRole("button", { name: "Sign out" }).click();
      await page.getByLabel("API key").waitFor();
      await page.reload();
      await page.getByLabel("API key").waitFor();
      expect(await page.getByRole("button", { name: "Sign out" }).count()).toBe(0);
      const old = await fetch(`${hone.url}/trpc/session.me`, { headers: { cookie: `hone_session=${cookie!.value}`, "x-hone-console": "1" } });
      expect(old.status).toBe(401);
      expect(await sessionCookie(context)).toBeUndefined();
    } finally {
      await context.close();
    }
  });

  test("a key created and then revoked through the API: the browser shows the ended page, the gateway 401", async () => {
    const created = await hone.trpc<{ apiKey: string; key: { id: string; name: string } }>(
      "apiKeys.create",
      { name: "browser revoke test" },
      { mutation: true },
    );
    const { context, page } = await freshPage();
    try {
      await signIn(page, hone.url, created.apiKey);
      expect(await page.getByRole("banner").textContent()).toContain("browser revoke test");
      await hone.trpc("apiKeys.revoke", { id: created.key.id }, { mutation: true });
      // The next action (a reload: session.me, the one data request every page makes today).
      await page.reload();
      await page.getByRole("heading", { name: ENDED }).waitFor();
      const gateway = await fetch(`${hone.url}/api/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${created.apiKey}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }),
      });
      expect(gateway.status).toBe(401);
      // The bootstrap key, which signed nothing in, still works.
      expect((await hone.trpc<any[]>("apiKeys.list")).find((k) => k.id === created.key.id)?.revokedAt).toBeTruthy();
    } finally {
      await context.close();
    }
  });

  test("project 2's key sees project 2 only", async () => {
    const s = hone.seeded!;
    const { context, page } = await freshPage();
    try {
      await signIn(page, hone.url, hone.project2.apiKey);
      expect(await page.getByRole("banner").textContent()).toContain(PROJECT2_NAME);
      const me = await pageQuery(page, "session.me");
      expect(me.body.result.data.project).toEqual({ id: hone.project2.id, name: PROJECT2_NAME });

      // Through the cookie, the data API answers with project 2's logs only.
      const logs = await pageQuery(page, "logs.list", { first: 200 });
      expect(logs.status).toBe(200);
      const models = new Set(logs.body.result.data.logs.map((l: any) => l.model));
      expect(logs.body.result.data.logs).toHaveLength(s.project2.logs);
      expect([...models].sort()).toEqual([...s.project2.models].sort());

      // The Logs page never shows project 1's models or prompt ids.
      await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Logs", exact: true }).click();
      await page.waitForLoadState("networkidle");
      const text = await page.locator("body").textContent();
      for (const model of Object.keys(s.byModel)) expect(text).not.toContain(model);
      for (const tag of Object.keys(s.byPromptId)) expect(text).not.toMatch(new RegExp(`\\b${tag}\\b`));
      expect(text).not.toContain("Order question");
    } finally {
      await context.close();
    }
  });

  test("the admin token signs in with a project switcher", async () => {
    const { context, page } = await freshPage();
    try {
      await signIn(page, hone.url, ADMIN_TOKEN);
      expect(await page.getByLabel("Project").first().isVisible()).toBe(true);
      const me = await pageQuery(page, "session.me");
      expect(me.body.result.data.admin).toBe(true);
      expect(await page.getByRole("banner").textContent()).not.toContain(ADMIN_TOKEN);
    } finally {
      await context.close();
    }
  });
});

describe("an idle session", () => {
  let short: Hone;
  beforeAll(async () => {
    short = await startHone({ seed: 0, sessionIdleMs: 2_000 });
  }, 60_000);
  afterAll(async () => {
    await short?.stop();
  });

  test("ends after HONE_SESSION_IDLE_MS: the next action shows the ended page, then signing in again works", async () => {
    const { context, page } = await freshPage();
    try {
      await signIn(page, short.url, short.project.apiKey);
      await Bun.sleep(3_000);
      await page.reload();
      await page.getByRole("heading", { name: ENDED }).waitFor();
      await shot(page, "session-ended");
      await page.getByRole("button", { name: "Sign in again" }).click();
      await page.getByLabel("API key").fill(short.project.apiKey);
      await page.getByRole("button", { name: "Sign in", exact: true }).click();
      await page.getByRole("button", { name: "Sign out" }).waitFor();
    } finally {
      await context.close();
    }
  });
});
