import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import pLimit from "p-limit";
import type { Page } from "playwright-core";
import { expectAccessible } from "./a11y";
import { type Browser, type Hone, launchBrowser, shot, startHone, signedInPage, closeAll } from "./harness";

// Settings: the Python snippets of "Get started" (what they call works), the bootstrap key named
// "bootstrap", renaming a key (the list, the header and the API agree), and no serious axe
// violation on any tab or dialog, light and dark; no sideways scrolling at 800 px.

let hone: Hone;
let browser: Browser;
let page: Page;
const dialog = () => page.getByRole("dialog");

beforeAll(async () => {
  [hone, browser] = await Promise.all([startHone({ seed: 0 }), launchBrowser()]);
  ({ page } = await signedInPage(browser, hone, { width: 1440, height: 900 }));
}, 180_000);
afterAll(() => closeAll(browser, hone));

describe("settings", () => {
  test("get started shows the openai and openpipe Python snippets, pointed at this server; the call they make works", async () => {
    await page.goto(`${hone.url}/settings`);
    const base = `${hone.url}/api/v1`;
    const openai = (await page.getByTestId("snippet-openai-python").textContent())!;
    expect(openai).toContain("pip install openai");
    expect(openai).toContain("from openai import OpenAI");
    expect(openai).toContain(`base_url="${base}"`);
    expect(openai).toContain('api_key=os.environ["HONE_API_KEY"]');
    const openpipe = (await page.getByTestId("snippet-openpipe-python").textContent())!;
    expect(openpipe).toContain("pip install openpipe");
    expect(openpipe).toContain("from openpipe import OpenAI");
    expect(openpipe).toContain(`openpipe={"api_key": os.environ["HONE_API_KEY"], "base_url": "${base}"}`);
    expect(openpipe).toContain('model="openai:gpt-4o-mini"');
    // Copy buttons name what they copy.
    await page.getByRole("button", { name: "Copy openai-python snippet" }).waitFor();
    await page.getByRole("button", { name: "Copy openpipe-python snippet" }).waitFor();
    // No Python SDK here to run them: the request each sends (its model, messages and tags) is sent as they would.
    for (const snippet of [openai, openpipe]) {
      const model = /model="([^"]+)"/.exec(snippet)![1]!;
      const res = await fetch(`${base}/chat/completions`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${hone.project.apiKey}`,
          "content-type": "application/json",
          "op-tags": JSON.stringify({ prompt_id: "get-started" }),
        },
        body: JSON.stringify({ model, messages: [{ role: "user", content: "Say hello" }], metadata: { prompt_id: "get-started" } }),
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { choices: { message: { content: string } }[] }).choices[0]!.message.content).toBe("echo: Say hello");
    }
    await page.getByTestId("snippet-openai-python").scrollIntoViewIfNeeded();
    await shot(page, "settings-python-snippets");
  });

  test("the bootstrap key is named bootstrap; renaming a key shows in the list, the header and the API", async () => {
    await page.goto(`${hone.url}/settings?tab=api-keys`);
    const own = page.locator("tr", { hasText: "this session" });
    await own.waitFor();
    expect(await own.getAttribute("data-key-name")).toBe("bootstrap");
    expect(await page.getByTestId("key-name").textContent()).toBe("bootstrap");

    await page.getByRole("button", { name: "Rename key bootstrap" }).click();
    const name = dialog().getByRole("textbox", { name: "New name" });
    expect(await name.inputValue()).toBe("bootstrap");
    // An empty name is refused before it is sent.
    await name.fill("   ");
    await dialog().getByRole("button", { name: "Rename key" }).click();
    await dialog().getByText("Give the key a name").waitFor();
    await name.fill("ops laptop");
    await shot(page, "settings-rename-key");
    await dialog().getByRole("button", { name: "Rename key" }).click();
    await dialog().waitFor({ state: "detached" });
    await page.locator('tr[data-key-name="ops laptop"]').getByText("this session").waitFor();
    await page.getByTestId("key-name").filter({ hasText: "ops laptop" }).waitFor();
    const keys = await hone.trpc<{ id: string; name: string | null }[]>("apiKeys.list");
    expect(keys.map((k) => k.name)).toEqual(["ops laptop"]);
    // The key itself is unchanged.
    expect((await fetch(`${hone.url}/api/v1/datasets`, { headers: { authorization: `Bearer ${hone.project.apiKey}` } })).status).toBe(200);
    await shot(page, "settings-key-renamed");

    // Another key, unnamed through the API, gets a name here.
    const created = await hone.trpc<{ key: { id: string; prefix: string } }>("apiKeys.create", {}, { mutation: true });
    await page.reload();
    const row = page.locator(`tr[data-key-id="${created.key.id}"]`);
    expect(await row.textContent()).toContain("unnamed");
    await row.getByRole("button", { name: /^Rename key/ }).click();
    await dialog().getByRole("textbox", { name: "New name" }).fill("ci");
    await dialog().getByRole("button", { name: "Rename key" }).click();
    await page.locator(`tr[data-key-id="${created.key.id}"][data-key-name="ci"]`).waitFor();
  });

  test("no serious or critical axe violation on every tab and dialog, light and dark", async () => {
    for (const tab of ["get-started", "api-keys", "provider-keys", "providers", "prices"]) {
      await page.goto(`${hone.url}/settings?tab=${tab}`);
      await expectAccessible(page, `settings-${tab}-a11y`, () => page.getByRole("tab", { name: "API keys" }).waitFor());
    }
    const openDialog = async (tab: string, button: string) => {
      await page.goto(`${hone.url}/settings?tab=${tab}`);
      await page.getByRole("button", { name: button }).first().click();
      await dialog().waitFor();
    };
    await expectAccessible(page, "settings-create-key-a11y", () => openDialog("api-keys", "Create key"));
    await expectAccessible(page, "settings-rename-key-a11y", () => openDialog("api-keys", "Rename key ci"));
    await expectAccessible(page, "settings-revoke-key-a11y", () => openDialog("api-keys", "Revoke key ci"));
    await expectAccessible(page, "settings-add-provider-a11y", () => openDialog("providers", "Add provider"));
    // The Prices tab with a price listed and its delete confirmation open.
    await page.goto(`${hone.url}/settings?tab=prices`);
    await page.getByRole("form", { name: "Add a price" }).getByLabel("Model").fill("openai:gpt-4o");
    await page.getByText("Multiplier of the list price").click();
    await page.getByRole("textbox", { name: /^Multiplier/ }).fill("0.8");
    await page.getByRole("button", { name: "Save price" }).click();
    await page.locator('[data-testid="price-overrides-table"] tr[data-override-id]').first().waitFor();
    await expectAccessible(page, "settings-delete-price-a11y", async () => {
      await page.getByRole("button", { name: "Delete the price of openai:gpt-4o" }).click();
      await dialog().waitFor();
    });
  }, 90_000);

  test("at 800 px wide no tab scrolls the page sideways", async () => {
    await page.setViewportSize({ width: 800, height: 900 });
    for (const tab of ["get-started", "api-keys", "provider-keys", "providers", "prices"]) {
      await page.goto(`${hone.url}/settings?tab=${tab}`);
      await page.getByRole("tab", { name: "API keys" }).waitFor();
      await page.waitForTimeout(300);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect({ tab, overflow }).toEqual({ tab, overflow: 0 });
    }
    await shot(page, "settings-narrow");
    await page.setViewportSize({ width: 1440, height: 900 });
  });
});

describe("settings: trainers", () => {
  test("a trainer token is made with the command to run; a trainer that asked for work is listed with its GPUs and versions", async () => {
    await page.goto(`${hone.url}/settings?tab=trainers`);
    const table = page.getByTestId("trainers-table");
    await table.getByText("No trainer has asked for work yet").waitFor();
    await page.getByRole("button", { name: "Make a trainer token" }).click();
    const box = page.getByTestId("trainer-command");
    await box.waitFor();
    const command = (await box.locator("pre").textContent())!.trim();
    expect(command).toMatch(new RegExp(`^HONE_TRAINER_TOKEN=hone_sk_\\w+ hone-trainer work --url ${hone.url.replace(/[.]/g, "\\.")}$`));
    const token = /HONE_TRAINER_TOKEN=(\S+)/.exec(command)![1]!;

    // The token works as a trainer's (and only as one): it asks for work, and is listed.
    const trainer = {
      name: "gpu-box-7",
      host: "gpu-box-7.lan",
      gpus: [{ name: "NVIDIA L4", memoryBytes: 24 * 1024 ** 3 }],
      versions: { hone_trainer: "0.1.0", torch: "2.13.0" },
    };
    const lease = await fetch(`${hone.url}/api/v1/trainer/lease`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ trainer }),
    });
    expect(lease.status).toBe(200);
    expect((await fetch(`${hone.url}/api/v1/datasets`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(403);
    await page.reload();
    const row = page.locator('[data-trainer="gpu-box-7"]');
    await row.waitFor();
    const text = (await row.textContent())!;
    expect(text).toContain("gpu-box-7.lan");
    expect(text).toContain("NVIDIA L4 (24 GiB)");
    expect(text).toContain("torch 2.13.0");
    expect(text).toContain("online");
    expect(text).toContain("idle");
    await shot(page, "settings-trainers");
  });
});

describe("settings: a project with hundreds of keys", () => {
  test("the keys table holds only the rows near the window; scrolling reaches the last key", async () => {
    // One key per end user: 400 of them (past the table's windowing threshold, 150).
    const limit = pLimit(8);
    await Promise.all(
      Array.from({ length: 400 }, (_, i) => limit(() => hone.trpc("apiKeys.create", { name: `user-${String(i).padStart(3, "0")}` }, { mutation: true }))),
    );
    await page.goto(`${hone.url}/settings?tab=api-keys`);
    const table = page.getByTestId("api-keys-table");
    await table.locator('[data-key-name="user-000"]').waitFor();
    const drawn = () => table.locator("tbody tr[data-key-id]").count();
    expect(await drawn()).toBeLessThan(100);
    // The newest keys are at the end (oldest first): scrolling to the bottom of the page draws them.
    for (let i = 0; i < 40 && !(await table.locator('[data-key-name="user-399"]').count()); i++) {
      await page.mouse.wheel(0, 3_000);
      await page.waitForTimeout(50);
    }
    await table.locator('[data-key-name="user-399"]').waitFor();
    expect(await drawn()).toBeLessThan(100);
    expect(await table.locator('[data-key-name="user-000"]').count()).toBe(0);
    // Every row is there to be reached: the table is as tall as all 402 rows (keys, the bootstrap's, one renamed).
    const height = await table.evaluate((t) => t.getBoundingClientRect().height);
    expect(height).toBeGreaterThan(400 * 30);
    await shot(page, "settings-keys-400-scrolled");
  }, 90_000);
});
