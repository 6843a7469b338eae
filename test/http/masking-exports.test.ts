import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startJobs } from "../../src/background";
import { createTestApp, storeProviderKey, type TestApp } from "../helpers/app";
import { waitForModelStatus } from "../helpers/factories";
import { type FakeTrainer, startFakeTrainer } from "../helpers/fake-trainer";
import { gqlData } from "../helpers/gql";
import { trpcClient } from "../helpers/trpc";

// mask_stored, what leaves Hone made from what it stored: the JSONL and CSV log exports, a dataset's
// export, and the training file a fine-tune uploads to the (fake) trainer hold placeholders, never
// a planted value.

const EMAIL = "lena.planted@example.com";
const PHONE = "+1 415 555 0142";
const SECRET = "ghp_PlantedToken1234567890abcdefGHIJKLmn";
const PLANTED = [EMAIL, PHONE, SECRET];

let t: TestApp;
let trainer: FakeTrainer;
let worker: { stop(): Promise<void> };

beforeAll(async () => {
  trainer = startFakeTrainer();
  t = await createTestApp({ env: { OPENAI_BASE_URL: `${trainer.url}/v1`, HONE_JOB_POLL_MS: "20", HONE_FINETUNE_POLL_MS: "30" } });
  worker = startJobs(t.deps);
});
afterAll(async () => {
  await worker.stop();
  await trainer.stop();
  await t.close();
});

const leaked = (text: string) => PLANTED.filter((v) => text.includes(v));

describe("mask_stored: what is exported and trained on", () => {
  test("log exports (JSONL, CSV), the dataset's export and the fine-tune's training file hold placeholders only", async () => {
    const p = await t.createProject("masking-exports");
    await storeProviderKey(t, "openai", "sk-masking-exports-0001", p.projectId);
    await gqlData(t, `mutation { setMaskingRule(mode: "mask_stored") { id } }`, {}, { key: p.apiKey });
    for (let i = 0; i < 12; i++) {
      const res = await t.request("POST", "/api/v1/report", {
        key: p.apiKey,
        body: {
          requestedAt: Date.now() - 100,
          receivedAt: Date.now(),
          statusCode: 200,
          reqPayload: { model: "gpt-4.1-mini-2025-04-14", messages: [{ role: "user", content: `Call ${PHONE} or mail ${EMAIL}, question ${i}` }] },
          respPayload: {
            id: `r${i}`,
            object: "chat.completion",
            created: 1,
            model: "gpt-4.1-mini-2025-04-14",
            choices: [{ index: 0, message: { role: "assistant", content: `Use the token ${SECRET} for ${EMAIL}` }, finish_reason: "stop" }],
          },
        },
      });
      expect(res.status).toBe(200);
    }
    await t.deps.logWriter.flush();
    for (const format of ["jsonl", "csv"]) {
      const res = await t.request("GET", `/api/v1/logs/export?format=${format}`, { key: p.apiKey });
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(text).toContain("<EMAIL_1>");
      expect(leaked(text)).toEqual([]);
    }
    const trpc = trpcClient(t, p.apiKey);
    const ds = await trpc.datasets.create.mutate({ name: "masked-training" });
    await trpc.datasets.importLogs.mutate({ datasetId: ds.id, filter: {} });
    const exported = await trpc.datasets.exportPage.query({ datasetId: ds.id });
    expect(JSON.stringify(exported)).toContain("<PHONE_1>");
    expect(leaked(JSON.stringify(exported))).toEqual([]);

    await gqlData(
      t,
      `mutation($ds: ID!) { createModel(input: {datasetId: $ds, slug: "masked-ft", trainingConfig: {provider: "openai", baseModel: "gpt-4.1-mini-2025-04-14"}}) { slug } }`,
      { ds: ds.id },
      { key: p.apiKey },
    );
    await waitForModelStatus(t, "masked-ft", ["DEPLOYED"], { key: p.apiKey });
    const job = [...trainer.jobs.values()].find((j) => j.suffix === "masked-ft")!;
    const file = trainer.files.get(job.fileId)!;
    expect(file.trim().split("\n").length).toBeGreaterThanOrEqual(5);
    expect(file).toContain("<GITHUB_TOKEN_1>");
    expect(leaked(file)).toEqual([]);
  });
});
