import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startJobs } from "../../src/background";
import { systemCtx } from "../../src/domain/context";
import { TRAINING_UNSEEN } from "../../src/domain/fine-tunes/advance-fine-tune";
import { setProviderKey } from "../../src/domain/projects";
import { createTestApp, type TestApp } from "../helpers/app";
import { addEntries, createDataset, qa, waitForModelStatus } from "../helpers/factories";
import { startFakeTrainer, type FakeTrainer } from "../helpers/fake-trainer";
import { trpcClient } from "../helpers/trpc";

// The fine-tune timeline the console draws: a job that started and finished between two polls
// still shows TRAINING (marked as not seen running), so every deployed model's timeline has the
// same steps and the durations between them can be read.

let t: TestApp;
let fake: FakeTrainer;
let worker: { stop(): Promise<void> };
let datasetId = "";

beforeAll(async () => {
  fake = startFakeTrainer();
  t = await createTestApp({ env: { OPENAI_BASE_URL: `${fake.url}/v1`, HONE_FINETUNE_POLL_MS: "30", HONE_JOB_POLL_MS: "20" } });
  await setProviderKey({ ...systemCtx(t.deps, "test"), projectId: t.project.projectId }, { provider: "openai", apiKey: "sk-openai-timeline-1" });
  worker = startJobs(t.deps);
  datasetId = await createDataset(t, { name: "timeline" });
  await addEntries(t, datasetId, [qa("a", "1"), qa("b", "2")]);
});
afterAll(async () => {
  await worker.stop();
  await fake.stop();
  await t.close();
});

const start = (slug: string) =>
  trpcClient(t).models.create.mutate({
    datasetId,
    slug,
    trainingConfig: { provider: "openai", baseModel: "gpt-4o-mini-2024-07-18", hyperparameters: { n_epochs: 2 } },
  });

describe("fine-tune timeline", () => {
  test("a job seen queued then done: TRAINING is recorded all the same, with a note, before DEPLOYED", async () => {
    await start("quick-one");
    await waitForModelStatus(t, "quick-one", ["DEPLOYED"]);
    const m = await trpcClient(t).models.get.query({ slug: "quick-one" });
    expect(m.events.map((e) => e.status)).toEqual(["PENDING", "QUEUED", "TRAINING", "DEPLOYED"]);
    expect(m.events.map((e) => e.message)).toEqual([null, null, TRAINING_UNSEEN, null]);
    const times = m.events.map((e) => Date.parse(e.at));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    // The hyperparameters it was started with, as the backend got them.
    expect(m.hyperparameters).toEqual({ n_epochs: 2 });
    expect([...fake.jobs.values()].at(-1)!.body.method!.supervised!.hyperparameters).toEqual({ n_epochs: 2 });
  });

  test("a job seen running has TRAINING without a note", async () => {
    await start("seen-running");
    await waitForModelStatus(t, "seen-running", ["DEPLOYED"]);
    const m = await trpcClient(t).models.get.query({ slug: "seen-running" });
    expect(m.events.map((e) => [e.status, e.message])).toEqual([
      ["PENDING", null],
      ["QUEUED", null],
      ["TRAINING", null],
      ["DEPLOYED", null],
    ]);
  });
});
