import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { waitFor } from "../helpers/wait-for";
import { type Browser, closeAll, type Hone, launchBrowser, setColorScheme, shot, startHone } from "./harness";

// The console on a phone (390 x 844): no page scrolls sideways, every action of the header (the
// switchers, the theme, Sign out) is in the navigation drawer, and the logs page shows rows on its
// first screen (its filters folded behind a button). Signed in as the first owner, whose header
// holds the most (organisation, project switcher, New project, the badge).
let hone: Hone;
let browser: Browser;
let page: Page;
const errors: string[] = [];
const PHONE = { width: 390, height: 844 };
const PASSWORD = "phone owner password 1234";

const PAGES = [
  ["/logs", "Request logs"],
  ["/usage", "Usage"],
  ["/limits", "limits"],
  ["/datasets", "Datasets"],
  ["/monitors", "Monitors"],
  ["/models", "Models"],
  ["/routes", "Routes"],
  ["/criteria", "Criteria"],
  ["/evaluations", "Evaluations"],
  ["/playground", "Playground"],
  ["/settings", "Settings"],
  ["/members", "Members"],
  ["/audit", "Audit log"],
  ["/account", "My account"],
] as const;

beforeAll(async () => {
  [hone, browser] = await Promise.all([startHone({ seed: 40 }), launchBrowser()]);
  page = await (await browser.newContext()).newPage();
  page.on("pageerror", (e) => errors.push(String(e)));
  // The first owner, from the link printed at start.
  const token = /hone_inv_[A-Za-z0-9]+/.exec(hone.server.output())?.[0];
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${hone.url}/invite#${token}`);
  await page.getByLabel("Email").fill("pia@example.com");
  await page.getByLabel("Organisation name").fill("Phone & Co");
  await page.getByLabel("Your name").fill("Pia");
  await page.getByLabel("Choose a password").fill(PASSWORD);
  await page.getByRole("button", { name: "Create owner and sign in" }).click();
  await page.getByTestId("user-badge").waitFor();
  await page.setViewportSize(PHONE);
}, 180_000);
afterAll(async () => {
  await closeAll(browser, hone);
});

/** How far the page reaches past the window's right edge (0: it does not scroll sideways), and the widest culprit. */
const overflowOf = (p: Page) =>
  p.evaluate(() => {
    const doc = document.scrollingElement ?? document.documentElement;
    const over = doc.scrollWidth - window.innerWidth;
    let culprit = "";
    if (over > 0) {
      // The widest element past the edge that no scrolling or clipping box around it holds in.
      const clipped = (el: Element) => {
        for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
          const o = getComputedStyle(a).overflowX;
          if (o !== "visible" && a.getBoundingClientRect().right <= window.innerWidth) return true;
        }
        return false;
      };
      let widest = window.innerWidth;
      for (const el of document.querySelectorAll("body *")) {
        const r = el.getBoundingClientRect();
        if (r.right > widest && r.width > 0 && !clipped(el)) {
          widest = r.right;
          culprit = `${el.tagName.toLowerCase()}.${String(el.className).slice(0, 60)} "${(el.textContent ?? "").slice(0, 40)}" right=${Math.round(r.right)}`;
        }
      }
    }
    return { over, culprit };
  });

