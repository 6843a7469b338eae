import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Page } from "playwright-core";
import { type Browser, type Hone, launchBrowser, shot, signIn, startHone, signedInPage, closeAll } from "./harness";

// The usage page against the seeded logs, and the settings tabs: API keys (create, use, revoke),
// provider keys, custom providers (with the URL guard), and the get-started snippets.

let hone: Hone;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  [hone, browser] = await Promise.all([startHone(), launchBrowser()]);
  ({ page } = await signedInPage(browser, hone));
}, 180_000);
afterAll(() => closeAll(browser, hone));

type Log = { model: string | null; inputTokens: number | null; outputTokens: number | null; costUsd: number | null; statusCode: number | null };

/** Every log of the bootstrap project, read through the API. */
async function allLogs(): Promise<Log[]> {
  const out: Log[] = [];
  let after: string | null = null;
  for (let i = 0; i < 100; i++) {
    const res: { logs: Log[]; hasNextPage: boolean; endCursor: string | null } = await hone.trpc("logs.list", { first: 200, ...(after ? { after } : {}) });
    out.push(...res.logs);
    if (!res.hasNextPage) break;
    after = res.endCursor;
  }
  return out;
}

const sum = (logs: Log[], f: (l: Log) => number | null) => logs.reduce((s, l) => s + (f(l) ?? 0), 0);
const exact = async (p: Page, testId: string) => Number(await p.getByTestId(testId).getAttribute("data-value"));

/** Shots in the light theme (the harness's shot) and a dark one next to it. */
async function shots(p: Page, name: string) {
  await shot(p, name);
  await p.evaluate(() => localStorage.setItem("hone-color-scheme", "dark"));
  await p.reload();
  await p.getByRole("button", { name: "Sign out" }).waitFor();
  await p.waitForTimeout(300);
  await shot(p, `${name}-dark`);
  await p.evaluate(() => localStorage.setItem("hone-color-scheme", "light"));
  await p.reload();
  await p.getByRole("button", { name: "Sign out" }).waitFor();
}

const dialog = () => page.getByRole("dialog");

describe("usage page", () => {
  test("the totals equal the sums of the seeded logs; the per-model table matches", async () => {
    const logs = await allLogs();
    expect(logs.length).toBe(hone.seeded!.logs);
    await page.goto(`${hone.url}/usage?range=24h`);
    await page.getByTestId("chart-requests").waitFor();
    expect(await exact(page, "total-requests")).toBe(logs.length);
    expect(await page.getByTestId("total-requests").textContent()).toBe(logs.length.toLocaleString("en-US"));
    expect(await exact(page, "total-input-tokens")).toBe(sum(logs, (l) => l.inputTokens));
    expect(await exact(page, "total-output-tokens")).toBe(sum(logs, (l) => l.outputTokens));
    expect(await exact(page, "total-cost")).toBeCloseTo(
      sum(logs, (l) => l.costUsd),
      9,
    );
    const errors = logs.filter((l) => !l.statusCode || l.statusCode >= 400).length;
    expect(await exact(page, "total-error-rate")).toBeCloseTo(errors / logs.length, 9);
    await shots(page, "usage");

    // Split by model through the controls: the URL keeps it, the table has a row per model.
    await page.getByRole("combobox", { name: "Split by" }).click();
    await page.getByRole("option", { name: "Model" }).click();
    await page.waitForURL(/split=model/);
    const table = page.getByTestId("usage-table");
    await table.locator("tbody tr").first().waitFor();
    const byModel = new Map<string, Log[]>();
    for (const l of logs) byModel.set(l.model ?? "", [...(byModel.get(l.model ?? "") ?? []), l]);
    const rows = await table.locator("tbody tr").evaluateAll((trs) =>
      trs.map((tr) => {
        const v = (col: string) => Number(tr.querySelector(`[data-col="${col}"]`)?.getAttribute("data-value"));
        return {
          group: tr.getAttribute("data-group"),
          requests: v("requests"),
          inputTokens: v("inputTokens"),
          outputTokens: v("outputTokens"),
          costUsd: v("costUsd"),
        };
      }),
    );
    expect(rows.map((r) => r.group).sort()).toEqual([...byModel.keys()].sort());
    for (const r of rows) {
      const mine = byModel.get(r.group!)!;
      expect(r.requests).toBe(mine.length);
      expect(r.inputTokens).toBe(sum(mine, (l) => l.inputTokens));
      expect(r.outputTokens).toBe(sum(mine, (l) => l.outputTokens));
      expect(r.costUsd).toBeCloseTo(
        sum(mine, (l) => l.costUsd),
        9,
      );
    }
    const total = table.locator('tfoot tr[data-group="total"] [data-col="requests"]');
    expect(Number(await total.getAttribute("data-value"))).toBe(logs.length);
    await shot(page, "usage-by-model");

    // Split by a tag key picked from the suggestions; a reload keeps the view; the groups sum to the tagged logs.
    await page.getByRole("combobox", { name: "Split by" }).click();
    await page.getByRole("option", { name: "Tag" }).click();
    await page.getByRole("combobox", { name: "Tag key" }).click();
    await page.getByRole("option", { name: "prompt_id" }).click();
    await page.waitForURL(/split=tag&tag=prompt_id|tag=prompt_id.*split=tag/);
    await table.locator('tbody tr[data-group="p1"]').waitFor();
    await page.goto(`${hone.url}/usage?range=7d&bucket=day&split=tag&tag=prompt_id`);
    await table.locator('tbody tr[data-group="p1"]').waitFor();
    const tagRows = await table
      .locator("tbody tr")
      .evaluateAll((trs) => trs.map((tr) => [tr.getAttribute("data-group"), Number(tr.querySelector('[data-col="requests"]')?.getAttribute("data-value"))]));
    const tagged = Object.fromEntries(tagRows.filter(([g]) => g));
    expect(tagged).toEqual(hone.seeded!.byPromptId);
    expect(await page.getByRole("combobox", { name: "Tag key" }).inputValue()).toBe("prompt_id");
  });

  test("a range with no calls shows the empty state with a snippet", async () => {
    await page.goto(`${hone.url}/usage?range=custom&from=2020-01-01&to=2020-01-31`);
    await page.getByTestId("usage-empty").waitFor();
    expect(await exact(page, "total-requests")).toBe(0);
    expect(await page.getByTestId("usage-empty").textContent()).toContain("No calls in this range");
  });
});

