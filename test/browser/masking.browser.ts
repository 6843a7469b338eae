import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { expectAccessible } from "./a11y";
import { type Browser, closeAll, type Hone, launchBrowser, shot, signedInPage, startHone } from "./harness";

// Settings -> Masking: the project's rule set in the console, the try-it box showing what each
// recognizer finds, a call's log showing its placeholders set apart and what was masked (never the
// value), and masking what was stored before the rule, with its progress.

const EMAIL = "ana.planted@example.com";
const CARD = "4111 1111 1111 1111";
const SAY = `Hello, I am ${EMAIL} and my card is ${CARD}.`;

let hone: Hone;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  [hone, browser] = await Promise.all([startHone({ seed: 0, env: { HONE_JOB_POLL_MS: "50" } }), launchBrowser()]);
  ({ page } = await signedInPage(browser, hone, { width: 1400, height: 900 }));
}, 120_000);
afterAll(() => closeAll(browser, hone));

const call = (content: string) =>
  fetch(`${hone.url}/api/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${hone.project.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content }] }),
  });

describe("masking in the console", () => {
  test("set the project's rule; try a text: each value found, its placeholder set apart", async () => {
    // A call made before any rule: stored as sent (masked later below).
    expect((await call(`before the rule: ${SAY}`)).status).toBe(200);
    await page.goto(`${hone.url}/settings?tab=masking`);
    const rule = page.getByTestId("project-rule");
    await rule.getByLabel("Mode").click();
    await page.getByRole("option", { name: /^Mask what is stored/ }).click();
    await rule.getByRole("button", { name: "Save" }).click();
    await page.getByText("Masking for the project: mask_stored").waitFor();
    expect((await hone.trpc<{ scope: string; mode: string }[]>("masking.rules")).map((r) => r.mode)).toEqual(["mask_stored"]);

    await page.getByLabel("A text to try").fill(`${SAY} Key sk-proj-PlantedKey1234567890AbCdEfGhIjKl.`);
    await page.getByRole("button", { name: "Find sensitive data" }).click();
    const result = page.getByTestId("masking-result");
    await result.waitFor();
    expect(await result.getByTestId("masked-text").textContent()).toBe("Hello, I am <EMAIL_1> and my card is <CARD_1>. Key <OPENAI_KEY_1>.");
    expect(await result.locator("[data-placeholder]").count()).toBe(3);
    const counts = await result.locator(".mantine-Badge-root").allTextContents();
    expect(counts.sort()).toEqual(["CARD × 1", "EMAIL × 1", "OPENAI_KEY × 1"]);
    await shot(page, "settings-masking");
    // Each theme after a reload: the box is tried again.
    await expectAccessible(page, "Settings, Masking", async () => {
      await page.getByLabel("A text to try").fill(SAY);
      await page.getByRole("button", { name: "Find sensitive data" }).click();
      await result.waitFor();
    });
  });

  test("a call's log: placeholders set apart in the conversation, what was masked named, the value nowhere", async () => {
    expect((await call(SAY)).status).toBe(200);
    await page.goto(`${hone.url}/logs`);
    await page.locator("tbody tr[data-log-id]").first().click();
    const masking = page.getByTestId("log-masking");
    await masking.waitFor();
    expect(await masking.textContent()).toContain("masked in what Hone stores");
    await masking.getByText("EMAIL × 1").waitFor();
    await page.locator("[data-placeholder]", { hasText: "<EMAIL_1>" }).first().waitFor();
    expect(await page.getByRole("dialog").textContent()).not.toContain(EMAIL);
    await shot(page, "log-masked");
    // "Only calls with masked data": this one, not the call from before the rule.
    await page.goto(`${hone.url}/logs?masked=1`);
    await page.locator("tbody tr[data-log-id]").first().waitFor();
    expect(await page.locator("tbody tr[data-log-id]").count()).toBe(1);
  });

  test("mask what was stored before: its progress, then no planted value in the logs", async () => {
    await page.goto(`${hone.url}/settings?tab=masking`);
    await page.getByRole("button", { name: "Mask what is already stored" }).click();
    const progress = page.getByTestId("masking-backfill");
    await progress.getByText("Masking stored data: done").waitFor({ timeout: 20_000 });
    // Both logs read; the one from before the rule held values (the other was masked when stored).
    expect(await progress.textContent()).toMatch(/2 of 2 read \(\w+\); 1 held something to mask/);
    // What was masked in the last 7 days, by kind (the page read again): both logs hold one e-mail and one card.
    await page.reload();
    const usage = page.getByTestId("masked-usage");
    await usage.getByText("EMAIL", { exact: true }).waitFor();
    const rows = await usage.locator("tbody tr").evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent?.trim())));
    expect(rows).toEqual([
      ["CARD", "2", "2"],
      ["EMAIL", "2", "2"],
    ]);
    await shot(page, "settings-masking-usage");
    const logs = await hone.trpc<{ logs: { id: string }[] }>("logs.list", { filter: { search: "ana.planted" }, first: 10 });
    expect(logs.logs).toHaveLength(0);
    await shot(page, "settings-masking-backfill");
  });
});

describe("a recognizer of the project's own", () => {
  test("refused with the reason when it could hang; added when safe; the try box then finds its values", async () => {
    await page.goto(`${hone.url}/settings?tab=masking`);
    const own = page.getByTestId("own-recognizers");
    await own.waitFor();
    await page.getByLabel("Kind", { exact: true }).fill("CUSTOMER_ID");
    await page.getByLabel("Pattern").fill("(\\w+\\s?)+$");
    await page.getByLabel("Sample").fill("CUS-12345678");
    await page.getByRole("button", { name: "Add recognizer" }).click();
    await page.getByText(/pattern can take \w+ time on some texts/).waitFor();
    await page.getByLabel("Pattern").fill("CUS-\\d{8}");
    await page.getByRole("button", { name: "Add recognizer" }).click();
    await own.locator('[data-kind="CUSTOMER_ID"]').waitFor();
    await page.getByLabel("A text to try").fill("Customer CUS-87654321 called.");
    await page.getByRole("button", { name: "Find sensitive data" }).click();
    expect(await page.getByTestId("masked-text").textContent()).toBe("Customer <CUSTOMER_ID_1> called.");
    await shot(page, "settings-masking-own");
  });
});
