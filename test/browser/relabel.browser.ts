import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { type FakeTrainer, startFakeTrainer } from "../helpers/fake-trainer";
import { BOOTSTRAP_KEY, type Browser, closeAll, type Hone, launchBrowser, openDialog, shot, signedInPage, startHone } from "./harness";
import { installJudges, prompt } from "./judges";

// Relabel runs and DPO in the console: a run started from the dataset page, its outputs compared
// side by side with verdicts, accepted in part and the rest rejected; then a DPO fine-tune on the
// preference pairs this made, whose file the fake trainer checks line by line. The v1 judge fails
// answers that say "bad"; the relabel model answers "echo: <question>". The model page then shows
// the loss curve the fake trainer reported.
let hone: Hone;
let browser: Browser;
let page: Page;
let trainer: FakeTrainer;
let datasetId: string;
const errors: string[] = [];

beforeAll(async () => {
  trainer = startFakeTrainer();
  [hone, browser] = await Promise.all([
    startHone({ seed: 0, env: { TOGETHER_BASE_URL: `${trainer.url}/v1`, HONE_FINETUNE_POLL_MS: "100", HONE_JOB_POLL_MS: "50" } }),
    launchBrowser(),
  ]);
  installJudges(hone.openai);
  ({ page } = await signedInPage(browser, hone, { width: 1440, height: 900 }));
  page.on("pageerror", (e) => errors.push(String(e)));
  await hone.trpc("providerKeys.set", { provider: "together", apiKey: "tg-browser-test-key" }, { mutation: true });
  await hone.trpc("criteria.create", { name: "Not bad", judgeModel: "gpt-4o-mini", prompt: prompt("v1") }, { mutation: true });
  datasetId = (await hone.trpc<{ id: string }>("datasets.create", { name: "support answers" }, { mutation: true })).id;
  const qa = (q: string, a: string) => ({
    messages: [
      { role: "user", content: q },
      { role: "assistant", content: a },
    ],
    split: "TRAIN",
  });
  await hone.trpc(
    "datasets.addEntries",
    { datasetId, entries: [qa("Question A", "a bad answer"), qa("Question B", "a fine answer"), qa("Question C", "bad again")] },
    { mutation: true },
  );
}, 180_000);
afterAll(async () => {
  await closeAll(browser, hone);
  await trainer?.stop();
});

const row = (q: string) => page.locator(`tr[data-question="${q}"]`);

