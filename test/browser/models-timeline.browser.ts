import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { formatDuration } from "../../src/console/pages/models/durations";
import { type FakeTrainer, startFakeTrainer } from "../helpers/fake-trainer";
import { waitFor } from "../helpers/wait-for";
import { type Browser, type Hone, a11yViolations, launchBrowser, setColorScheme, shot, startHone, signedInPage } from "./harness";

// A model's page against the fake training backend, polled every 1.2 s so each state lasts a
// while: the timeline's durations are those of models.get's events; a job that ran between two
// polls (slug "quick") shows TRAINING marked as not seen running; one still training (slug
// "stall") counts its time so far; the hyperparameters used; "Open in playground" and "Evaluate"
// go with the right parameters; 800 px; axe in light and dark.

let trainer: FakeTrainer;
let hone: Hone;
let browser: Browser;
let page: Page;
let datasetId = "";

type ModelEvent = { status: string; at: string; message: string | null };
type Model = { slug: string; status: string; events: ModelEvent[] };
const model = (slug: string) => hone.trpc<Model>("models.get", { slug });
const waitForStatus = (slug: string, status: string) => waitFor(async () => (await model(slug)).status === status, { timeoutMs: 30_000 });

beforeAll(async () => {
  trainer = startFakeTrainer();
  [hone, browser] = await Promise.all([
    startHone({
      seed: 0,
      env: { TOGETHER_BASE_URL: `${trainer.url}/v1`, HONE_FINETUNE_POLL_MS: "1200", HONE_JOB_POLL_MS: "50" },
    }),
    launchBrowser(),
  ]);
  await hone.trpc("providerKeys.set", { provider: "together", apiKey: "tg-browser-timeline-key" }, { mutation: true });
  datasetId = (await hone.trpc<{ id: string }>("datasets.create", { name: "support set" }, { mutation: true })).id;
  const entries = Array.from({ length: 8 }, (_, i) => ({
    messages: [
      { role: "user", content: `Question ${i}` },
      { role: "assistant", content: `Answer ${i}` },
    ],
    split: i < 6 ? "TRAIN" : "TEST",
  }));
  await hone.trpc("datasets.addEntries", { datasetId, entries }, { mutation: true });
  const start = (slug: string, hyperparameters: Record<string, unknown> = {}) =>
    hone.trpc(
      "models.create",
      { datasetId, slug, trainingConfig: { provider: "together", baseModel: "Qwen/Qwen2.5-7B-Instruct", hyperparameters } },
      { mutation: true },
    );
  await start("steady-v1", { n_epochs: 3, lora_r: 16 });
  await start("quick-v1");
  await start("stall-v1");
  await start("broken-fail");
  ({ page } = await signedInPage(browser, hone));
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await hone?.stop();
  await trainer?.stop();
});

