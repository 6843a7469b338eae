import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { type FakeTrainer, startFakeTrainer } from "../helpers/fake-trainer";
import { waitFor } from "../helpers/wait-for";
import { type Browser, type Hone, launchBrowser, shot, startHone, signedInPage } from "./harness";
import { installJudges, prompt } from "./judges";

// Evaluations and dataset quality in the console, with the deterministic judges of judges.ts.
// A base model (gpt-4o-mini answers "echo: <question>") against a fine-tune trained by the fake
// Together backend (it answers "tuned: <question>") on four TEST questions, judged by "tuned" (only
// the fine-tune passes) and "short" (both fail question 3): the summary, head to head and the
// entries side by side must show what the API computes. Then a dataset judged by rule v1 (fails
// "bad"), its failing entries relabelled, one reverted and the others accepted.

let trainer: FakeTrainer;
let hone: Hone;
let browser: Browser;
let page: Page;
const dialog = () => page.getByRole("dialog");

beforeAll(async () => {
  trainer = startFakeTrainer();
  [hone, browser] = await Promise.all([
    startHone({ seed: 0, env: { TOGETHER_BASE_URL: `${trainer.url}/v1`, HONE_FINETUNE_POLL_MS: "100", HONE_JOB_POLL_MS: "50" } }),
    launchBrowser(),
  ]);
  installJudges(hone.openai);
  await hone.trpc("providerKeys.set", { provider: "together", apiKey: "tg-browser-test-key" }, { mutation: true });
  ({ page } = await signedInPage(browser, hone));
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await hone?.stop();
  await trainer?.stop();
});

const qa = (q: string, a: string, split: "TRAIN" | "TEST") => ({
  messages: [
    { role: "user", content: q },
    { role: "assistant", content: a },
  ],
  split,
});

