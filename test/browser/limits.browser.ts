import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { BOOTSTRAP_KEY, type Browser, closeAll, type Hone, launchBrowser, shot, signedInPage, startHone } from "./harness";

// Budgets and limits in the console: limits set in a form, spend against them as bars (per tag
// value too), the webhook with its secret shown once and its delivery log, and keys edited with
// scopes, allowed models and an expiry.
let hone: Hone;
let browser: Browser;
let page: Page;
let receiver: ReturnType<typeof Bun.serve>;
const received: any[] = [];
const errors: string[] = [];

beforeAll(async () => {
  receiver = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: async (req) => {
      received.push(await req.json());
      return new Response("ok");
    },
  });
  [hone, browser] = await Promise.all([
    startHone({ seed: 0, env: { HONE_UPSTREAM_ALLOWLIST: `127.0.0.1:${receiver.port}`, HONE_JOB_POLL_MS: "100" } }),
    launchBrowser(),
  ]);
  ({ page } = await signedInPage(browser, hone, { width: 1440, height: 900 }));
  page.on("pageerror", (e) => errors.push(String(e)));
}, 180_000);
afterAll(async () => {
  await closeAll(browser, hone);
  receiver?.stop(true);
});

const call = (user?: string) =>
  fetch(`${hone.url}/api/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${BOOTSTRAP_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "gpt-4o-mini", max_tokens: 20, messages: [{ role: "user", content: "hi" }], ...(user ? { metadata: { user } } : {}) }),
  });

/** The bars of one row, as label -> "spent / cap". */
const barsOf = (page: Page, selector: string) =>
  page
    .locator(selector)
    .getByTestId("spend-bar")
    .evaluateAll((bars) => Object.fromEntries(bars.map((b) => [b.getAttribute("data-label"), b.querySelector("p:last-of-type")?.textContent ?? ""])));

describe("budgets and limits", () => {
  test("limits are set in a form and spend shows as bars, per tag value too; over the limit the gateway answers 429", async () => {
    await page.goto(`${hone.url}/limits`);
    await page.getByText("No limits: every key may call").waitFor();
    await page.getByRole("button", { name: "Add limit" }).click();
    await page.getByLabel("Requests per minute").fill("5");
    await page.getByLabel("Budget per day ($)").fill("10");
    // With a budget, the form asks what to do with calls Hone cannot price (refused by default).
    expect(await page.getByRole("combobox", { name: "Calls to a model without a price" }).inputValue()).toBe("Refuse them (403)");
    await shot(page, "limits-form-unpriced");
    await page.getByRole("button", { name: "Save limit" }).click();
    const projectRow = 'tr[data-subject="The project"]';
    await page.locator(projectRow).waitFor();

    await page.getByRole("button", { name: "Add limit" }).click();
    await page.getByRole("dialog").getByText("A tag", { exact: true }).click();
    await page.getByLabel("Tag", { exact: true }).fill("user");
    await page.getByLabel("Requests per minute").fill("2");
    await page.getByRole("button", { name: "Save limit" }).click();
    await page.locator('tr[data-subject="Each user"]').waitFor();

    // Requests count per minute, and the page shows the current minute: the calls and the checks
    // must fall in one.
    const leftMs = 60_000 - (Date.now() % 60_000);
    if (leftMs < 20_000) await Bun.sleep(leftMs + 200);
    const statuses = [];
    for (const user of ["ann", "ann", "ann", "bob"]) statuses.push((await call(user)).status);
    expect(statuses).toEqual([200, 200, 429, 200]);
    // Spend is written within a second and the page reads it every 5 s.
    await page.locator('tr[data-tag-value="ann"]').waitFor({ timeout: 15_000 });
    await page.waitForFunction(
      () => document.querySelector('tr[data-subject="The project"] [data-label="Requests / min"]')?.textContent?.includes("3 / 5"),
      null,
      {
        timeout: 15_000,
      },
    );
    expect(await barsOf(page, projectRow)).toMatchObject({ "Requests / min": "3 / 5" });
    expect((await barsOf(page, 'tr[data-tag-value="ann"]'))["Requests / min"]).toBe("2 / 2");
    expect((await barsOf(page, 'tr[data-tag-value="bob"]'))["Requests / min"]).toBe("1 / 2");
    expect(await page.locator('tr[data-tag-value="ann"] [data-label="Requests / min"]').getAttribute("data-pct")).toBe("100");
    await shot(page, "limits-bars");

    // Changing a limit: the form comes filled in.
    await page.getByRole("button", { name: "Change limit of The project" }).click();
    await expect(page.getByLabel("Requests per minute").inputValue()).resolves.toBe("5");
    await page.getByLabel("Requests per minute").fill("0");
    await page.getByRole("button", { name: "Save limit" }).click();
    await page.getByText("More than 0, or empty for no limit").waitFor();
    await page.getByLabel("Requests per minute").fill("50");
    await page.getByRole("button", { name: "Save limit" }).click();
    await page.waitForFunction(() => document.querySelector('tr[data-subject="The project"] [data-label="Requests / min"]')?.textContent?.includes("/ 50"));
  });

  test("the 429 is in the logs: found by the refused filter, marked in its row, its reason in the drawer", async () => {
    await page.goto(`${hone.url}/logs`);
    await page.getByRole("switch", { name: /Only calls Hone refused/ }).check();
    await page.waitForURL(/refused=1/);
    const mark = page.getByTestId("refused-mark");
    await mark.first().waitFor();
    // ann's third call, and only it: the rows on screen are the API's refusals.
    const refused = await hone.trpc<{ logs: { id: string; refusal: string | null; statusCode: number }[] }>("logs.list", {
      filter: { refused: true },
      first: 50,
    });
    expect(refused.logs.map((l) => [l.refusal, l.statusCode])).toEqual([["rate_limit", 429]]);
    expect(await mark.count()).toBe(1);
    expect(await mark.textContent()).toBe("refused");
    await shot(page, "logs-refused");
    await page.locator(`tbody tr[data-log-id="${refused.logs[0]!.id}"]`).click();
    const alert = page.getByRole("dialog").getByTestId("log-refusal");
    await alert.waitFor();
    expect(await alert.textContent()).toContain("Refused by Hone: a rate limit");
    expect(await alert.textContent()).toContain("Nothing was sent upstream and nothing was charged");
    await shot(page, "logs-refused-drawer");
    await page.keyboard.press("Escape");
  });

  test("the webhook: a private address is refused, the secret is shown once, a test event is delivered and listed", async () => {
    await page.goto(`${hone.url}/limits`);
    await page.getByLabel("Webhook URL").fill("http://10.1.2.3/hook");
    await page.getByRole("button", { name: "Add webhook" }).click();
    await page.getByText("The webhook was not saved").waitFor();
    await page.getByLabel("Webhook URL").fill(`http://127.0.0.1:${receiver.port}/hone`);
    await page.getByRole("button", { name: "Add webhook" }).click();
    const secret = await page.getByTestId("webhook-secret").locator("code").textContent();
    expect(secret).toMatch(/^whsec_/);
    await page.getByRole("button", { name: "Send test event" }).click();
    await page.locator('table[aria-label="Webhook deliveries"] tr[data-status="DELIVERED"]').waitFor({ timeout: 20_000 });
    expect(received.some((r) => r.type === "webhook.test")).toBe(true);
    await shot(page, "limits-webhook");
  });

  test("a key is made for an app with scopes, models and an expiry, then edited", async () => {
    await page.goto(`${hone.url}/settings?tab=api-keys`);
    await page.getByRole("button", { name: "Create key" }).click();
    await page.getByLabel("Key name").fill("support app");
    await page.getByRole("checkbox", { name: "Read (API, console)" }).uncheck();
    await page.getByRole("checkbox", { name: "Change (API, console)" }).uncheck();
    await page.getByLabel("Allowed models").fill("openai:gpt-4o-mini*");
    await page.getByRole("button", { name: "Create key", exact: true }).last().click();
    const key = (await page.getByTestId("new-api-key").textContent())!;
    await page.getByRole("button", { name: "Done" }).click();
    const row = page.locator('tr[data-key-name="support app"]');
    await expect(row.getByTestId("key-grant").textContent()).resolves.toContain("gateway");
    await expect(row.getByTestId("key-grant").textContent()).resolves.toContain("models: openai:gpt-4o-mini*");
    // The key calls its model, and no other.
    const ok = await fetch(`${hone.url}/api/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] }),
    });
    expect(ok.status).toBe(403);

    await row.getByRole("button", { name: "Edit key support app" }).click();
    const expires = new Date(Date.now() + 3 * 86_400_000);
    const local = new Date(expires.getTime() - expires.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
    await page.getByLabel("Expires").fill(local);
    await page.getByRole("button", { name: "Save key" }).click();
    await row.getByText("expires").waitFor();
    await shot(page, "limits-keys");
    expect(errors).toEqual([]);
  });
});
