import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startJobs } from "../../src/background";
import { systemCtx } from "../../src/domain/context";
import { setProviderKey } from "../../src/domain/projects";
import { createTestApp, type TestApp } from "../helpers/app";
import { addEntries, createDataset, qa, waitForModelStatus } from "../helpers/factories";
import { startFakeTrainer, type FakeTrainer } from "../helpers/fake-trainer";
import { trpcClient, trpcFailure } from "../helpers/trpc";

// What the console's Models section reads: the catalogue of base models, and each model's
// timeline of statuses (with the backend's message when training fails).

let t: TestApp;
let fake: FakeTrainer;
let worker: { stop(): Promise<void> };
let datasetId = "";

beforeAll(async () => {
  fake = startFakeTrainer();
  t = await createTestApp({ env: { TOGETHER_BASE_URL: `${fake.url}/v1`, HONE_FINETUNE_POLL_MS: "30", HONE_JOB_POLL_MS: "20" } });
  await setProviderKey({ ...systemCtx(t.deps, "test"), projectId: t.project.projectId }, { provider: "together", apiKey: "tg-together-key-1" });
  worker = startJobs(t.deps);
  datasetId = await createDataset(t, { name: "timeline" });
  await addEntries(t, datasetId, [qa("a", "1"), qa("b", "2"), qa("c", "3")]);
});
afterAll(async () => {
  await worker.stop();
  await fake.stop();
  await t.close();
});

const start = (slug: string) =>
  trpcClient(t).models.create.mutate({ datasetId, slug, trainingConfig: { provider: "together", baseModel: "Qwen/Qwen2.5-7B-Instruct" } });

describe("models.catalogue", () => {
  test("every base model with its backend, context window, capabilities and price", async () => {
    const catalogue = await trpcClient(t).models.catalogue.query();
    const qwen = catalogue.find((m) => m.id === "Qwen/Qwen2.5-7B-Instruct")!;
    expect(qwen).toMatchObject({
      backend: "together",
      contextWindow: 32_768,
      pricing: { inputPerMillion: 0.3, outputPerMillion: 0.3, trainingPerMillion: 0.48 },
    });
    expect(qwen.hyperparameters.map((h) => h.name)).toContain("lora_r");
    expect(qwen.capabilities).toContain("chat");
    expect(new Set(catalogue.map((m) => m.backend))).toEqual(new Set(["openai", "together", "fireworks"]));
  });
});

describe("models.estimate", () => {
  test("examples, tokens (counted by hand here), epochs and the list price", async () => {
    const c = trpcClient(t);
    // qa("a", "1") is a user and an assistant message of one token each: 2 x (4 + 1) = 10 tokens.
    const one = await c.models.estimate.query({ datasetId, baseModel: "Qwen/Qwen2.5-7B-Instruct" });
    expect(one).toMatchObject({ entries: 3, tokensPerEpoch: 30, epochs: 1, trainingTokens: 30, trainingPerMillion: 0.48 });
    expect(one.estimatedCostUsd).toBeCloseTo((30 * 0.48) / 1e6, 12);
    const three = await c.models.estimate.query({ datasetId, baseModel: "gpt-4o-mini-2024-07-18", hyperparameters: { n_epochs: 5 } });
    expect(three).toMatchObject({ entries: 3, epochs: 5, trainingTokens: 150, trainingPerMillion: 3 });
    expect((await c.models.estimate.query({ datasetId, baseModel: "gpt-4o-mini-2024-07-18" })).epochs).toBe(3);
    expect((await trpcFailure(c.models.estimate.query({ datasetId, baseModel: "no-such-model" }))).data?.code).toBe("VALIDATION");
    const other = await t.createProject("other");
    expect((await trpcFailure(trpcClient(t, other.apiKey).models.estimate.query({ datasetId, baseModel: "Qwen/Qwen2.5-7B-Instruct" }))).data?.code).toBe(
      "NOT_FOUND",
    );
  });
});

describe("models.get events", () => {
  test("a deployed model's timeline: each status once, in order, with times that do not go back", async () => {
    await start("timeline-ok");
    await waitForModelStatus(t, "timeline-ok", ["DEPLOYED"]);
    const m = await trpcClient(t).models.get.query({ slug: "timeline-ok" });
    expect(m.events.map((e) => e.status)).toEqual(["PENDING", "QUEUED", "TRAINING", "DEPLOYED"]);
    const times = m.events.map((e) => Date.parse(e.at!));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    expect(m.events.every((e) => e.message === null)).toBe(true);
  });

  test("a failed model's last event is ERROR with the backend's message", async () => {
    await start("timeline-fail");
    await waitForModelStatus(t, "timeline-fail", ["ERROR"]);
    const m = await trpcClient(t).models.get.query({ slug: "timeline-fail" });
    const last = m.events.at(-1)!;
    expect(last.status).toBe("ERROR");
    expect(last.message).toBe(m.errorMessage);
    expect(last.message).toBeTruthy();
  });
});