describe("relabel runs and DPO", () => {
  test("a run compared side by side, accepted in part, the rest rejected", async () => {
    await page.goto(`${hone.url}/datasets/${datasetId}`);
    const dialog = await openDialog(page, "Relabel runs", "Relabel runs");
    await dialog.getByText("No runs yet.").waitFor();
    await dialog.getByLabel("Model").fill("gpt-4o-mini");
    await dialog.getByLabel("Name").fill("stronger");
    await dialog.getByLabel("Judge with").click();
    await page.getByRole("option", { name: "Not bad" }).click();
    // Close the criteria list (it covers the button) by clicking beside it.
    await dialog.getByText("New run", { exact: true }).click();
    await dialog.getByRole("button", { name: "Start run" }).click();
    await dialog.locator('tr[data-run-name="stronger"]').getByText("3/3").waitFor({ timeout: 20_000 });
    await dialog.getByRole("link", { name: "stronger" }).click();
    await page.waitForURL("**/relabel/**");

    await row("Question A").getByText("echo: Question A").waitFor();
    // Verdicts of both outputs: the current bad answer fails, the proposal passes.
    const a = await row("Question A").locator("td").allTextContents();
    expect(a[2]).toContain("a bad answer");
    expect(a[2]).toContain("FAIL");
    expect(a[3]).toContain("PASS");
    await shot(page, "relabel-compare");

    await row("Question A").getByRole("checkbox").check();
    await row("Question C").getByRole("checkbox").check();
    await page.getByRole("button", { name: "Accept selected (2)" }).click();
    await page.locator('tr[data-question="Question C"][data-decision="ACCEPTED"]').waitFor();
    // The notification of the acceptance sits over the page's top right while it shows.
    await page.locator(".mantine-Notification-root", { hasText: "2 outputs accepted" }).getByRole("button").click();
    await page.getByRole("button", { name: "Reject the rest" }).click();
    await page.locator('tr[data-question="Question B"][data-decision="REJECTED"]').waitFor();
    expect(await row("Question A").getAttribute("data-decision")).toBe("ACCEPTED");

    const entries = await hone.trpc<{ entries: any[] }>("datasets.listEntries", { datasetId });
    const byQ = Object.fromEntries(entries.entries.map((e) => [e.messages[0].content, e]));
    expect(byQ["Question A"].messages[1].content).toBe("echo: Question A");
    expect(byQ["Question A"].rejectedOutputs.map((r: any) => r.message.content)).toEqual(["a bad answer"]);
    expect(byQ["Question B"].messages[1].content).toBe("a fine answer");
    expect(byQ["Question B"].rejectedOutputs).toEqual([]);
  }, 120_000);

  test("a DPO fine-tune from the form trains on the preference pairs, pruned by the dataset's rule", async () => {
    await page.goto(`${hone.url}/datasets/${datasetId}`);
    const rules = await openDialog(page, "Pruning rules", "Pruning rules");
    await rules.getByLabel("Text to remove").fill("Question ");
    await rules.getByRole("button", { name: "Add rule" }).click();
    await rules.getByTestId("pruning-rule").waitFor();
    await page.keyboard.press("Escape");
    await rules.waitFor({ state: "hidden" });
    await page.getByRole("link", { name: "Models", exact: true }).click();
    await page.getByRole("button", { name: "New fine-tune" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByRole("combobox", { name: /^Dataset/ }).click();
    await page.getByRole("option", { name: /support answers/ }).click();
    await dialog.getByRole("combobox", { name: /^Base model/ }).click();
    await page.getByRole("option", { name: /^Qwen\/Qwen2\.5-7B-Instruct/ }).click();
    await dialog.getByLabel("Slug").fill("support-dpo");
    await dialog.getByText("Preference (DPO)").click();
    await dialog.getByText("2 pairs in this dataset").waitFor();
    await dialog.getByLabel("Beta").fill("0.2");
    await shot(page, "dpo-form");
    await dialog.getByRole("button", { name: "Start fine-tune" }).click();
    await page.waitForURL("**/models/support-dpo");
    await page.getByTestId("model-status").filter({ hasText: "DEPLOYED" }).waitFor({ timeout: 30_000 });
    // The loss chart from the backend's progress events, and its checkpoint.
    const curve = page.getByTestId("training-curve");
    await curve.scrollIntoViewIfNeeded();
    expect(await curve.getAttribute("data-points")).toBe("10");
    await curve.locator(".recharts-line").first().waitFor();
    expect(await page.getByTestId("checkpoints").textContent()).toContain("acct/ckpt-10");
    await shot(page, "training-curve");
    const job = [...trainer.jobs.values()].find((j) => j.suffix === "support-dpo")!;
    expect(job.body.training_method).toEqual({ method: "dpo", dpo_beta: 0.2 });
    const lines = trainer.files
      .get(job.fileId)!
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.non_preferred_output[0].content).sort()).toEqual(["a bad answer", "bad again"]);
    // Served with the rule: a logged call loses its text, and the model page sums what that saved.
    const res = await fetch(`${hone.url}/api/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${BOOTSTRAP_KEY}`, "content-type": "application/json", "op-log-request": "true" },
      body: JSON.stringify({ model: "hone:support-dpo", messages: [{ role: "user", content: "Question 7: where is my refund?" }] }),
    });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    // The log is written a moment later (batched): the page is read again until it shows.
    const served = page.getByTestId("served-pruned-tokens");
    for (let i = 0; i < 40; i++) {
      await page.reload();
      await served.waitFor();
      if (Number(await served.getAttribute("data-value")) > 0) break;
      await page.waitForTimeout(250);
    }
    expect(Number(await served.getAttribute("data-value"))).toBeGreaterThan(0);
    expect(await served.textContent()).toContain("Served: 1 request in the last 30 days");
    expect(errors).toEqual([]);
  }, 120_000);
});
