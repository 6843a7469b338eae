import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { expectAccessible } from "./a11y";
import { type Browser, closeAll, type Hone, launchBrowser, shot, signedInPage, startHone } from "./harness";

// The Routes section: a route made in the form, calls to it, each version's figures side by side,
// the split moved with the keyboard and saved, rolled back in one click, and a routed call's
// attempts in the log drawer.

let hone: Hone;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  [hone, browser] = await Promise.all([startHone({ seed: 0 }), launchBrowser()]);
  ({ page } = await signedInPage(browser, hone));
}, 180_000);
afterAll(() => closeAll(browser, hone));

type RouteOut = { revision: number; groups: { targets: { model: string; weight: number }[] }[] };
const weights = async () => (await hone.trpc<RouteOut>("routes.get", { slug: "support" })).groups[0]!.targets.map((t) => t.weight);
const dialog = () => page.getByRole("dialog");

async function call(n: number) {
  for (let i = 0; i < n; i++) {
    const res = await fetch(`${hone.url}/api/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${hone.project.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "hone:support", messages: [{ role: "user", content: `question ${i}` }] }),
    });
    expect(res.status).toBe(200);
  }
}

describe("routes", () => {
  test("a route made in the form, called, and its versions' figures shown side by side", async () => {
    await page.getByRole("link", { name: "Routes", exact: true }).click();
    await page.getByText("No routes yet").waitFor();
    await page.getByRole("button", { name: "New route" }).click();
    await dialog().getByLabel("Slug").fill("support");
    await dialog().getByLabel("Model of target 1 in group 1").fill("gpt-4o-mini");
    await dialog().getByLabel("Weight of target 1 in group 1").fill("90");
    await dialog().getByLabel("Version of target 1 in group 1").fill("v1");
    await dialog().getByRole("button", { name: "Add target" }).click();
    await dialog().getByLabel("Model of target 2 in group 1").fill("anthropic:claude-haiku-4-5");
    await dialog().getByLabel("Weight of target 2 in group 1").fill("10");
    await dialog().getByLabel("Version of target 2 in group 1").fill("v2");
    await expect(dialog().getByTestId("route-group-sum-0").textContent()).resolves.toContain("100%");
    // A bad target is refused by the server, which names it.
    await dialog().getByRole("button", { name: "Add fallback group" }).click();
    await dialog().getByLabel("Model of target 1 in group 2").fill("hone:nope");
    await dialog().getByRole("button", { name: "Create route" }).click();
    await dialog().getByText("unknown target hone:nope").waitFor();
    await dialog().getByLabel("Model of target 1 in group 2").fill("anthropic:claude-sonnet-4-5");
    await dialog().getByRole("button", { name: "Create route" }).click();
    await page.waitForURL(/\/routes\/support$/);
    await page.getByRole("heading", { name: "hone:support" }).waitFor();
    expect(await weights()).toEqual([90, 10]);

    await call(30);
    // Read again every 5 s: the calls appear without a reload.
    const stats = page.getByTestId("route-stats");
    await page.waitForFunction(
      () => {
        const cells = [...document.querySelectorAll('[data-testid="route-stats"] tbody tr')].map((r) => Number(r.children[2]?.textContent?.replace(/,/g, "")));
        return cells.reduce((a, b) => a + (Number.isFinite(b) ? b : 0), 0) === 30;
      },
      undefined,
      { timeout: 15_000 },
    );
    await expect(stats.locator('tr[data-version="v1"]').textContent()).resolves.toContain("90%");
    await shot(page, "route-page");
  }, 60_000);

  test("the split moved with the keyboard and saved, then rolled back in one click", async () => {
    const v2 = page.getByRole("slider", { name: "Share of anthropic:claude-haiku-4-5 (v2)" });
    await v2.focus();
    for (let i = 0; i < 40; i++) await page.keyboard.press("ArrowRight");
    await expect(page.getByTestId("weight-0-0").textContent()).resolves.toBe("50%");
    await expect(page.getByTestId("weight-0-1").textContent()).resolves.toBe("50%");
    await page.getByRole("button", { name: "Save split" }).click();
    await page.getByText("Split of hone:support saved (revision 2)").waitFor();
    expect(await weights()).toEqual([50, 50]);
    await page.getByTestId("route-previous").getByText("gpt-4o-mini 90%").waitFor();

    await page.getByRole("button", { name: "Roll back" }).click();
    await page.getByText(/Rolled back: hone:support is at revision 3/).waitFor();
    expect(await weights()).toEqual([90, 10]);
    await expect(page.getByTestId("weight-0-1").textContent()).resolves.toBe("10%");
  });

  test("a judged route: each version's pass rate, calls, error rate and p95 over time", async () => {
    const crit = await hone.trpc<{ id: string }>(
      "criteria.create",
      { name: "Right", judgeModel: "gpt-4o-mini", prompt: "Is the answer right?\n{{messages}}\n{{output}}" },
      { mutation: true },
    );
    const r = await hone.trpc<RouteOut & { attempts: number | null }>("routes.get", { slug: "support" });
    await hone.trpc("routes.update", { slug: "support", groups: r.groups, judge: { criteria: [crit.id], sampleRate: 1 } }, { mutation: true });
    // Questions saying "wrong" fail the fake judge: 4 of 10 judged answers fail.
    for (let i = 0; i < 10; i++) {
      const res = await fetch(`${hone.url}/api/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${hone.project.apiKey}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "hone:support", messages: [{ role: "user", content: i % 5 < 2 ? `wrong ${i}` : `fine ${i}` }] }),
      });
      expect(res.status).toBe(200);
    }
    const passChart = page.getByTestId("chart-pass-rate");
    await passChart.waitFor({ timeout: 15_000 });
    await page.getByRole("columnheader", { name: "Pass rate (judged)" }).waitFor();
    await page.waitForFunction(
      () => {
        const cells = [...document.querySelectorAll('[data-testid="route-stats"] [data-col="pass-rate"]')].map(
          (c) => /\((\d+)\)/.exec(c.textContent ?? "")?.[1],
        );
        return cells.reduce((a, b) => a + Number(b ?? 0), 0) === 10;
      },
      undefined,
      { timeout: 15_000 },
    );
    // A line per version that was judged, drawn in the chart (recharts draws each as a path).
    await expect(passChart.locator(".recharts-line").count()).resolves.toBeGreaterThan(0);
    await expect(page.getByTestId("chart-route-requests").locator(".recharts-bar-rectangle").count()).resolves.toBeGreaterThan(0);
    await page.getByTestId("chart-error-rate").waitFor();
    await page.getByTestId("chart-route-latency").waitFor();
    await passChart.scrollIntoViewIfNeeded();
    await shot(page, "route-charts");
  }, 60_000);

  test("a routed call's log shows its route and attempts; the list filters by route and version", async () => {
    await page.getByTestId("route-stats").locator('tr[data-version="v1"]').getByRole("link", { name: "Logs" }).click();
    await page.waitForURL(/route=support/);
    await page.getByText("route is support").waitFor();
    await page.getByText("version is v1").waitFor();
    await page.locator("[data-log-id]").first().click();
    const attempts = page.getByTestId("attempts");
    await attempts.waitFor();
    await expect(attempts.textContent()).resolves.toContain("gpt-4o-mini");
    await expect(attempts.textContent()).resolves.toContain("answered");
    await page.getByTestId("fact-route").getByRole("link", { name: "hone:support" }).waitFor();
    await shot(page, "route-log-attempts");
  });

  test("the routes pages are accessible in both themes", async () => {
    await page.goto(`${hone.url}/routes/support`);
    await expectAccessible(page, "route-page-a11y", () => page.getByTestId("route-stats").locator("tbody tr").first().waitFor());
    await page.goto(`${hone.url}/routes`);
    await expectAccessible(page, "routes-page-a11y", () => page.getByTestId("route-row-support").waitFor());
  }, 60_000);
});
