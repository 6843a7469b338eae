import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import type { Page } from "playwright-core";
import { type Browser, type Hone, a11yViolations, closeAll, launchBrowser, setColorScheme, shot, signedInPage, startHone } from "./harness";

// A model trained by Hone's own trainer, in the console: the trainer that trained it, its figures
// as curves (learning rate, tokens per second, GPU memory) beside the loss curve, its weights to
// download, and whether a vLLM server serves it (a custom provider of kind vLLM made in Settings,
// and what its hone-trainer sync reported). The trainer's side is the trainer API, as
// `hone-trainer work` and `sync` speak it.

const SLUG = "support-llama";
const BASE = "meta-llama/Llama-3.2-1B-Instruct";
let hone: Hone;
let browser: Browser;
let page: Page;
let token = "";
let modelId = "";
let weightsBytes = 0;

const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");
async function trainerApi<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${hone.url}/api/v1/trainer${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

beforeAll(async () => {
  [hone, browser] = await Promise.all([startHone({ seed: 0, env: { HONE_ALLOW_PRIVATE_UPSTREAMS: "true" } }), launchBrowser()]);
  const datasetId = (await hone.trpc<{ id: string }>("datasets.create", { name: "support" }, { mutation: true })).id;
  const entries = [0, 1, 2, 3].map((i) => ({
    messages: [
      { role: "user", content: `Question ${i}` },
      { role: "assistant", content: `Answer ${i}` },
    ],
    split: i < 3 ? "TRAIN" : "TEST",
  }));
  await hone.trpc("datasets.addEntries", { datasetId, entries }, { mutation: true });
  await hone.trpc("models.create", { datasetId, slug: SLUG, trainingConfig: { provider: "trainer", baseModel: BASE, epochs: 2 } }, { mutation: true });
  token = (await hone.trpc<{ apiKey: string }>("apiKeys.create", { name: "gpu trainer", scopes: ["trainer"] }, { mutation: true })).apiKey;

  // The trainer's side: a lease, 24 steps of progress, the adapter uploaded, done.
  const { job } = await trainerApi<{ job: { id: string; leaseId: string } }>("POST", "/lease", {
    trainer: { name: "gpu-box-1", host: "gpu-box-1.lan", gpus: [{ name: "NVIDIA L4", memoryBytes: 24 * 1024 ** 3 }], versions: { hone_trainer: "0.1.0" } },
  });
  modelId = job.id;
  const events = Array.from({ length: 24 }, (_, step) => ({
    step,
    totalSteps: 24,
    loss: 2.5 * Math.exp(-step / 8) + 0.1,
    evalLoss: step % 6 === 0 ? 2.6 * Math.exp(-step / 9) + 0.15 : null,
    learningRate: 2e-4 * (1 - step / 24),
    tokensPerSecond: 1800 + 40 * Math.sin(step),
    etaSeconds: (24 - step) * 2,
    gpuMemoryBytes: 6 * 1024 ** 3 + step * 8 * 1024 ** 2,
  }));
  await trainerApi("POST", `/jobs/${job.id}/heartbeat`, { leaseId: job.leaseId, events });
  const files = [];
  for (const [path, text] of [
    ["adapter/adapter_config.json", '{"peft_type": "LORA", "r": 16}'],
    ["adapter/adapter_model.safetensors", "x".repeat(300_000)],
  ] as const) {
    const bytes = new TextEncoder().encode(text);
    const res = await fetch(`${hone.url}/api/v1/trainer/jobs/${job.id}/files/result/${path}?leaseId=${job.leaseId}`, {
      method: "PUT",
      headers: { authorization: `Bearer ${token}`, "x-hone-sha256": sha(bytes) },
      body: bytes,
    });
    expect(res.status).toBe(201);
    files.push({ path, sha256: sha(bytes), bytes: bytes.byteLength });
  }
  weightsBytes = files.reduce((n, f) => n + f.bytes, 0);
  await trainerApi("POST", `/jobs/${job.id}/done`, { leaseId: job.leaseId, files, dropped: { train: 0, test: 0 }, metrics: { evalLoss: 0.3, trainLoss: 0.2 } });
  ({ page } = await signedInPage(browser, hone));
}, 180_000);
afterAll(() => closeAll(browser, hone));

describe("a model of Hone's trainer", () => {
  test("its page: who trained it, the curves of every figure it reported, its weights; not served until a vLLM server is set up", async () => {
    await page.setViewportSize({ width: 1400, height: 900 });
    await page.goto(`${hone.url}/models/${SLUG}`);
    const panel = page.getByTestId("trainer-panel");
    await panel.waitFor();
    expect(await panel.getByTestId("trained-by").textContent()).toContain("gpu-box-1");
    expect(await panel.getByTestId("trainer-progress").textContent()).toContain("Step 23 of 24");
    for (const curve of ["learning rate", "tokens per second", "GPU memory"]) {
      expect(await panel.getByTestId(`curve-${curve}`).getAttribute("data-points")).toBe("24");
    }
    expect(await page.getByTestId("training-curve").getAttribute("data-points")).toBe("24");
    expect(await page.getByTestId("training-entries").textContent()).toBe("3");
    expect(await page.getByTestId("hyperparameter-lora").textContent()).toContain("r=16 alpha=32 dropout=0.05 targetModules=q_proj,k_proj,v_proj,o_proj");
    expect(await panel.textContent()).toContain("a LoRA adapter, 2 files");
    expect(await panel.getByTestId("weights-curl").textContent()).toContain(`/models/${SLUG}/weights`);
    const serving = panel.getByTestId("serving-status");
    expect(await serving.getAttribute("data-served")).toBe("false");
    expect(await serving.textContent()).toContain(`vllm serve ${BASE} --enable-lora`);
    await shot(page, "model-trainer-not-served");

    // The weights, through the console's own session.
    const [download] = await Promise.all([page.waitForEvent("download"), panel.getByTestId("download-weights").click()]);
    expect(download.suggestedFilename()).toBe(`${SLUG}.tar`);
    const saved = await download.path();
    // A tar of the two files: each a 512-byte header and its bytes padded to the block, then two empty blocks.
    const padded = (n: number) => 512 + Math.ceil(n / 512) * 512;
    expect(readFileSync(saved!).byteLength).toBe(padded(30) + padded(300_000) + 1024);
    expect(weightsBytes).toBe(300_030);
  });

  test("a vLLM server added in Settings with its base model; once its sync reports the adapter loaded, the page says it answers", async () => {
    await page.goto(`${hone.url}/settings?tab=providers`);
    await page.getByRole("button", { name: "Add provider" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByLabel("Slug").fill("gpu-1");
    await dialog.getByText("vLLM (serves trainer adapters)").click();
    await dialog.getByRole("textbox", { name: "Base URL" }).fill(`${hone.openai.url}/v1`);
    // The base model is asked for, and checked by the server too.
    await dialog.getByRole("button", { name: "Add provider" }).click();
    expect(await dialog.getByRole("textbox", { name: "Base model" }).evaluate((el: HTMLInputElement) => el.validity.valueMissing)).toBe(true);
    await dialog.getByRole("textbox", { name: "Base model" }).fill(BASE);
    await shot(page, "settings-vllm-provider");
    await dialog.getByRole("button", { name: "Add provider" }).click();
    await dialog.waitFor({ state: "detached" });
    const row = page.locator('tr[data-slug="gpu-1"]');
    expect(await row.textContent()).toContain("vLLM");
    expect(await row.textContent()).toContain(BASE);

    await page.goto(`${hone.url}/models/${SLUG}`);
    const serving = page.getByTestId("serving-status");
    await serving.getByText("its hone-trainer sync has not reported yet").waitFor();
    // hone-trainer sync beside the server: what it has loaded.
    await trainerApi("POST", "/serving", {
      vllmUrl: hone.openai.url,
      host: "gpu-1.lan",
      served: [
        { id: "llama", root: BASE, parent: null },
        { id: modelId, root: `/adapters/${modelId}`, parent: "llama" },
      ],
    });
    await page.reload();
    await page.locator('[data-testid="serving-status"][data-served="true"]').waitFor();
    expect(await page.getByTestId("serving-status").textContent()).toContain("gpu-1 on gpu-1.lan: loaded");
    await shot(page, "model-trainer-served");
    for (const scheme of ["light", "dark"] as const) {
      await setColorScheme(page, scheme);
      expect(await a11yViolations(page)).toEqual([]);
      await shot(page, `model-trainer-${scheme}`);
    }
    await setColorScheme(page, "light");
  });

  test("on a phone the panel fits: nothing in it wider than the screen, the download in reach", async () => {
    // (The page's header and hyperparameters table are issue 62's: the console at 390 px.)
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${hone.url}/models/${SLUG}`);
    const panel = page.getByTestId("trainer-panel");
    await panel.waitFor();
    const fits = await panel.evaluate((el) => [...el.querySelectorAll("*")].every((c) => c.getBoundingClientRect().right <= window.innerWidth + 0.5));
    expect(fits).toBe(true);
    const box = (await page.getByTestId("download-weights").boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    await shot(page, "model-trainer-phone");
    await page.setViewportSize({ width: 1400, height: 900 });
  });
});