describe("evaluations", () => {
  test("a base model against a fine-tune under two pinned criteria: summary equals the API, head to head, entries side by side", async () => {
    const ds = await hone.trpc<{ id: string }>("datasets.create", { name: "support eval" }, { mutation: true });
    await hone.trpc(
      "datasets.addEntries",
      {
        datasetId: ds.id,
        entries: [
          ...Array.from({ length: 10 }, (_, i) => qa(`Training question ${i}`, `Training answer ${i}`, "TRAIN")),
          ...[1, 2, 3, 4].map((i) => qa(`Question ${i}`, `Reference ${i}`, "TEST")),
        ],
      },
      { mutation: true },
    );
    await hone.trpc(
      "models.create",
      { datasetId: ds.id, slug: "support-ft", trainingConfig: { provider: "together", baseModel: "Qwen/Qwen2.5-7B-Instruct" } },
      { mutation: true },
    );
    await waitFor(async () => (await hone.trpc("models.get", { slug: "support-ft" })).status === "DEPLOYED", { timeoutMs: 30_000 });
    const tuned = await hone.trpc("criteria.create", { name: "Tuned", judgeModel: "gpt-4o-mini", prompt: prompt("tuned") }, { mutation: true });
    const short = await hone.trpc("criteria.create", { name: "Short", judgeModel: "gpt-4o-mini", prompt: prompt("short") }, { mutation: true });
    // A second version of Short exists, but the evaluation pins v1.
    await hone.trpc("criteria.createVersion", { criterionId: short.id, prompt: prompt("v1") }, { mutation: true });

    await page.goto(`${hone.url}/evaluations`);
    await page.getByText("No evaluations yet").waitFor();
    await page.getByRole("button", { name: "New evaluation" }).click();
    await dialog()
      .getByRole("combobox", { name: /^Dataset/ })
      .click();
    await page.getByRole("option", { name: /support eval/ }).click();
    const models = dialog().getByLabel("Models", { exact: true }).first();
    await models.fill("gpt-4o-mini");
    await models.press("Enter");
    await models.fill("hone:support-ft");
    await models.press("Enter");
    await dialog().getByLabel("Criteria (versions pinned)", { exact: true }).first().click({ force: true });
    await page.getByRole("option", { name: "Tuned v1 (latest)" }).click();
    await page.getByRole("option", { name: "Short v1", exact: true }).click();
    await page.keyboard.press("Escape");
    await dialog().getByText("8 answers to get, each judged 2 times.").waitFor();
    await shot(page, "evaluations-create");
    await dialog().getByRole("button", { name: "Start evaluation" }).click();
    await page.waitForURL(/\/evaluations\/eval_/);
    const id = page.url().split("/evaluations/")[1]!.split("?")[0]!;
    await page.getByTestId("evaluation-status").filter({ hasText: "DONE" }).waitFor({ timeout: 30_000 });
    expect(await page.getByTestId("evaluation-progress").textContent()).toBe("8 / 8");

    // The summary is the API's, row for row; the best per column is marked.
    const api = await hone.trpc("evaluations.get", { id });
    expect(api.criteria).toEqual([
      { criterionId: tuned.id, version: 1 },
      { criterionId: short.id, version: 1 },
    ]);
    const rows = page.getByTestId("summary-row");
    await rows.first().waitFor();
    expect(await rows.count()).toBe(4);
    for (const r of api.summary) {
      const row = page.locator(`[data-testid="summary-row"][data-model="${r.model}"][data-criterion="${r.criterionId}"]`);
      const rate = (await row.getByTestId("summary-passRate").textContent())!.replace(" ★", "");
      expect(rate).toBe(`${(100 * r.passRate).toFixed(1)}%`);
      expect((await row.getByTestId("summary-judgeErrors").textContent())!.replace(" ★", "")).toBe(String(r.judgeErrors));
    }
    const rateOf = (model: string, criterionId: string) => api.summary.find((r: any) => r.model === model && r.criterionId === criterionId).passRate;
    expect([rateOf("hone:support-ft", tuned.id), rateOf("gpt-4o-mini", tuned.id), rateOf("hone:support-ft", short.id)]).toEqual([1, 0, 0.75]);
    const best = page.locator(`[data-testid="summary-row"][data-model="hone:support-ft"][data-criterion="${tuned.id}"]`).getByTestId("summary-passRate");
    expect(await best.textContent()).toBe("100.0% ★");
    await shot(page, "evaluations-summary");

    // Head to head: the fine-tune wins every entry (it passes Tuned; both fail Short on question 3).
    await page.getByRole("tab", { name: "Head to head" }).click();
    const h2h = await hone.trpc("evaluations.headToHead", { id, modelA: "gpt-4o-mini", modelB: "hone:support-ft" });
    expect([h2h.aWins, h2h.bWins, h2h.ties]).toEqual([0, 4, 0]);
    await page.getByTestId("h2h-b-wins").filter({ hasText: "4" }).waitFor();
    expect(await page.getByTestId("h2h-a-wins").textContent()).toBe("0");
    expect(await page.getByTestId("h2h-entry").count()).toBe(h2h.entries.length);
    await shot(page, "evaluations-head-to-head");

    // One entry side by side: the question, both answers, each verdict with its explanation.
    await page.getByRole("tab", { name: "Entries side by side" }).click();
    const entry = page.getByTestId("evaluation-entry").filter({ hasText: "Question 3" });
    await entry.waitFor();
    expect(await entry.getByTestId("model-result").count()).toBe(2);
    const ft = entry.locator('[data-model="hone:support-ft"]');
    expect(await ft.textContent()).toContain("tuned: Question 3");
    expect(await ft.getByTestId("verdict").allTextContents()).toEqual([
      "Tuned: PASSrule tuned: the output is acceptable.",
      "Short: FAILrule short: the output breaks the rule.",
    ]);
    expect(await entry.locator('[data-model="gpt-4o-mini"]').textContent()).toContain("echo: Question 3");
    await page.getByLabel(/Only entries where/).check();
    await page.getByTestId("evaluation-entry").first().waitFor();
    expect(await page.getByTestId("evaluation-entry").count()).toBe(4);
    await shot(page, "evaluations-entries");
    await page.getByRole("link", { name: "all evaluations" }).click();
    await page.getByTestId("evaluation-row").getByText("DONE").waitFor();
  }, 90_000);
});