describe("a model's page", () => {
  test("the timeline: every status with its time and how long it lasted, as models.get's events say", async () => {
    await page.goto(`${hone.url}/models/steady-v1`);
    await page.getByTestId("model-status").filter({ hasText: "DEPLOYED" }).waitFor({ timeout: 30_000 });
    const { events } = await model("steady-v1");
    expect(events.map((e) => e.status)).toEqual(["PENDING", "QUEUED", "TRAINING", "DEPLOYED"]);
    const items = page.getByTestId("model-event");
    expect(await items.count()).toBe(4);
    for (let i = 0; i < 3; i++) {
      const lasted = formatDuration(Date.parse(events[i + 1]!.at) - Date.parse(events[i]!.at));
      expect(await items.nth(i).getByTestId("event-duration").textContent()).toBe(` · lasted ${lasted}`);
    }
    // Polled every 1.2 s: queued and training each lasted at least a second.
    expect(await items.nth(1).getByTestId("event-duration").textContent()).toMatch(/lasted \d+ s$/);
    expect(await items.nth(3).getByTestId("event-duration").count()).toBe(0);
    const total = formatDuration(Date.parse(events[3]!.at) - Date.parse(events[0]!.at));
    expect(await page.getByTestId("timeline-total").textContent()).toBe(`Deployed ${total} after it started.`);
    // The hyperparameters used: those given, and the backend's defaults for the rest.
    const hp = page.getByTestId("hyperparameters");
    expect(await hp.getByTestId("hyperparameter-n_epochs").textContent()).toBe("n_epochs3you");
    expect(await hp.getByTestId("hyperparameter-lora_r").textContent()).toBe("lora_r16you");
    expect(await hp.getByTestId("hyperparameter-learning_rate").textContent()).toBe("learning_rate0.00001together's default");
    expect(trainer.jobs.size).toBeGreaterThan(0);
    expect([...trainer.jobs.values()].find((j) => j.suffix === "steady-v1")!.body).toMatchObject({ n_epochs: 3, lora_r: 16 });
    await shot(page, "model-timeline");
  });

  test("a job that trained between two polls: TRAINING is on the timeline, marked as not seen running", async () => {
    await waitForStatus("quick-v1", "DEPLOYED");
    await page.goto(`${hone.url}/models/quick-v1`);
    await page.getByTestId("model-status").filter({ hasText: "DEPLOYED" }).waitFor();
    const items = page.getByTestId("model-event");
    expect(await items.evaluateAll((els) => els.map((e) => e.getAttribute("data-status")))).toEqual(["PENDING", "QUEUED", "TRAINING", "DEPLOYED"]);
    expect(await items.nth(1).getByTestId("event-duration").textContent()).toMatch(/training included$/);
    expect(await items.nth(2).textContent()).toContain("Not seen running");
    expect(await items.nth(2).getByTestId("event-duration").count()).toBe(0);
    await shot(page, "model-timeline-unseen-training");
  });

  test("a model still training: its time so far, the step to come, no links to call it yet", async () => {
    await waitForStatus("stall-v1", "TRAINING");
    await page.goto(`${hone.url}/models/stall-v1`);
    await page.getByTestId("model-status").filter({ hasText: "TRAINING" }).waitFor();
    const current = page.getByTestId("model-event").last();
    await current
      .getByTestId("event-duration")
      .filter({ hasText: / · for (under 1 s|\d+ s) so far$/ })
      .waitFor();
    const before = await current.getByTestId("event-duration").textContent();
    await page.getByText("Deployed", { exact: true }).waitFor();
    await waitFor(async () => (await current.getByTestId("event-duration").textContent()) !== before, { timeoutMs: 5000 });
    expect(await page.getByTestId("timeline-total").textContent()).toMatch(/^Started (under 1 s|\d+ s) ago\.$/);
    for (const name of ["Open in playground", "Evaluate"]) {
      expect(await page.getByRole("link", { name }).getAttribute("data-disabled")).toBe("true");
    }
    await shot(page, "model-training");
  });

  test("Open in playground and Evaluate go with the model (and its dataset) in the URL", async () => {
    await page.goto(`${hone.url}/models/steady-v1`);
    await page.getByRole("link", { name: "Open in playground" }).click();
    await page.waitForURL((u) => u.pathname === "/playground");
    expect(new URL(page.url()).searchParams.get("model")).toBe("hone:steady-v1");
    await page.goto(`${hone.url}/models/steady-v1`);
    await page.getByRole("link", { name: "Evaluate" }).click();
    await page.waitForURL((u) => u.pathname === "/evaluations");
    const params = new URL(page.url()).searchParams;
    expect([params.get("model"), params.get("datasetId")]).toEqual(["hone:steady-v1", datasetId]);
    // The form opens with the model chosen (the router writes `new=1` back as `new=true`).
    const dialog = page.getByRole("dialog");
    await dialog.getByRole("heading", { name: "New evaluation" }).waitFor();
    expect(await dialog.locator(".mantine-TagsInput-pill").allTextContents()).toEqual(["hone:steady-v1"]);
  });

  test("a failed model: its message on the timeline, no links to call it", async () => {
    await waitForStatus("broken-fail", "ERROR");
    await page.goto(`${hone.url}/models/broken-fail`);
    await page.getByTestId("model-error").waitFor();
    const last = page.getByTestId("model-event").last();
    expect(await last.getAttribute("data-status")).toBe("ERROR");
    expect(await last.textContent()).toContain("CUDA out of memory");
    expect(await page.getByTestId("timeline-total").textContent()).toMatch(/^Failed .+ after it started\.$/);
    expect(await page.getByRole("link", { name: "Evaluate" }).getAttribute("data-disabled")).toBe("true");
  });
});

describe("a narrow window and accessibility", () => {
  test("800 px: the models list and a model's page fit, their actions in view", async () => {
    await page.setViewportSize({ width: 800, height: 800 });
    const noOverflow = () => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
    await page.goto(`${hone.url}/models`);
    await page.getByTestId("model-row-steady-v1").waitFor();
    expect(await noOverflow()).toBe(true);
    await shot(page, "models-list-800");
    await page.goto(`${hone.url}/models/steady-v1`);
    await page.getByTestId("model-event").first().waitFor();
    expect(await noOverflow()).toBe(true);
    for (const name of ["Open in playground", "Evaluate"]) {
      const b = (await page.getByRole("link", { name }).boundingBox())!;
      expect(b.x + b.width).toBeLessThanOrEqual(800);
    }
    const del = (await page.getByRole("button", { name: "Delete", exact: true }).boundingBox())!;
    expect(del.x + del.width).toBeLessThanOrEqual(800);
    await shot(page, "model-page-800");
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  for (const scheme of ["light", "dark"] as const) {
    test(`no serious or critical axe violations (${scheme}): models list, the new fine-tune form, a model's page`, async () => {
      await page.goto(`${hone.url}/models`);
      await setColorScheme(page, scheme);
      await page.getByTestId("model-row-steady-v1").waitFor();
      expect(await a11yViolations(page)).toEqual([]);
      await shot(page, `models-list-${scheme}`);
      await page.goto(`${hone.url}/models?new=1&datasetId=${datasetId}`);
      await page
        .getByRole("dialog")
        .getByRole("combobox", { name: /^Dataset/ })
        .waitFor();
      expect(await a11yViolations(page)).toEqual([]);
      for (const slug of ["steady-v1", "stall-v1", "broken-fail"]) {
        await page.goto(`${hone.url}/models/${slug}`);
        await page.getByTestId("model-event").first().waitFor();
        await page.getByTestId("hyperparameters").waitFor();
        expect(await a11yViolations(page)).toEqual([]);
      }
      await shot(page, `model-page-${scheme}`);
    });
  }
});
