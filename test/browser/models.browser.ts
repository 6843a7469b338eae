import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { type FakeTrainer, startFakeTrainer } from "../helpers/fake-trainer";
import { type Browser, type Hone, launchBrowser, shot, startHone, signedInPage } from "./harness";

// The Models section against the fake training backend (Together's protocol): start a fine-tune
// in the UI, watch it reach DEPLOYED without a reload, call it as the snippet says; a failing job
// shows the backend's message.

let trainer: FakeTrainer;
let hone: Hone;
let browser: Browser;
let page: Page;
let datasetId = "";

beforeAll(async () => {
  trainer = startFakeTrainer();
  [hone, browser] = await Promise.all([
    startHone({ seed: 0, env: { TOGETHER_BASE_URL: `${trainer.url}/v1`, HONE_FINETUNE_POLL_MS: "100", HONE_JOB_POLL_MS: "50" } }),
    launchBrowser(),
  ]);
  await hone.trpc("providerKeys.set", { provider: "together", apiKey: "tg-browser-test-key" }, { mutation: true });
  const ds = await hone.trpc<{ id: string }>("datasets.create", { name: "training set" }, { mutation: true });
  datasetId = ds.id;
  const entries = Array.from({ length: 12 }, (_, i) => ({
    messages: [
      { role: "user", content: `Question ${i}` },
      { role: "assistant", content: `Answer ${i}` },
    ],
    split: i < 10 ? "TRAIN" : "TEST",
  }));
  await hone.trpc("datasets.addEntries", { datasetId, entries }, { mutation: true });
  ({ page } = await signedInPage(browser, hone));
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await hone?.stop();
  await trainer?.stop();
});

const dialog = () => page.getByRole("dialog");

async function startFineTune(slug: string, epochs?: number) {
  await page.getByRole("link", { name: "Models", exact: true }).click();
  await page.getByRole("button", { name: "New fine-tune" }).click();
  await dialog()
    .getByRole("combobox", { name: /^Dataset/ })
    .click();
  await page.getByRole("option", { name: /training set/ }).click();
  await dialog()
    .getByRole("combobox", { name: /^Base model/ })
    .click();
  await page.getByRole("option", { name: /^Qwen\/Qwen2\.5-7B-Instruct/ }).click();
  await dialog().getByTestId("base-model-facts").waitFor();
  await dialog().getByLabel("Slug").fill(slug);
  if (epochs)
    await dialog()
      .getByRole("textbox", { name: /^n_epochs/ })
      .fill(String(epochs));
  // The estimate before starting: what the API says for the same choices.
  const expected = await hone.trpc<{ estimatedCostUsd: number; trainingTokens: number; entries: number }>("models.estimate", {
    datasetId,
    baseModel: "Qwen/Qwen2.5-7B-Instruct",
    hyperparameters: epochs ? { n_epochs: epochs } : {},
  });
  await dialog()
    .getByTestId("estimate")
    .filter({ hasText: `= ${expected.trainingTokens} training tokens` })
    .waitFor();
  expect(await dialog().getByTestId("estimate").textContent()).toContain(`${expected.entries} training examples`);
  await shot(page, `models-create-${slug}`);
  await dialog().getByRole("button", { name: "Start fine-tune" }).click();
  await page.waitForURL(`**/models/${slug}`);
}