describe("settings", () => {
  test("get started: the base URL, and the curl snippet works with a real key", async () => {
    await page.goto(`${hone.url}/settings`);
    expect(await page.getByTestId("base-url").textContent()).toBe(`${hone.url}/api/v1`);
    const curl = (await page.getByTestId("snippet-curl").textContent())!;
    expect(curl).toContain("$HONE_API_KEY");
    expect(curl).not.toContain(hone.project.apiKey);
    for (const name of ["openai", "openpipe"]) {
      const text = (await page.getByTestId(`snippet-${name}`).textContent())!;
      expect(text).toContain(`${hone.url}/api/v1`);
      expect(text).toContain("process.env.HONE_API_KEY");
    }
    expect(await page.getByTestId("snippet-openai").textContent()).toContain("baseURL:");
    expect(await page.getByTestId("snippet-openpipe").textContent()).toMatch(/openpipe: \{ apiKey: process\.env\.HONE_API_KEY, baseUrl: /);
    const proc = Bun.spawn(["sh", "-c", `${curl} -s -w '\\n%{http_code}'`], { env: { ...process.env, HONE_API_KEY: hone.project.apiKey }, stdout: "pipe" });
    const out = await new Response(proc.stdout).text();
    expect(await proc.exited).toBe(0);
    const [body, status] = [out.slice(0, out.lastIndexOf("\n")), out.slice(out.lastIndexOf("\n") + 1)];
    expect(status).toBe("200");
    expect(JSON.parse(body).choices[0].message.role).toBe("assistant");
    await shots(page, "settings-get-started");
  });

  test("get started: the openai and openpipe SDK snippets run as shown", async () => {
    await page.goto(`${hone.url}/settings`);
    const dir = mkdtempSync(join(tmpdir(), "hone-snippets-"));
    try {
      // The snippets import the SDKs this repository has as dev dependencies.
      symlinkSync(resolve(import.meta.dir, "../../node_modules"), join(dir, "node_modules"));
      for (const name of ["openai", "openpipe"]) {
        const file = join(dir, `${name}.ts`);
        writeFileSync(file, (await page.getByTestId(`snippet-${name}`).textContent())!);
        const proc = Bun.spawn([process.execPath, file], {
          env: { ...process.env, HONE_API_KEY: hone.project.apiKey, OPENAI_API_KEY: "sk-not-used-by-hone-routed-calls" },
          stdout: "pipe",
          stderr: "pipe",
        });
        const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
        expect({ name, code, err: err.slice(0, 500) }).toEqual({ name, code: 0, err: "" });
        expect(out.trim().length).toBeGreaterThan(0);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("API keys: create one (shown once), use it, revoke it: 401 and its sessions end", async () => {
    await page.goto(`${hone.url}/settings?tab=api-keys`);
    await page.getByRole("button", { name: "Create key" }).click();
    await dialog().getByLabel("Key name").fill("browser e2e");
    await dialog().getByRole("button", { name: "Create key" }).click();
    const shown = dialog().getByTestId("new-api-key");
    await shown.waitFor();
    const key = (await shown.textContent())!.trim();
    expect(key).toMatch(/^hone_sk_[A-Za-z0-9]{20,}$/);
    expect(await dialog().textContent()).toContain("only time the key is shown");
    expect(await dialog().getByRole("button", { name: "Copy key" }).isVisible()).toBe(true);
    await shot(page, "settings-api-key-created");
    await dialog().getByRole("button", { name: "Done" }).click();
    await dialog().waitFor({ state: "detached" });
    const row = page.locator('tr[data-key-name="browser e2e"]');
    await row.waitFor();
    expect(await row.textContent()).toContain("Active");
    expect(await page.locator("body").textContent()).not.toContain(key);

    const call = () =>
      fetch(`${hone.url}/api/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi from a new key" }] }),
      });
    const ok = await call();
    expect(ok.status).toBe(200);
    await ok.arrayBuffer();

    // A console session signed in with the new key, elsewhere.
    const other = await browser.newContext();
    const otherPage = await other.newPage();
    await signIn(otherPage, hone.url, key);
    expect(await otherPage.getByTestId("key-name").textContent()).toBe("browser e2e");

    // This session's own key is named as such in its confirmation; cancel that.
    await page
      .locator("tr", { hasText: "this session" })
      .getByRole("button", { name: /^Revoke key/ })
      .click();
    await dialog().getByTestId("revoke-own-key").waitFor();
    await dialog().getByRole("button", { name: "Cancel" }).click();
    await dialog().waitFor({ state: "detached" });

    await page.getByRole("button", { name: "Revoke key browser e2e" }).click();
    expect(await dialog().textContent()).toContain("console session signed in with it ends");
    expect(await dialog().getByTestId("revoke-own-key").count()).toBe(0);
    await shot(page, "settings-api-key-revoke");
    await dialog().getByRole("button", { name: "Revoke key" }).click();
    await dialog().waitFor({ state: "detached" });
    await row.getByText("Revoked").waitFor();

    const refused = await call();
    expect(refused.status).toBe(401);
    await refused.arrayBuffer();
    await otherPage.reload();
    await otherPage.getByText("Your session has ended").waitFor();
    await other.close();
    // This session carries on.
    await page.reload();
    await page.locator('tr[data-key-name="browser e2e"]').waitFor();
    await shots(page, "settings-api-keys");
  });

  test("provider keys: set, replace, delete; only the last 4 characters are shown", async () => {
    await page.goto(`${hone.url}/settings?tab=provider-keys`);
    const status = page.getByTestId("provider-key-status-gemini");
    expect(await status.textContent()).toContain("Not set");
    const first = "gm-browser-key-first-1111";
    await page.getByLabel("Google Gemini API key").fill(first);
    await page.getByRole("button", { name: "Save Google Gemini key" }).click();
    await page.getByTestId("provider-key-last4-gemini").waitFor();
    expect(await page.getByTestId("provider-key-last4-gemini").textContent()).toBe("…1111");
    expect(await page.getByLabel("Google Gemini API key").inputValue()).toBe("");
    expect(await page.content()).not.toContain(first);

    const second = "gm-browser-key-second-2222";
    await page.getByLabel("Google Gemini API key").fill(second);
    await page.getByRole("button", { name: "Replace Google Gemini key" }).click();
    await page.getByTestId("provider-key-last4-gemini").getByText("…2222").waitFor();
    expect(await page.content()).not.toContain(second);
    const listed = await hone.trpc<{ provider: string; last4: string }[]>("providerKeys.list");
    expect(listed.find((k) => k.provider === "gemini")?.last4).toBe("2222");
    await shots(page, "settings-provider-keys");

    await page.getByRole("button", { name: "Delete Google Gemini key" }).click();
    expect(await dialog().textContent()).toContain("2222");
    await dialog().getByRole("button", { name: "Delete key" }).click();
    await dialog().waitFor({ state: "detached" });
    await status.getByText("Not set").waitFor();
    const after = await hone.trpc<{ provider: string }[]>("providerKeys.list");
    expect(after.map((k) => k.provider).sort()).toEqual(["anthropic", "openai"]);
  });

  test("custom providers: a private URL is refused and explained; create, edit, delete", async () => {
    await page.goto(`${hone.url}/settings?tab=providers`);
    await page.getByRole("button", { name: "Add provider" }).click();
    await dialog().getByLabel("Slug").fill("local-llm");
    await dialog().getByRole("textbox", { name: "Base URL" }).fill("http://127.0.0.1:11434/v1");
    await dialog().getByRole("button", { name: "Add provider" }).click();
    await dialog().getByTestId("ssrf-explanation").waitFor();
    const alert = dialog().getByRole("alert").first();
    expect(await alert.textContent()).toContain("may not be called");
    const explained = (await dialog().getByTestId("ssrf-explanation").textContent())!;
    expect(explained).toContain("HONE_ALLOW_PRIVATE_UPSTREAMS");
    expect(explained).toContain("HONE_UPSTREAM_ALLOWLIST");
    await shot(page, "settings-custom-provider-refused");
    // An allowed (public) URL in the same form.
    await dialog().getByRole("textbox", { name: "Base URL" }).fill("https://llm.example.com/v1");
    await dialog().getByRole("button", { name: "Add provider" }).click();
    await dialog().waitFor({ state: "detached" });
    const row = page.locator('tr[data-slug="local-llm"]');
    await row.waitFor();
    expect(await row.getByTestId("custom-provider-url").textContent()).toBe("https://llm.example.com/v1");

    await page.getByRole("button", { name: "Edit local-llm" }).click();
    expect(await dialog().getByRole("textbox", { name: "Base URL" }).inputValue()).toBe("https://llm.example.com/v1");
    await dialog().getByRole("textbox", { name: "Base URL" }).fill("https://llm2.example.com/v1");
    await dialog().getByLabel("API key", { exact: true }).fill("cp-secret-key-9876");
    await dialog().getByRole("button", { name: "Save" }).click();
    await dialog().waitFor({ state: "detached" });
    await row.getByText("…9876").waitFor();
    expect(await row.getByTestId("custom-provider-url").textContent()).toBe("https://llm2.example.com/v1");
    expect(await page.content()).not.toContain("cp-secret-key-9876");
    const listed = await hone.trpc<{ slug: string; baseUrl: string; keyLast4: string | null }[]>("customProviders.list");
    expect(listed.map(({ slug, baseUrl, keyLast4 }) => ({ slug, baseUrl, keyLast4 }))).toEqual([
      { slug: "local-llm", baseUrl: "https://llm2.example.com/v1", keyLast4: "9876" },
    ]);
    await shots(page, "settings-custom-providers");

    await page.getByRole("button", { name: "Delete local-llm" }).click();
    expect(await dialog().textContent()).toContain("hone:local-llm/");
    await dialog().getByRole("button", { name: "Delete provider" }).click();
    await dialog().waitFor({ state: "detached" });
    await row.waitFor({ state: "detached" });
    expect(await hone.trpc("customProviders.list")).toEqual([]);
  });
});

describe("revoking the key this session signed in with", () => {
  test("the confirmation says so, and the session ends", async () => {
    const created = await hone.trpc<{ apiKey: string }>("apiKeys.create", { name: "self revoker" }, { mutation: true });
    const own = await browser.newContext();
    try {
      const p = await own.newPage();
      await signIn(p, hone.url, created.apiKey);
      await p.goto(`${hone.url}/settings?tab=api-keys`);
      await p.getByRole("button", { name: "Revoke key self revoker" }).click();
      const d = p.getByRole("dialog");
      await d.getByTestId("revoke-own-key").waitFor();
      expect(await d.getByTestId("revoke-own-key").textContent()).toContain("This is the key you signed in with");
      await d.getByRole("button", { name: "Revoke key" }).click();
      await p.getByText("Your session has ended").waitFor();
      const res = await fetch(`${hone.url}/api/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${created.apiKey}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "still there?" }] }),
      });
      expect(res.status).toBe(401);
      await res.arrayBuffer();
    } finally {
      await own.close();
    }
  });
});
