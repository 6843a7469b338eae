import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { waitFor } from "../helpers/wait-for";
import { expectAccessible } from "./a11y";
import { type Browser, type Hone, launchBrowser, shot, startHone, signedInPage, closeAll } from "./harness";
import { installJudges, prompt } from "./judges";

// Evaluations: "New evaluation" opened and filled in from the URL, a name given and shown, the
// dataset's own answers (the `dataset` pseudo-model) shown as the reference and never ranked, each
// entry's link to the evaluation's calls in the logs, plurals, no serious axe violation (light and
// dark) and no sideways scrolling at 800 px.
//
// Two TEST questions that say "meh": the models echo them ("echo: ... meh ...") and rule v2 fails
// that, while the reference answers pass, so the dataset would have the best pass rate (and, costing
// nothing, the best cost and latency) if it were ranked.

let hone: Hone;
let browser: Browser;
let page: Page;
let datasetId = "";
let criterionId = "";
let evaluationId = "";
const dialog = () => page.getByRole("dialog");

beforeAll(async () => {
  [hone, browser] = await Promise.all([startHone({ seed: 0, env: { HONE_JOB_POLL_MS: "50" } }), launchBrowser()]);
  installJudges(hone.openai);
  datasetId = (await hone.trpc<{ id: string }>("datasets.create", { name: "meh questions" }, { mutation: true })).id;
  await hone.trpc(
    "datasets.addEntries",
    {
      datasetId,
      entries: [1, 2].map((i) => ({
        messages: [
          { role: "user", content: `Question ${i}: is this meh?` },
          { role: "assistant", content: `Reference answer ${i}: it is fine.` },
        ],
        split: "TEST",
      })),
    },
    { mutation: true },
  );
  criterionId = (await hone.trpc<{ id: string }>("criteria.create", { name: "Not meh", judgeModel: "gpt-4o-mini", prompt: prompt("v2") }, { mutation: true }))
    .id;
  ({ page } = await signedInPage(browser, hone, { width: 1440, height: 900 }));
}, 180_000);
afterAll(() => closeAll(browser, hone));

