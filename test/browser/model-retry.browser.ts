import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { type FakeTrainer, startFakeTrainer } from "../helpers/fake-trainer";
import { type Browser, type Hone, closeAll, launchBrowser, shot, signedInPage, startHone } from "./harness";

// A fine-tune that failed because Together refused the project's key: its page says what to check
// (the key, where), shows the entries it counted, offers no snippets to call a model that does not
// answer, and Retry, once the key is fixed, trains it to DEPLOYED.

const KEY = "tg-browser-retry-right-key";
let trainer: FakeTrainer;
let hone: Hone;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  trainer = startFakeTrainer({ apiKey: KEY });
  [hone, browser] = await Promise.all([
    startHone({ seed: 0, env: { TOGETHER_BASE_URL: `${trainer.url}/v1`, HONE_FINETUNE_POLL_MS: "100", HONE_JOB_POLL_MS: "50" } }),
    launchBrowser(),
  ]);
  await hone.trpc("providerKeys.set", { provider: "together", apiKey: "tg-browser-retry-wrong-key" }, { mutation: true });
  const datasetId = (await hone.trpc<{ id: string }>("datasets.create", { name: "support" }, { mutation: true })).id;
  const entries = Array.from({ length: 14 }, (_, i) => ({
    messages: [
      { role: "user", content: `Question ${i}` },
      { role: "assistant", content: `Answer ${i}` },
    ],
    split: "TRAIN",
  }));
  await hone.trpc("datasets.addEntries", { datasetId, entries }, { mutation: true });
  await hone.trpc(
    "models.create",
    { datasetId, slug: "support-v2", trainingConfig: { provider: "together", baseModel: "Qwen/Qwen2.5-7B-Instruct" } },
    { mutation: true },
  );
  ({ page } = await signedInPage(browser, hone));
}, 180_000);
afterAll(async () => {
  await closeAll(browser, hone);
  await trainer?.stop();
});

describe("a failed fine-tune", () => {
  test("says what to check by its kind, counts its entries, offers no snippets, and Retry trains it once the key is fixed", async () => {
    await page.goto(`${hone.url}/models/support-v2`);
    const failed = page.getByTestId("model-error");
    await failed.waitFor({ timeout: 30_000 });
    expect(await failed.getAttribute("data-kind")).toBe("key");
    expect(await page.getByTestId("failure-hint").textContent()).toContain("Settings → Provider keys");
    expect(await page.getByTestId("training-entries").textContent()).toBe("14");
    expect(await page.getByText("Call it").count()).toBe(0);
    expect(await page.getByTestId("snippet-curl").count()).toBe(0);
    await shot(page, "model-failed-key");

    await hone.trpc("providerKeys.set", { provider: "together", apiKey: KEY }, { mutation: true });
    await page.getByTestId("retry-model").click();
    await page.getByTestId("model-status").filter({ hasText: "DEPLOYED" }).waitFor({ timeout: 30_000 });
    expect(await page.getByTestId("model-error").count()).toBe(0);
    // Deployed: now it can be called, and the timeline keeps the failure.
    await page.getByTestId("snippet-curl").waitFor();
    expect(await page.getByTestId("model-event").allTextContents()).toEqual(
      expect.arrayContaining([expect.stringContaining("HTTP 401"), expect.stringContaining("retried")]),
    );
    await shot(page, "model-retried");
  }, 60_000);
});