describe("models", () => {
  test("a fine-tune started in the console reaches DEPLOYED on its page, and answers as its snippet says", async () => {
    await startFineTune("support-v1", 2);
    expect(await dialog().count()).toBe(0);
    await page.getByTestId("model-status").filter({ hasText: "DEPLOYED" }).waitFor({ timeout: 30_000 });
    expect(await page.getByTestId("training-entries").textContent()).toBe("10");
    expect([...trainer.jobs.values()].at(-1)!.body).toMatchObject({ n_epochs: 2 });
    const timeline = await page.getByTestId("model-event").allTextContents();
    expect(timeline.map((e) => e.replace(/\d{4}-.*$/, ""))).toEqual(["Uploading the training file", "Queued at the backend", "Training", "Deployed"]);
    await shot(page, "model-deployed");
    const curl = (await page.getByTestId("snippet-curl").textContent()) ?? "";
    expect(curl).toContain(`${hone.url}/api/v1/chat/completions`);
    expect(curl).toContain('"model": "hone:support-v1"');
    expect(curl).toContain("$HONE_API_KEY");
    // Async: the fake trainer answering the fine-tune's calls lives in this process.
    const run = Bun.spawn(["sh", "-c", curl.replace(/\\\n/g, " ")], {
      env: { ...process.env, HONE_API_KEY: hone.project.apiKey },
      stdout: "pipe",
      stderr: "ignore",
    });
    const answer = JSON.parse(await new Response(run.stdout).text());
    expect(answer.choices?.[0]?.message).toBeDefined();
    await page.getByRole("link", { name: "all models" }).click();
    await page.getByTestId("model-row-support-v1").getByText("DEPLOYED").waitFor();
    await shot(page, "models-list");
  }, 60_000);

  test("the playground compares the fine-tune with a base model under two criteria, and saves an output", async () => {
    const judges = [
      await hone.trpc("criteria.create", { name: "answers", judgeModel: "openai:judge", prompt: "Does it answer? {{output}}" }, { mutation: true }),
      await hone.trpc("criteria.create", { name: "nothing wrong", judgeModel: "openai:judge", prompt: "Anything wrong? {{output}}" }, { mutation: true }),
    ];
    // A fresh page: the criteria were created through the API after the console last listed them.
    await page.goto(`${hone.url}/playground`);
    await page.getByLabel("Model 1", { exact: true }).first().fill("hone:support-v1");
    await page.keyboard.press("Escape");
    await page.getByRole("button", { name: "Add a model" }).click();
    await page.getByLabel("Model 2", { exact: true }).first().fill("gpt-4o-mini");
    await page.keyboard.press("Escape");
    await page.getByLabel("Message 2", { exact: true }).fill("Question 3");
    await page.getByLabel("Criteria", { exact: true }).first().click({ force: true });
    for (const c of judges) await page.getByRole("option", { name: c.name }).click();
    await page.keyboard.press("Escape");
    await page.getByRole("button", { name: "Run" }).click();
    for (const i of [0, 1]) {
      const results = page.getByTestId(`column-${i}`).getByTestId("criteria-results");
      await results.getByText("answers: PASS").waitFor();
      await results.getByText("nothing wrong: FAIL").waitFor();
    }
    expect(trainer.chats.length).toBeGreaterThan(0);
    await page.getByLabel("Save outputs to dataset", { exact: true }).first().click();
    await page.getByRole("option", { name: "training set" }).click();
    await page.getByTestId("column-0").getByRole("button", { name: "Save as dataset entry" }).first().click();
    await page.getByText("Saved as a dataset entry").waitFor();
    const { entries } = await hone.trpc<{ entries: unknown[] }>("datasets.listEntries", { datasetId, first: 100 });
    expect(entries).toHaveLength(13);
    await page.evaluate(() => window.scrollTo(0, 0));
    await shot(page, "playground-fine-tune-vs-base");
  }, 60_000);

  test("a failing training job shows the backend's message", async () => {
    await startFineTune("support-fail");
    await page.getByTestId("model-status").filter({ hasText: "ERROR" }).waitFor({ timeout: 30_000 });
    expect((await page.getByTestId("model-error").textContent()) ?? "").toMatch(/\S{10,}/);
    await shot(page, "model-failed");
    const model = await hone.trpc<{ errorMessage: string }>("models.get", { slug: "support-fail" });
    expect(await page.getByTestId("model-error").textContent()).toContain(model.errorMessage);
    expect(await page.getByTestId("model-event").last().textContent()).toContain(model.errorMessage);
  }, 60_000);

  test("delete asks first, then the model is gone", async () => {
    await page.getByRole("button", { name: "Delete" }).click();
    await dialog().getByRole("button", { name: "Delete model" }).click();
    await page.waitForURL("**/models");
    await page.getByTestId("model-row-support-fail").waitFor({ state: "detached" });
    const models = await hone.trpc<{ slug: string }[]>("models.list");
    expect(models.map((m) => m.slug)).toEqual(["support-v1"]);
  });
});