describe("evaluations", () => {
  test("/evaluations?new=1&model=&datasetId= opens New evaluation with that model and dataset chosen", async () => {
    await page.goto(`${hone.url}/evaluations?new=1&model=${encodeURIComponent("gpt-4o-mini")}&datasetId=${datasetId}`);
    await dialog().getByRole("heading", { name: "New evaluation" }).waitFor();
    // The dataset is chosen once the list of datasets has loaded.
    const dataset = dialog().getByRole("combobox", { name: /^Dataset/ });
    await waitFor(async () => (await dataset.inputValue()) === "meh questions (2 test entries)");
    const pills = dialog().locator(".mantine-TagsInput-pill");
    expect(await pills.allTextContents()).toEqual(["gpt-4o-mini"]);
    // The name is optional: its placeholder is the name the server gives.
    expect(await dialog().getByRole("textbox", { name: "Name" }).getAttribute("placeholder")).toBe("gpt-4o-mini on meh questions");
    await shot(page, "evaluations-prefilled");
  });

  test("a name given is the evaluation's name, on its page and in the list; work counted in words", async () => {
    await dialog().getByRole("textbox", { name: "Name" }).fill("Mini and 4o against the reference");
    const models = dialog().getByLabel("Models", { exact: true }).first();
    for (const m of ["gpt-4o", "dataset"]) {
      await models.fill(m);
      await models.press("Enter");
    }
    await dialog().getByLabel("Criteria (versions pinned)", { exact: true }).first().click({ force: true });
    await page.getByRole("option", { name: "Not meh v1 (latest)" }).click();
    await page.keyboard.press("Escape");
    await dialog().getByTestId("evaluation-work").filter({ hasText: "6 answers to get, each judged once." }).waitFor();
    await dialog().getByRole("button", { name: "Start evaluation" }).click();
    await page.waitForURL(/\/evaluations\/eval_/);
    evaluationId = page.url().split("/evaluations/")[1]!.split("?")[0]!;
    await page.getByRole("heading", { name: "Mini and 4o against the reference" }).waitFor();
    await page.getByText("3 models · 1 criterion ·").waitFor();
    await page.getByTestId("evaluation-status").filter({ hasText: "DONE" }).waitFor({ timeout: 30_000 });
    expect((await hone.trpc("evaluations.get", { id: evaluationId })).name).toBe("Mini and 4o against the reference");
    // Without a name, the server's default.
    await hone.trpc("evaluations.create", { datasetId, models: ["gpt-4o-mini"], criterionIds: [criterionId] }, { mutation: true });
    await page.goto(`${hone.url}/evaluations`);
    await page.getByTestId("evaluation-name").filter({ hasText: "Mini and 4o against the reference" }).waitFor();
    await page.getByTestId("evaluation-name").filter({ hasText: "gpt-4o-mini on meh questions" }).waitFor();
    await shot(page, "evaluations-list-named");
  });

  test("the dataset's own answers are the reference: never starred or bold, even with the best pass rate", async () => {
    await page.goto(`${hone.url}/evaluations/${evaluationId}`);
    const rows = page.getByTestId("summary-row");
    await rows.first().waitFor();
    expect(await rows.count()).toBe(3);
    const api = await hone.trpc("evaluations.get", { id: evaluationId });
    const rate = (m: string) => api.summary.find((r: any) => r.model === m).passRate;
    expect([rate("dataset"), rate("gpt-4o-mini"), rate("gpt-4o")]).toEqual([1, 0, 0]);
    const reference = page.locator('[data-testid="summary-row"][data-model="dataset"]');
    expect(await reference.getByTestId("reference").textContent()).toBe("reference");
    expect(await reference.locator("[data-best]").count()).toBe(0);
    expect(await reference.textContent()).not.toContain("★");
    expect(await reference.getByTestId("summary-passRate").evaluate((el) => getComputedStyle(el).fontWeight)).not.toBe("700");
    // The two real models are still compared (their costs and latencies differ or tie; the pass rate ties, so no star there).
    expect(await page.locator('[data-testid="summary-row"][data-model="gpt-4o"] [data-testid="summary-passRate"]').textContent()).toBe("0.0%");
    await shot(page, "evaluations-reference-not-ranked");
    // Head to head names it as the reference too.
    await page.getByRole("tab", { name: "Head to head" }).click();
    await page.getByTestId("h2h-a-wins").waitFor();
  });

  test("each entry links to the evaluation's calls in the logs (internal calls, tagged hone.evaluation)", async () => {
    await page.goto(`${hone.url}/evaluations/${evaluationId}?tab=entries`);
    const entry = page.getByTestId("evaluation-entry").first();
    await entry.waitFor();
    expect(await page.getByTestId("evaluation-entry").count()).toBe(2);
    const link = entry.getByTestId("evaluation-logs-link");
    const expected = `/logs?internal=1&tag=hone.evaluation%3D${evaluationId}`;
    expect(await link.getAttribute("href")).toBe(expected);
    // The calls it points at exist: the models' answers and the judges' verdicts, internal and tagged.
    await waitFor(async () => {
      const logs = await hone.trpc<{ logs: { internalKind: string | null }[] }>("logs.list", {
        filter: { internal: true, tags: [{ key: "hone.evaluation", equals: evaluationId }] },
        first: 50,
      });
      return logs.logs.length >= 4;
    });
    await shot(page, "evaluations-entries-logs-link");
    await link.click();
    await page.waitForURL((u) => u.pathname === "/logs");
    expect(page.url()).toBe(`${hone.url}${expected}`);
  });

  test("no serious or critical axe violation on the list, the form and every tab, light and dark", async () => {
    await page.goto(`${hone.url}/evaluations`);
    await expectAccessible(page, "evaluations-list-a11y", () => page.getByTestId("evaluation-row").first().waitFor());
    await page.goto(`${hone.url}/evaluations?new=1&model=gpt-4o-mini&datasetId=${datasetId}`);
    await expectAccessible(page, "evaluations-new-a11y", () => dialog().getByRole("button", { name: "Start evaluation" }).waitFor());
    for (const tab of ["", "?tab=entries", "?tab=h2h"]) {
      await page.goto(`${hone.url}/evaluations/${evaluationId}${tab}`);
      await expectAccessible(page, `evaluation${tab ? `-${tab.slice(5)}` : "-summary"}-a11y`, async () => {
        await page.getByTestId("evaluation-status").waitFor();
        if (tab === "?tab=entries") await page.getByTestId("evaluation-entry").first().waitFor();
        if (tab === "?tab=h2h") await page.getByTestId("h2h-a-wins").waitFor();
      });
    }
  }, 60_000);

  test("at 800 px wide no view scrolls the page sideways", async () => {
    await page.setViewportSize({ width: 800, height: 900 });
    for (const path of ["/evaluations", `/evaluations/${evaluationId}`, `/evaluations/${evaluationId}?tab=entries`, `/evaluations/${evaluationId}?tab=h2h`]) {
      await page.goto(`${hone.url}${path}`);
      await page.getByRole("heading", { level: 2 }).first().waitFor();
      await page.waitForTimeout(300);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect({ path, overflow }).toEqual({ path, overflow: 0 });
    }
    await shot(page, "evaluations-narrow");
    await page.setViewportSize({ width: 1440, height: 900 });
  });
});
