import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { systemCtx } from "../../src/domain/context";
import { setProviderKey } from "../../src/domain/projects";
import { startJobs } from "../../src/background";
import type { Worker } from "../../src/background/worker";
import { createTestApp, type TestApp } from "../helpers/app";
import { addEntries, createDataset, qa, waitForModelStatus } from "../helpers/factories";
import { type FakeTrainer, startFakeTrainer } from "../helpers/fake-trainer";
import { gql } from "../helpers/gql";
import { trpcClient, trpcFailure } from "../helpers/trpc";

// A failed fine-tune says what to check by the kind of its failure (the key, the backend's URL,
// what the backend would not train, the data, the trainer), and is retried from the same settings
// once that is fixed (tRPC models.retry, GraphQL retryModel); its entries are counted when it is made.

const KEY = "tg-the-right-key-0001";
let fake: FakeTrainer;
let t: TestApp;
let worker: Worker;
let datasetId: string;
const setTogetherKey = (apiKey: string) => setProviderKey({ ...systemCtx(t.deps, "test"), projectId: t.project.projectId }, { provider: "together", apiKey });

beforeAll(async () => {
  fake = startFakeTrainer({ apiKey: KEY });
  t = await createTestApp({
    env: { TOGETHER_BASE_URL: `${fake.url}/v1`, OPENAI_BASE_URL: `${fake.url}/v1`, HONE_FINETUNE_POLL_MS: "30", HONE_JOB_POLL_MS: "20" },
  });
  await setProviderKey({ ...systemCtx(t.deps, "test"), projectId: t.project.projectId }, { provider: "openai", apiKey: KEY });
  datasetId = await createDataset(t, { name: "support" });
  await addEntries(t, datasetId, [qa("a?", "A"), qa("b?", "B"), qa("c?", "C"), qa("held out", "D", "TEST")]);
  worker = startJobs(t.deps);
});
afterAll(async () => {
  await worker.stop();
  await t.close();
  await fake.stop();
});

describe("a failed fine-tune", () => {
  test("a refused key: the hint says to check the key; fixed, Retry trains it again to DEPLOYED, the failure kept on the timeline", async () => {
    await setTogetherKey("tg-a-wrong-key-0000");
    const made = await trpcClient(t).models.create.mutate({
      datasetId,
      slug: "support-v1",
      trainingConfig: { provider: "together", baseModel: "Qwen/Qwen2.5-7B-Instruct" },
    });
    // Counted when it is made: the TRAIN entries.
    expect(made.trainingEntries).toBe(3);
    await waitForModelStatus(t, "support-v1", ["ERROR"]);
    const failed = await trpcClient(t).models.get.query({ slug: "support-v1" });
    expect(failed.errorMessage).toContain("HTTP 401");
    expect(failed.failure).toMatchObject({ kind: "key" });
    expect(failed.failure!.hint).toContain("Settings → Provider keys");

    // Only a member may retry; a viewer is refused.
    const viewer = (await trpcClient(t).apiKeys.create.mutate({ name: "viewer", scopes: ["read"] })).apiKey;
    expect((await trpcFailure(trpcClient(t, viewer).models.retry.mutate({ slug: "support-v1" }))).data?.code).toBe("FORBIDDEN");

    await setTogetherKey(KEY);
    const again = await trpcClient(t).models.retry.mutate({ slug: "support-v1" });
    expect(again).toMatchObject({ status: "PENDING", errorMessage: null, failure: null });
    await waitForModelStatus(t, "support-v1", ["DEPLOYED", "ERROR"]);
    const done = await trpcClient(t).models.get.query({ slug: "support-v1" });
    expect(done.status).toBe("DEPLOYED");
    expect(done.events.map((e) => e.status)).toEqual(["PENDING", "ERROR", "PENDING", "QUEUED", "TRAINING", "DEPLOYED"]);
    expect(done.events[2]!.message).toStartWith("retried");
    // A model that did not fail is not retried.
    expect((await trpcFailure(trpcClient(t).models.retry.mutate({ slug: "support-v1" }))).data?.code).toBe("CONFLICT");
  });

  test("what the backend said about the data: the hint points at the dataset; GraphQL retryModel and failure alike", async () => {
    // (OpenAI's fake ends a job named "fail" with "Training file has too few examples".)
    await trpcClient(t).models.create.mutate({ datasetId, slug: "data-fail", trainingConfig: { provider: "openai", baseModel: "gpt-4o-mini-2024-07-18" } });
    await waitForModelStatus(t, "data-fail", ["ERROR", "DEPLOYED"]);
    const viaGql = await gql<{ model: { status: string; failure: { kind: string; hint: string } } }>(
      t,
      `{ model(slug: "data-fail") { status failure { kind hint } } }`,
    );
    expect(viaGql.data?.model).toMatchObject({ status: "ERROR", failure: { kind: "data" } });
    const retried = await gql<{ retryModel: { status: string } }>(t, `mutation { retryModel(slug: "data-fail") { status } }`);
    expect(retried.data?.retryModel.status).toBe("PENDING");
    expect((await gql(t, `mutation { retryModel(slug: "nope") { status } }`)).errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
  });

  test("a trainer model cancelled, then retried: queued for a trainer again", async () => {
    await trpcClient(t).models.create.mutate({ datasetId, slug: "own-gpu", trainingConfig: { provider: "trainer", baseModel: "Qwen/Qwen2.5-0.5B-Instruct" } });
    const cancelled = await trpcClient(t).trainers.cancel.mutate({ slug: "own-gpu" });
    expect(cancelled).toMatchObject({ status: "ERROR", failure: { kind: "cancelled" } });
    const again = await trpcClient(t).models.retry.mutate({ slug: "own-gpu" });
    expect(again.status).toBe("QUEUED");
    const token = (await trpcClient(t).apiKeys.create.mutate({ name: "trainer", scopes: ["trainer"] })).apiKey;
    const lease = await t.request("POST", "/api/v1/trainer/lease", { key: token, body: { trainer: { name: "gpu", host: "gpu", gpus: [], versions: {} } } });
    expect(((await lease.json()) as { job: { slug: string } | null }).job?.slug).toBe("own-gpu");
  });
});
