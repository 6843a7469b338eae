import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { BOOTSTRAP_KEY, type Browser, closeAll, type Hone, launchBrowser, shot, signedInPage, startHone } from "./harness";
import { installJudges, prompt } from "./judges";

// Online evaluation in the console: started on the Monitors page for a model, its pass rate moving
// as live calls are judged, the pass rate by model on the Usage page, paused. The v1 judge fails
// answers that say "bad".
let hone: Hone;
let browser: Browser;
let page: Page;
const errors: string[] = [];

beforeAll(async () => {
  [hone, browser] = await Promise.all([startHone({ seed: 0 }), launchBrowser()]);
  installJudges(hone.openai);
  ({ page } = await signedInPage(browser, hone, { width: 1440, height: 900 }));
  page.on("pageerror", (e) => errors.push(String(e)));
  await hone.trpc("criteria.create", { name: "Not bad", judgeModel: "gpt-4o-mini", prompt: prompt("v1") }, { mutation: true });
}, 180_000);
afterAll(() => closeAll(browser, hone));

async function call(question: string): Promise<void> {
  const res = await fetch(`${hone.url}/api/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${BOOTSTRAP_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: question }] }),
  });
  expect(res.status).toBe(200);
  await res.arrayBuffer();
}

describe("online evaluation", () => {
  test("started on the Monitors page; its pass rate moves with live calls; shown by model on Usage; paused", async () => {
    await page.goto(`${hone.url}/monitors`);
    await page.getByTestId("online-evals-table").getByText("No model is evaluated online yet.").waitFor();
    await page.getByRole("button", { name: "New online evaluation" }).click();
    const dialog = page.getByRole("dialog", { name: "New online evaluation" });
    await dialog.getByLabel("Model").fill("gpt-4o-mini");
    await dialog.getByLabel("Criteria").click();
    await page.getByRole("option", { name: "Not bad" }).click();
    // The dropdown closes before the fields under it are used.
    await dialog.getByText("Each sampled answer is judged").click();
    await dialog.getByLabel("Sample (% of calls)").fill("100");
    await dialog.getByLabel("Alert below (pass rate)").fill("75");
    await dialog.getByRole("button", { name: "Start evaluating" }).click();
    await dialog.waitFor({ state: "hidden" });
    const row = page.locator('tr[data-online-eval="openai:gpt-4o-mini"]');
    await row.waitFor();
    await expect(row.textContent()).resolves.toContain("Not bad");
    await expect(row.textContent()).resolves.toContain("below 75%");

    for (const q of ["all fine", "this is bad", "good answer", "bad again"]) await call(q);
    // Read again every few seconds: the four verdicts show, half passed (below the alert's 75%: red).
    await page.waitForFunction(
      () => document.querySelector('tr[data-online-eval="openai:gpt-4o-mini"] td[data-judged]')?.getAttribute("data-judged") === "4",
      null,
      {
        timeout: 20_000,
      },
    );
    await expect(row.textContent()).resolves.toContain("50% passed");
    await shot(page, "online-evals-monitors");

    await page.goto(`${hone.url}/usage?range=24h&split=model`);
    const card = page.getByTestId("pass-rate-card");
    await card.waitFor();
    const group = card.locator('tr[data-group="openai:gpt-4o-mini"]');
    await group.waitFor();
    await expect(group.getAttribute("data-pass-rate")).resolves.toBe("0.5");
    await expect(group.textContent()).resolves.toContain("50%");
    await shot(page, "online-evals-usage");

    await page.goto(`${hone.url}/monitors`);
    await page.getByRole("button", { name: "Pause the evaluation of openai:gpt-4o-mini" }).click();
    await page.locator('tr[data-online-eval="openai:gpt-4o-mini"][data-status="PAUSED"]').waitFor();
    expect(errors).toEqual([]);
  }, 120_000);
});
