import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { BrowserContext, Page } from "playwright-core";
import { expectAccessible } from "./a11y";
import { a11yViolations, type Browser, type Hone, launchBrowser, shot, signIn, startHone, closeAll } from "./harness";

// Signed out: the sign-in page says what works to get a key (Settings -> API keys, or the CLI,
// which works while the server runs). Any address the console does not have answers a 404
// page that says so and links to the logs. No serious axe violation on either, light and dark.

let hone: Hone;
let browser: Browser;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  [hone, browser] = await Promise.all([startHone({ seed: 0 }), launchBrowser()]);
  context = await browser.newContext();
  page = await context.newPage();
}, 180_000);
afterAll(() => closeAll(browser, hone));

describe("onboarding and not found", () => {
  test("the sign-in page points to Settings -> API keys, and to the CLI", async () => {
    await page.goto(hone.url);
    const help = page.getByTestId("sign-in-help");
    await help.waitFor();
    const text = (await help.textContent()) ?? "";
    expect(text).toContain("Settings → API keys");
    expect(text).toContain("bootstrap");
    expect(text).toContain("while Hone runs");
    expect(text).toContain("bun run hone keys create");
    await shot(page, "sign-in-onboarding");
    await expectAccessible(page, "sign-in-a11y", () => page.getByRole("button", { name: "Sign in", exact: true }).waitFor());
  });

  test("an unknown address answers the not-found page (404) with a link to the logs, which works", async () => {
    for (const path of ["/nonsense", "/logs/x/y"]) {
      const res = await page.goto(`${hone.url}${path}`);
      expect(res?.status()).toBe(404);
      await page.getByRole("heading", { name: "This page does not exist" }).waitFor();
      expect(await page.locator("code").textContent()).toBe(path);
    }
    await shot(page, "not-found");
    await page.getByRole("link", { name: "Go to the logs" }).click();
    await page.waitForURL(`${hone.url}/logs`);
    // Signed out, the console asks for a key; signed in, the logs.
    await page.getByLabel("API key").waitFor();
    await signIn(page, hone.url, hone.project.apiKey);
    await page.goto(`${hone.url}/settings/nothing-here`);
    await page.getByRole("link", { name: "Go to the logs" }).click();
    await page.getByRole("button", { name: "Sign out" }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/logs");
  });

  test("the not-found page has no serious or critical axe violation, light and dark", async () => {
    const found: string[] = [];
    for (const scheme of ["light", "dark"] as const) {
      // It follows the browser's preference (it has no console script to read the console's choice).
      await page.emulateMedia({ colorScheme: scheme });
      await page.goto(`${hone.url}/nonsense`);
      await page.getByRole("heading", { name: "This page does not exist" }).waitFor();
      for (const v of await a11yViolations(page)) found.push(`${scheme}: ${v.id} ${v.help} at ${v.nodes.join(" | ")}`);
      await shot(page, `not-found-${scheme}`);
    }
    expect(found).toEqual([]);
    await page.emulateMedia({ colorScheme: null });
  });
});