describe("dataset quality", () => {
  test("judge a dataset, relabel the failing entries, revert one and accept the others; the API agrees", async () => {
    const ds = await hone.trpc<{ id: string }>("datasets.create", { name: "quality set" }, { mutation: true });
    await hone.trpc(
      "datasets.addEntries",
      {
        datasetId: ds.id,
        entries: [1, 2, 3, 4, 5, 6].map((i) => qa(`Help ${i}`, i % 2 ? `bad answer ${i}` : `fine answer ${i}`, "TRAIN")),
      },
      { mutation: true },
    );
    await hone.trpc("criteria.create", { name: "No bad answers", judgeModel: "gpt-4o-mini", prompt: prompt("v1") }, { mutation: true });
    // The entries as cards (the table is the dataset page's default; reviewing shows cards).
    await page.goto(`${hone.url}/datasets/${ds.id}?view=cards`);
    await page.getByTestId("entry").first().waitFor();
    await page.getByRole("button", { name: "Judge / relabel" }).click();
    await dialog()
      .getByRole("combobox", { name: /^Criterion/ })
      .click();
    await page.getByRole("option", { name: /No bad answers/ }).click();
    await dialog().getByRole("button", { name: "Judge all entries" }).click();
    await dialog().locator('[data-testid="dataset-task"][data-status="DONE"]').filter({ hasText: "6 / 6" }).waitFor({ timeout: 20_000 });
    await page.keyboard.press("Escape");
    // The verdicts are on the entries: three FAIL.
    await waitFor(async () => (await page.getByTestId("entry").filter({ hasText: ": FAIL" }).count()) === 3);

    await page.getByRole("button", { name: "Judge / relabel" }).click();
    await dialog().getByRole("tab", { name: "Relabel failing entries" }).click();
    await dialog()
      .getByRole("combobox", { name: /^Criterion/ })
      .click();
    await page.getByRole("option", { name: /No bad answers/ }).click();
    await dialog().getByLabel("Model that writes the new answers").fill("gpt-4o-relabel");
    await dialog().getByRole("button", { name: "Relabel failing entries" }).click();
    await dialog().locator('[data-testid="dataset-task"][data-status="DONE"]').filter({ hasText: "Relabelling" }).waitFor({ timeout: 20_000 });
    await page.keyboard.press("Escape");

    const banner = page.getByTestId("review-banner");
    await banner.filter({ hasText: "3 relabelled entries await your review" }).waitFor();
    await banner.getByRole("button", { name: "Review them" }).click();
    await waitFor(async () => (await page.getByTestId("relabel-review").count()) === 3);
    const reviews = page.getByTestId("relabel-review");
    // Each shows the original answer against the new one.
    const first = reviews.first();
    expect(await first.locator("del").allTextContents()).toEqual(expect.arrayContaining([expect.stringContaining("bad")]));
    expect((await first.locator("ins").allTextContents()).join("")).toContain("echo");
    await shot(page, "dataset-relabel-review");
    const entryIdOf = async (i: number) => (await page.getByTestId("entry").nth(i).getAttribute("data-entry-id"))!;
    const reverted = await entryIdOf(0);
    await reviews.first().getByRole("button", { name: "Revert to original" }).click();
    await waitFor(async () => (await page.getByTestId("relabel-review").count()) === 2);
    const accepted = [await entryIdOf(0), await entryIdOf(1)];
    await page.getByTestId("relabel-review").first().getByRole("button", { name: "Accept new answer" }).click();
    await waitFor(async () => (await page.getByTestId("relabel-review").count()) === 1);
    await page.getByTestId("relabel-review").first().getByRole("button", { name: "Accept new answer" }).click();
    await page.getByText("No entries match these filters").waitFor();

    const { entries } = await hone.trpc<{ entries: any[] }>("datasets.listEntries", { datasetId: ds.id, first: 100 });
    const byId = new Map(entries.map((e) => [e.id, e]));
    expect(byId.get(reverted)).toMatchObject({ originalMessages: null, relabeledBy: null });
    expect(byId.get(reverted).messages.at(-1).content).toStartWith("bad answer");
    for (const id of accepted) {
      expect(byId.get(id)).toMatchObject({ originalMessages: null, relabeledBy: "gpt-4o-relabel" });
      expect(byId.get(id).messages.at(-1).content).toStartWith("echo: Help");
      expect(byId.get(id).verdicts[0].judgement).toBe("PASS");
    }
    expect((await hone.trpc("datasets.countEntries", { datasetId: ds.id, filter: { pendingReview: true } })).count).toBe(0);
  }, 60_000);
});

describe("cancelling", () => {
  test("a running evaluation can be cancelled from its page", async () => {
    const ds = (await hone.trpc<any[]>("datasets.list")).find((d) => d.name === "support eval");
    const crit = (await hone.trpc<any[]>("criteria.list"))[0];
    // slow-3000: each answer takes 3 s, so the evaluation is still running when it is cancelled.
    const ev = await hone.trpc("evaluations.create", { datasetId: ds.id, models: ["slow-3000"], criterionIds: [crit.id] }, { mutation: true });
    await page.goto(`${hone.url}/evaluations/${ev.id}`);
    await page.getByRole("button", { name: "Cancel" }).click();
    await dialog().getByRole("button", { name: "Cancel evaluation" }).click();
    await page.getByTestId("evaluation-status").filter({ hasText: "CANCELLED" }).waitFor();
    expect((await hone.trpc("evaluations.get", { id: ev.id })).status).toBe("CANCELLED");
  });
});