describe("the console on a phone", () => {
  test("no page scrolls sideways, light and dark", async () => {
    const wide: string[] = [];
    for (const scheme of ["light", "dark"] as const) {
      await setColorScheme(page, scheme);
      for (const [path, title] of PAGES) {
        await page.goto(`${hone.url}${path}`);
        const heading = page.locator("main h2").first();
        await heading.waitFor();
        expect(await heading.textContent()).toContain(title);
        // Lists load after the heading: their rows can widen the page.
        await page.waitForLoadState("networkidle");
        const { over, culprit } = await overflowOf(page);
        if (over > 0) wide.push(`${path} (${scheme}): ${over} px too wide: ${culprit}`);
        await shot(page, `phone${path.replaceAll("/", "-")}${scheme === "dark" ? "-dark" : ""}`);
      }
    }
    expect(wide).toEqual([]);
  }, 180_000);

  test("the header's actions are in the navigation drawer: the project, the theme, Sign out", async () => {
    await setColorScheme(page, "light");
    await page.goto(`${hone.url}/usage`);
    await page.getByRole("heading", { name: "Usage", exact: true }).waitFor();
    // In the header only what fits: the menu, the name, the project.
    const header = page.getByRole("banner");
    expect(await header.getByRole("button", { name: "Sign out" }).count()).toBe(0);
    expect(await header.getByTestId("header-project").textContent()).toBe("default");
    await page.getByRole("button", { name: "Toggle navigation" }).click();
    const nav = page.getByRole("navigation", { name: "Sections" });
    const signOut = nav.getByRole("button", { name: "Sign out" });
    await signOut.waitFor();
    // The drawer slides in; then every control of the header is inside the window.
    for (const control of [signOut, nav.getByRole("button", { name: "Toggle color scheme" }), nav.getByRole("combobox", { name: "Project" })]) {
      const box = await waitFor(() => control.boundingBox(), {
        until: (b) => b !== null && b.x >= 0,
        message: (b) => `a control of the drawer inside the window, at ${JSON.stringify(b)}`,
      });
      expect(box.x + box.width).toBeLessThanOrEqual(PHONE.width);
      expect(box.y + box.height).toBeLessThanOrEqual(PHONE.height);
    }
    expect(await nav.getByTestId("user-badge").textContent()).toBe("Pia · owner");
    await shot(page, "phone-drawer");
    await nav.getByRole("button", { name: "Toggle color scheme" }).click();
    await page.waitForFunction(() => document.documentElement.getAttribute("data-mantine-color-scheme") === "dark");
    await shot(page, "phone-drawer-dark");
    await nav.getByRole("button", { name: "Toggle color scheme" }).click();
    await signOut.click();
    await page.getByRole("button", { name: "Sign in with password" }).waitFor();
    // Back in, for the logs.
    await page.getByLabel("Email").fill("pia@example.com");
    await page.getByLabel(/^Password/).fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in with password" }).click();
    await page.getByTestId("user-badge").first().waitFor({ state: "attached" });
  });

  test("the logs page shows rows on its first screen; the filters open behind a button", async () => {
    await page.goto(`${hone.url}/logs`);
    const firstRow = page.locator("tbody tr[data-log-id]").first();
    await firstRow.waitFor();
    const box = await firstRow.boundingBox();
    expect(box).not.toBeNull();
    expect(box!.y + box!.height).toBeLessThanOrEqual(PHONE.height);
    expect(await page.getByLabel("Search", { exact: true }).isVisible()).toBe(false);
    await page.getByRole("button", { name: /^Filters/ }).click();
    await page.getByLabel("Search", { exact: true }).waitFor();
    await shot(page, "phone-logs-filters");
    const { over } = await overflowOf(page);
    expect(over).toBeLessThanOrEqual(0);
    expect(errors).toEqual([]);
  });

  test("and at 1400 x 900, light and dark: no page scrolls sideways (screenshots of every page at both sizes)", async () => {
    await page.setViewportSize({ width: 1400, height: 900 });
    const wide: string[] = [];
    for (const scheme of ["light", "dark"] as const) {
      await setColorScheme(page, scheme);
      for (const [path, title] of PAGES) {
        await page.goto(`${hone.url}${path}`);
        const heading = page.locator("main h2").first();
        await heading.waitFor();
        expect(await heading.textContent()).toContain(title);
        await page.waitForLoadState("networkidle");
        const { over, culprit } = await overflowOf(page);
        if (over > 0) wide.push(`${path} (${scheme}): ${over} px too wide: ${culprit}`);
        await shot(page, `desktop${path.replaceAll("/", "-")}${scheme === "dark" ? "-dark" : ""}`);
      }
    }
    await setColorScheme(page, "light");
    await page.setViewportSize(PHONE);
    expect(wide).toEqual([]);
    expect(errors).toEqual([]);
  }, 180_000);
});
