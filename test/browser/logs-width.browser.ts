import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { type Browser, type Hone, closeAll, launchBrowser, shot, signedInPage, startHone } from "./harness";

// The logs table at 1400 px gives its free width to the text (the Input and Output previews), not
// to Tags; a failed call's row previews its error where an answer would be; the drawer names the
// price a cost was reckoned with once.

let hone: Hone;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  [hone, browser] = await Promise.all([startHone({ seed: 120 }), launchBrowser()]);
  ({ page } = await signedInPage(browser, hone, { width: 1400, height: 900 }));
}, 180_000);
afterAll(() => closeAll(browser, hone));

const headerWidth = (name: string) =>
  page
    .locator("thead th")
    .filter({ hasText: new RegExp(`^${name}$`) })
    .evaluate((el) => el.getBoundingClientRect().width);

describe("the logs table's width", () => {
  test("Input and Output take the free width: the minor columns wait until they have room", async () => {
    await page.goto(`${hone.url}/logs`);
    await page.locator("tbody tr").first().waitFor();
    await shot(page, "logs-width-1400");
    const input = await headerWidth("Input");
    const output = await headerWidth("Output");
    expect(input).toBeGreaterThanOrEqual(180);
    expect(output).toBeGreaterThanOrEqual(180);
    expect(input).toBeGreaterThan(await headerWidth("Tags"));
    // At 1400 px the token counts wait; wide, they come, and the previews still take the rest.
    expect(await page.locator("thead th").filter({ hasText: /^In$/ }).count()).toBe(0);
    await page.setViewportSize({ width: 1900, height: 900 });
    await page.locator("thead th").filter({ hasText: /^In$/ }).waitFor();
    expect(await headerWidth("Input")).toBeGreaterThan(2 * (await headerWidth("Tags")));
    await page.setViewportSize({ width: 1400, height: 900 });
    await shot(page, "logs-width-1400");
  });

  test("a failed call's row shows its error in the Output column", async () => {
    await page.goto(`${hone.url}/logs`);
    const err = page.getByTestId("output-error").first();
    await err.waitFor();
    const id = await err.locator("xpath=ancestor::tr[1]").getAttribute("data-log-id");
    const log = await hone.trpc<{ statusCode: number; errorMessage: string }>("logs.get", { id });
    expect(log.statusCode).toBeGreaterThanOrEqual(400);
    expect(await err.textContent()).toBe(log.errorMessage);
  });

  test("the drawer names the price once", async () => {
    await page.goto(`${hone.url}/logs`);
    const priced = await hone.trpc<{ logs: { id: string; priceVersion: string | null }[] }>("logs.list", { first: 50 });
    const { id, priceVersion } = priced.logs.find((l) => l.priceVersion)!;
    await page.locator(`tbody tr[data-log-id="${id}"]`).click();
    const drawer = page.getByRole("dialog");
    await drawer.getByText("Log id").waitFor();
    const text = (await drawer.textContent()) ?? "";
    expect(text.split(priceVersion!).length - 1).toBe(1);
  });
});
