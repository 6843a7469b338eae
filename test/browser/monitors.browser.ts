import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { BOOTSTRAP_KEY, type Browser, closeAll, type Hone, launchBrowser, shot, signedInPage, startHone } from "./harness";
import { installJudges, prompt } from "./judges";

// Monitors in the console: saved from the Logs page's filters (with a backfill of the range shown),
// judged by a criterion that keeps failures, counts moving as live calls come, paused, and one made
// on the Monitors page itself. The v1 judge fails answers that say "bad".
let hone: Hone;
let browser: Browser;
let page: Page;
const errors: string[] = [];
let criterionId: string;

beforeAll(async () => {
  [hone, browser] = await Promise.all([startHone({ seed: 0, env: { HONE_MONITOR_POLL_MS: "100" } }), launchBrowser()]);
  installJudges(hone.openai);
  ({ page } = await signedInPage(browser, hone, { width: 1440, height: 900 }));
  page.on("pageerror", (e) => errors.push(String(e)));
  criterionId = (await hone.trpc<{ id: string }>("criteria.create", { name: "Not bad", judgeModel: "gpt-4o-mini", prompt: prompt("v1") }, { mutation: true }))
    .id;
}, 180_000);
afterAll(() => closeAll(browser, hone));

async function call(question: string, feature: string): Promise<void> {
  const res = await fetch(`${hone.url}/api/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${BOOTSTRAP_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: question }], metadata: { feature } }),
  });
  expect(res.status).toBe(200);
  await res.arrayBuffer();
}

/** A monitor row's count, as the page shows it. */
const countOf = (name: string, label: string) =>
  page.locator(`tr[data-monitor-name="${name}"] [data-count="${label}"]`).getAttribute("data-value").then(Number);

const waitCount = (name: string, label: string, n: number) =>
  page.waitForFunction(
    ([name, label, n]) => document.querySelector(`tr[data-monitor-name="${name}"] [data-count="${label}"]`)?.getAttribute("data-value") === String(n),
    [name, label, n] as const,
    { timeout: 20_000 },
  );

describe("monitors", () => {
  test("saved from the Logs page's filters with a backfill, a criterion keeping failures; counts move with live calls; paused", async () => {
    for (const q of ["billing is fine", "billing went bad", "refund bad", "invoice ok"]) await call(q, "billing");
    await call("search is bad", "search");
    await page.goto(`${hone.url}/logs?range=1h&tag=${encodeURIComponent(JSON.stringify(["feature=billing"]))}`);
    await page.getByText("4 calls", { exact: false }).first().waitFor();
    await page.getByRole("button", { name: "Monitor these calls" }).click();
    const dialog = page.getByRole("dialog", { name: "New monitor" });
    await expect(dialog.getByTestId("monitor-filter").textContent()).resolves.toBe("feature = billing");
    await dialog.getByLabel("Name").fill("Billing failures");
    await dialog.getByLabel("LLM filter (a criterion)").click();
    await page.getByRole("option", { name: "Not bad" }).click();
    await dialog.getByText("Failures", { exact: true }).click();
    await dialog.getByLabel("Add to dataset").fill("billing failures");
    await expect(dialog.getByLabel(/Also examine the calls already made since/).isChecked()).resolves.toBe(true);
    await shot(page, "monitor-from-logs");
    await dialog.getByRole("button", { name: "Save monitor" }).click();
    await dialog.waitFor({ state: "hidden" });

    await page.getByRole("link", { name: "Monitors" }).click();
    const row = page.locator('tr[data-monitor-name="Billing failures"]');
    await row.waitFor();
    await expect(row.textContent()).resolves.toContain("judged by Not bad, keeping failures");
    // The backfill: the four billing calls of the last hour were judged, the two bad ones added.
    await waitCount("Billing failures", "added", 2);
    expect(await countOf("Billing failures", "judged")).toBe(4);
    expect(await countOf("Billing failures", "rejected")).toBe(2);

    // Live: a new bad billing call is added within a poll; other features are not looked at.
    await call("billing is bad again", "billing");
    await call("search bad again", "search");
    await waitCount("Billing failures", "added", 3);
    expect(await countOf("Billing failures", "matched")).toBe(5);
    await shot(page, "monitors");

    // The entries are in the dataset, linked from the row.
    await row.getByRole("link", { name: "billing failures" }).click();
    await page.getByText("billing is bad again").first().waitFor();
    await page.goBack();

    await page.getByRole("button", { name: "Pause Billing failures" }).click();
    await page.locator('tr[data-monitor-name="Billing failures"][data-status="PAUSED"]').waitFor();
    await call("billing bad while paused", "billing");
    await Bun.sleep(1_000);
    expect(await countOf("Billing failures", "matched")).toBe(5);
    const listed = await hone.trpc<any[]>("monitors.list");
    expect(listed.find((m) => m.name === "Billing failures")?.criterionId).toBe(criterionId);
  }, 120_000);

  test("a monitor made on the Monitors page with a sample, backfilled, then deleted; bad input is said", async () => {
    await page.goto(`${hone.url}/monitors`);
    await page.getByRole("button", { name: "New monitor" }).click();
    const dialog = page.getByRole("dialog", { name: "New monitor" });
    await dialog.getByLabel("Name").fill("Search sample");
    await dialog.getByLabel("Tag").fill("feature");
    await dialog.getByLabel("Add to dataset").fill("search sample");
    await dialog.getByRole("button", { name: "Save monitor" }).click();
    await dialog.getByText("Write the tag as key=value").waitFor();
    await dialog.getByLabel("Tag").fill("feature=search");
    await dialog.getByLabel("Sample (% of calls)").fill("100");
    await dialog.getByRole("button", { name: "Save monitor" }).click();
    await dialog.waitFor({ state: "hidden" });
    const row = page.locator('tr[data-monitor-name="Search sample"]');
    await row.waitFor();
    await expect(row.textContent()).resolves.toContain("feature = search");

    // Backfilled over the last day: the two search calls made before it existed.
    await page.getByRole("button", { name: "Backfill Search sample" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Backfill" }).click();
    await waitCount("Search sample", "added", 2);

    await page.getByRole("button", { name: "Delete Search sample" }).click();
    await page.getByRole("button", { name: "Delete monitor" }).click();
    await row.waitFor({ state: "detached" });
    await page.locator('tr[data-monitor-name="Billing failures"]').waitFor();
    expect(errors).toEqual([]);
  }, 120_000);
});
