import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { type Browser, closeAll, type Hone, launchBrowser, shot, signedInPage, startHone } from "./harness";
import { waitFor } from "../helpers/wait-for";

// Calls on /messages and /responses in the console: the API filter and split, and the drawer
// showing each call in its own protocol's terms (thinking with its signature kept, tool use,
// Responses items) beside its chat form.
let hone: Hone;
let browser: Browser;
let page: Page;
let messagesId: string;
let responsesId: string;

async function logOf(api: string): Promise<string> {
  const res = await waitFor(() => hone.trpc<{ logs: { id: string }[] }>("logs.list", { filter: { api }, first: 5 }), {
    until: (r) => r.logs.length > 0,
    timeoutMs: 15_000,
    message: `no ${api} log`,
  });
  return res.logs[0]!.id;
}

beforeAll(async () => {
  [hone, browser] = await Promise.all([startHone({ seed: 3 }), launchBrowser()]);
  const post = async (path: string, body: unknown, headers: Record<string, string>) => {
    const res = await fetch(`${hone.url}/api/v1${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    });
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
  };
  await post(
    "/messages",
    {
      model: "claude-sonnet-4-5",
      max_tokens: 256,
      thinking: { type: "enabled", budget_tokens: 1024 },
      system: [{ type: "text", text: "Be brief.", cache_control: { type: "ephemeral" } }],
      tools: [{ name: "get_weather", input_schema: { type: "object", properties: { q: { type: "string" } } } }],
      messages: [{ role: "user", content: "Weather in Lisbon?" }],
    },
    { "x-api-key": hone.project.apiKey, "anthropic-version": "2023-06-01" },
  );
  await post("/responses", { model: "anthropic:claude-sonnet-4-5", input: "Say hello in Portuguese" }, { authorization: `Bearer ${hone.project.apiKey}` });
  messagesId = await logOf("messages");
  responsesId = await logOf("responses");
  ({ page } = await signedInPage(browser, hone, { width: 1440, height: 900 }));
}, 180_000);
afterAll(() => closeAll(browser, hone));

describe("logs of other protocols", () => {
  test("the API filter lists the /messages call only; the drawer shows its thinking, text and tool use", async () => {
    await page.goto(`${hone.url}/logs?api=messages`);
    const rows = page.locator('table[aria-label="Request logs"] tr[data-log-id]');
    await rows.first().waitFor();
    expect(await rows.count()).toBe(1);
    expect(await rows.first().getAttribute("data-log-id")).toBe(messagesId);
    await rows.first().click();
    await expect(page.getByTestId("detail-api").textContent()).resolves.toBe("messages (Anthropic)");
    // Tokens by class: of the 15 input tokens, 3 came from Anthropic's prompt cache.
    await expect(page.getByTestId("fact-tokens-in").textContent()).resolves.toBe("15");
    await expect(page.getByTestId("fact-cached-input").textContent()).resolves.toBe("3");
    await page.getByRole("tab", { name: "As the client saw it" }).click();
    const view = page.getByTestId("protocol-view");
    await view.waitFor();
    const types = await view.getByTestId("protocol-piece").evaluateAll((els) => els.map((e) => e.getAttribute("data-type")));
    expect(types).toEqual(["thinking", "text", "tool_use"]);
    await expect(view.getByText("signature kept").isVisible()).resolves.toBe(true);
    await expect(view.getByText("1 × cache_control marker").isVisible()).resolves.toBe(true);
    await shot(page, "logs-protocol-messages");
  });

  test("the /responses call: its output items in the drawer; the API filter chip and the is-not filter", async () => {
    await page.goto(`${hone.url}/logs/${responsesId}?api=responses`);
    await page.getByRole("tab", { name: "As the client saw it" }).click();
    const view = page.getByTestId("protocol-view");
    await view.waitFor();
    const types = await view.getByTestId("protocol-piece").evaluateAll((els) => els.map((e) => e.getAttribute("data-type")));
    expect(types).toEqual(["message"]);
    await expect(view.getByText("echo: Say hello in Portuguese").isVisible()).resolves.toBe(true);
    await shot(page, "logs-protocol-responses");

    // Excluding both other protocols leaves the seeded chat calls only.
    await page.goto(`${hone.url}/logs?notApi=messages`);
    const rows = page.locator('table[aria-label="Request logs"] tr[data-log-id]');
    await rows.first().waitFor();
    const ids = await rows.evaluateAll((els) => els.map((e) => e.getAttribute("data-log-id")));
    expect(ids).not.toContain(messagesId);
    expect(ids).toContain(responsesId);
    await expect(page.getByText("API is not messages (Anthropic)").isVisible()).resolves.toBe(true);
  });

  test("usage splits by API", async () => {
    await page.goto(`${hone.url}/usage?split=api`);
    const table = page.locator("table").filter({ hasText: "API" }).first();
    await table.waitFor();
    await expect(table.getByText("messages", { exact: true }).isVisible()).resolves.toBe(true);
    await expect(table.getByText("responses", { exact: true }).isVisible()).resolves.toBe(true);
    await shot(page, "usage-by-api");
  });
});
