import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { type Browser, closeAll, type Hone, launchBrowser, reportLog, shot, signedInPage, startHone } from "./harness";

// Cost by token class in the console: the drawer's table of classes with the price it used, a call
// without a price marked instead of shown as $0, and the Usage page's cost by class.
let hone: Hone;
let browser: Browser;
let page: Page;
let priced: string;
let unpriced: string;

beforeAll(async () => {
  [hone, browser] = await Promise.all([startHone({ seed: 0 }), launchBrowser()]);
  // claude-haiku-4-5 via /report with Anthropic's usage in chat terms: 3,450 input tokens, of which
  // 400 read from the cache, 1,000 written for 5 minutes and 2,000 for an hour.
  priced = await reportLog(hone, {
    reqPayload: { model: "anthropic:claude-haiku-4-5", messages: [{ role: "user", content: "Summarise the contract" }] },
    respPayload: {
      id: "chatcmpl-classes",
      object: "chat.completion",
      created: 1,
      model: "claude-haiku-4-5",
      choices: [{ index: 0, message: { role: "assistant", content: "It renews yearly." }, finish_reason: "stop" }],
      usage: {
        prompt_tokens: 3450,
        completion_tokens: 200,
        total_tokens: 3650,
        prompt_tokens_details: { cached_tokens: 400 },
        cache_creation_input_tokens: 3000,
        cache_creation: { ephemeral_5m_input_tokens: 1000, ephemeral_1h_input_tokens: 2000 },
      },
    },
  });
  unpriced = await reportLog(hone, {
    reqPayload: { model: "my-own-llama", messages: [{ role: "user", content: "Hello" }] },
    respPayload: {
      id: "chatcmpl-noprice",
      object: "chat.completion",
      created: 1,
      model: "my-own-llama",
      choices: [{ index: 0, message: { role: "assistant", content: "Hi" }, finish_reason: "stop" }],
      usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
    },
  });
  ({ page } = await signedInPage(browser, hone, { width: 1440, height: 900 }));
}, 180_000);
afterAll(() => closeAll(browser, hone));

describe("cost by token class", () => {
  test("the table marks a call without a price; the drawer lists each class at its rate and the price used", async () => {
    await page.goto(`${hone.url}/logs`);
    const row = (id: string) => page.locator(`table[aria-label="Request logs"] tr[data-log-id="${id}"]`);
    await row(unpriced).waitFor();
    await expect(row(unpriced).getByTestId("cost-flag").textContent()).resolves.toBe("no price");
    await row(priced).click();
    const table = page.getByTestId("class-costs");
    await table.waitFor();
    const lines = await table.locator("tbody tr").evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent)));
    // $1 input, $0.10 cache reads, $1.25 5-minute writes, $2 1-hour writes, $5 output per million.
    expect(lines).toEqual([
      ["Input", "50", "$0.000050"],
      ["Cache reads", "400", "$0.000040"],
      ["Cache writes, 5 min", "1,000", "$0.0013"],
      ["Cache writes, 1 hour", "2,000", "$0.0040"],
      ["Output", "200", "$0.0010"],
    ]);
    await expect(table.locator("caption").textContent()).resolves.toMatch(/^Priced with genai-prices [\d.]+: anthropic\/claude-haiku-4-5$/);
    await shot(page, "cost-classes-drawer");
    await page.keyboard.press("Escape");
    await row(unpriced).click();
    await expect(page.getByTestId("fact-cost").getByTestId("cost-flag").textContent()).resolves.toBe("no price");
  });

  test("Usage shows the cost by class and counts the calls without a price", async () => {
    await page.goto(`${hone.url}/usage?range=24h`);
    const table = page.getByTestId("class-costs");
    await table.waitFor();
    const classes = await table.locator("tbody tr").evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-class")));
    expect(classes).toEqual(["input", "cache_read", "cache_write_5m", "cache_write_1h", "output"]);
    await expect(page.getByText("1 call without a price").isVisible()).resolves.toBe(true);
    await shot(page, "cost-classes-usage");
  });

  test("Usage downloads the invoice lines of the range's days as CSV", async () => {
    await page.goto(`${hone.url}/usage?range=24h`);
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("invoice-download").click()]);
    const text = await Bun.file((await download.path())!).text();
    const lines = text.trim().split("\r\n");
    expect(lines[0]).toBe("day,provider,model,token_class,tokens,cost_usd");
    const body = lines.slice(1).map((l) => l.split(","));
    // The priced call's five classes and the unpriced call's two (tokens, no cost).
    expect(body.filter((l) => l[2] === "anthropic:claude-haiku-4-5").map((l) => l[3])).toEqual([
      "input",
      "cache_read",
      "cache_write_5m",
      "cache_write_1h",
      "output",
    ]);
    expect(body.filter((l) => l[2] === "openai:my-own-llama").map((l) => [l[3], l[4], l[5]])).toEqual([
      ["input", "5", ""],
      ["output", "2", ""],
    ]);
  });

  test("Settings → Prices: a price for the unpriced model, then recalculating its logs prices them", async () => {
    await page.goto(`${hone.url}/settings?tab=prices`);
    await page.getByRole("form", { name: "Add a price" }).getByLabel("Model").fill("openai:my-own-llama");
    await page.getByLabel("Input, $/M").fill("1");
    await page.getByLabel("Output, $/M").fill("2");
    await page.getByRole("button", { name: "Save price" }).click();
    const row = page.locator('[data-testid="price-overrides-table"] tr[data-override-id]');
    await row.first().waitFor();
    await expect(row.first().textContent()).resolves.toContain("openai:my-own-llama");
    const recalc = page.getByRole("region", { name: "Recalculate stored logs" });
    await recalc.getByLabel("Model").fill("openai:my-own-llama");
    await recalc.getByRole("button", { name: "Recalculate" }).click();
    const progress = page.getByTestId("recalculation-progress");
    await page.locator('[data-testid="recalculation-progress"][data-status="DONE"]').waitFor({ timeout: 20_000 });
    await expect(progress.textContent()).resolves.toBe("Done: 1 of 1 logs priced again, 1 changed.");
    await shot(page, "cost-prices-tab");
    await page.goto(`${hone.url}/logs`);
    const cost = page.locator(`table[aria-label="Request logs"] tr[data-log-id="${unpriced}"]`);
    await cost.waitFor();
    // 5 tokens in at $1/M and 2 out at $2/M.
    await expect(cost.getByTestId("cost-flag").count()).resolves.toBe(0);
    await expect(cost.textContent()).resolves.toContain("<$0.0001");
  });
});
