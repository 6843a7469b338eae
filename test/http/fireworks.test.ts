import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { systemCtx } from "../../src/domain/context";
import { setProviderKey } from "../../src/domain/projects";
import { startJobs } from "../../src/background";
import type { Worker } from "../../src/background/worker";
import { createTrainerFactory } from "../../src/providers/trainers";
import { createTestApp, type TestApp } from "../helpers/app";
import { addEntries, createDataset, qa, waitForModelStatus } from "../helpers/factories";
import { type FakeFireworks, fileOf, startFakeFireworks } from "../helpers/fake-fireworks";
import { latestLog } from "../helpers/logs";
import { rest } from "../helpers/rest";
import { trpcClient, trpcFailure } from "../helpers/trpc";

// Fireworks as a managed backend past OpenAI's shutdown: LoRA fine-tuning of open models through
// its REST API (a fake that speaks the wire), the adapter served on its serverless platform and
// called as hone:<slug>; and HONE_OPEN_MODEL_BACKEND placing the OpenPipe SDK's open-model
// fine-tunes on the backend the operator chose.

const FW_KEY = "fw-test-key-0001";
let fw: FakeFireworks;
let t: TestApp;
let worker: Worker;
let datasetId: string;

beforeAll(async () => {
  fw = startFakeFireworks({ apiKey: FW_KEY });
  t = await createTestApp({
    env: { FIREWORKS_BASE_URL: fw.url, HONE_OPEN_MODEL_BACKEND: "fireworks", HONE_FINETUNE_POLL_MS: "30", HONE_JOB_POLL_MS: "20" },
  });
  await setProviderKey({ ...systemCtx(t.deps, "test"), projectId: t.project.projectId }, { provider: "fireworks", apiKey: FW_KEY });
  datasetId = await createDataset(t, { name: "fw" });
  await addEntries(t, datasetId, [qa("capital?", "Quimby"), qa("capital, again?", "Quimby"), qa("held out", "Quimby", "TEST")]);
  worker = startJobs(t.deps);
});
afterAll(async () => {
  await worker.stop();
  await t.close();
  await fw.stop();
});

describe("fine-tuning on Fireworks", () => {
  test("a LoRA fine-tune of an open model: the TRAIN entries uploaded, the job trained, the adapter loaded on serverless, hone:<slug> answers from it", async () => {
    const created = await trpcClient(t).models.create.mutate({
      datasetId,
      slug: "fw-llama",
      // The Hugging Face id is enough: the catalogue knows Fireworks' name for it.
      trainingConfig: { provider: "fireworks", baseModel: "meta-llama/Llama-3.1-8B-Instruct", epochs: 2, loraRank: 16 },
    });
    expect(created).toMatchObject({ backend: "fireworks", baseModel: "accounts/fireworks/models/llama-v3p1-8b-instruct", status: "PENDING" });
    const model = await waitForModelStatus(t, "fw-llama", ["DEPLOYED", "ERROR"]);
    expect(model.hone.status).toBe("DEPLOYED");

    const [dataset] = [...fw.datasets.values()];
    const lines = dataset!
      .file!.trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { messages: { role: string; content: string }[] });
    expect(lines).toHaveLength(2); // TEST is held out
    expect(lines[0]!.messages.at(-1)).toEqual({ role: "assistant", content: "Quimby" });
    expect(dataset!.body.dataset).toMatchObject({ exampleCount: "2" });
    const [job] = [...fw.jobs.values()];
    expect(job!.kind).toBe("sft");
    expect(job!.body).toMatchObject({ baseModel: "accounts/fireworks/models/llama-v3p1-8b-instruct", epochs: 2, loraRank: 16 });
    expect(job!.outputModel).toStartWith("accounts/acme/models/hone-fw-llama-");
    expect([...fw.deployed.values()]).toEqual([{ model: job!.outputModel, state: "DEPLOYED", serverless: true }]);

    const res = await t.request("POST", "/api/v1/chat/completions", {
      body: { model: "hone:fw-llama", messages: [{ role: "user", content: "capital?" }] },
      headers: { "op-log-request": "true" },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { model: string; choices: { message: { content: string } }[] };
    expect(body.model).toBe("hone:fw-llama");
    expect(body.choices[0]!.message.content).toBe("fireworks: capital?");
    expect(fw.chats.at(-1)!.model).toBe(job!.outputModel);
    const log = await latestLog(t);
    expect(log.model).toBe("hone:fw-llama");
    // Priced from the catalogue's Fireworks serving price.
    expect(log.costUsd).toBeGreaterThan(0);
    expect(fw.refused).toBe(0);

    // The adapter is the team's: Fireworks' files, through Hone, as a tar that resumes.
    const whole = await t.request("GET", "/api/v1/models/fw-llama/weights");
    expect(whole.status).toBe(200);
    const archive = new Uint8Array(await whole.arrayBuffer());
    const id = job!.outputModel.split("/").at(-1)!;
    const listed = JSON.parse(whole.headers.get("x-hone-files")!) as { path: string; bytes: number; sha256: null }[];
    expect(listed.map((f) => [f.path, f.bytes])).toEqual([
      ["adapter_config.json", fileOf(id, "adapter_config.json").length],
      ["adapter_model.safetensors", fileOf(id, "adapter_model.safetensors").length],
    ]);
    const dir = mkdtempSync(join(tmpdir(), "hone-fw-weights-"));
    writeFileSync(join(dir, "w.tar"), archive);
    expect(Bun.spawnSync(["tar", "-xf", "w.tar"], { cwd: dir }).exitCode).toBe(0);
    expect(readFileSync(join(dir, "fw-llama/adapter_model.safetensors"), "utf8")).toBe(fileOf(id, "adapter_model.safetensors"));
    rmSync(dir, { recursive: true, force: true });
    const rest = await t.request("GET", "/api/v1/models/fw-llama/weights", { headers: { range: "bytes=700-" } });
    expect(rest.status).toBe(206);
    expect(new Uint8Array(await rest.arrayBuffer())).toEqual(archive.subarray(700));
  });

  test("Fireworks' own settings are checked when the model is created; an unknown key is named", async () => {
    const wrong = await trpcFailure(
      trpcClient(t).models.create.mutate({
        datasetId,
        slug: "fw-bad",
        trainingConfig: { provider: "fireworks", baseModel: "accounts/fireworks/models/qwen2p5-7b-instruct", n_epochs: 3 },
      }),
    );
    expect(wrong.message).toContain("n_epochs");
    const other = await trpcFailure(
      trpcClient(t).models.create.mutate({ datasetId, slug: "fw-bad2", trainingConfig: { provider: "fireworks", baseModel: "gpt-4o-mini-2024-07-18" } }),
    );
    expect(other.message).toContain("trained by the openai backend, not fireworks");
  });

  test("a job Fireworks fails: the model is ERROR with Fireworks' message", async () => {
    await trpcClient(t).models.create.mutate({ datasetId, slug: "fw-fail", trainingConfig: { provider: "fireworks", baseModel: "Qwen/Qwen2.5-7B-Instruct" } });
    const model = await waitForModelStatus(t, "fw-fail", ["DEPLOYED", "ERROR"]);
    expect(model.hone.status).toBe("ERROR");
    expect(model.hone.errorMessage).toContain("the dataset has too few examples");
  });

  test("DPO goes to Fireworks' dpoJobs with the DPO loss and its beta", async () => {
    const trainer = createTrainerFactory({ fetch, timeoutMs: 5_000 })({ backend: "fireworks", baseUrl: fw.url, apiKey: FW_KEY });
    const file = await trainer.uploadTrainingFile(
      `${JSON.stringify({ input: { messages: [{ role: "user", content: "hi" }] }, preferred_output: [{ role: "assistant", content: "hello" }], non_preferred_output: [{ role: "assistant", content: "go away" }] })}\n`,
      "prefs.jsonl",
    );
    expect(file).toStartWith("accounts/acme/datasets/hone-prefs-");
    const name = await trainer.createJob({
      fileId: file,
      baseModel: "accounts/fireworks/models/qwen3-8b",
      hyperparameters: { epochs: 1 },
      suffix: "prefs",
      method: { type: "dpo", beta: 0.2 },
    });
    expect(name).toStartWith("accounts/acme/dpoJobs/");
    expect(fw.jobs.get(name)!.body).toMatchObject({
      dataset: file,
      trainingConfig: { baseModel: "accounts/fireworks/models/qwen3-8b", epochs: 1 },
      lossConfig: { method: "DPO", klBeta: 0.2 },
    });
    expect(await trainer.getJob(name)).toEqual({ status: "running", modelId: null, error: null });
    await trainer.cancelJob(name);
    expect((await trainer.getJob(name)).status).toBe("cancelled");
  });
});

describe("HONE_OPEN_MODEL_BACKEND: where the OpenPipe SDK's open-model fine-tunes go", () => {
  test("fireworks: the SDK's route and provider openpipe train there, under Fireworks' name for the model", async () => {
    const viaSdk = await rest(t).ok("POST /unstable/finetune/create", {
      body: { datasetId, slug: "sdk-llama", baseModel: "meta-llama/Meta-Llama-3.1-8B-Instruct-Reference" },
    });
    const model = await trpcClient(t).models.get.query({ slug: "sdk-llama" });
    expect(model).toMatchObject({ id: viaSdk.id, backend: "fireworks", baseModel: "accounts/fireworks/models/llama-v3p1-8b-instruct" });
    const viaProvider = await trpcClient(t).models.create.mutate({
      datasetId,
      slug: "op-qwen",
      trainingConfig: { provider: "openpipe", baseModel: "Qwen/Qwen2.5-7B-Instruct", n_epochs: 2, lora_r: 8 },
    });
    expect(viaProvider).toMatchObject({
      backend: "fireworks",
      baseModel: "accounts/fireworks/models/qwen2p5-7b-instruct",
      hyperparameters: { epochs: 2, loraRank: 8 },
    });
    // A model Fireworks does not train here is refused, naming the ones it does.
    const gemma = await trpcFailure(
      trpcClient(t).models.create.mutate({ datasetId, slug: "op-gemma", trainingConfig: { provider: "openpipe", baseModel: "google/gemma-3-12b-it" } }),
    );
    expect(gemma.message).toContain("not among the open models this server trains on fireworks");
    // OpenAI's models stay OpenAI's.
    const closed = await trpcFailure(
      trpcClient(t).models.create.mutate({ datasetId, slug: "op-gpt", trainingConfig: { provider: "openpipe", baseModel: "gpt-4o-mini-2024-07-18" } }),
    );
    expect(closed.message).toContain("trained by the openai backend, not openpipe");
  });

  test("trainer: queued for Hone's trainers with the model's Hugging Face id and the SDK's settings in the trainer's names", async () => {
    const other = await createTestApp({ env: { HONE_OPEN_MODEL_BACKEND: "trainer" } });
    try {
      const ds = await createDataset(other, { name: "x" });
      await addEntries(other, ds, [qa("a", "b")]);
      const m = await trpcClient(other).models.create.mutate({
        datasetId: ds,
        slug: "op-trainer",
        trainingConfig: { provider: "openpipe", baseModel: "meta-llama/Meta-Llama-3.1-8B-Instruct-Reference", n_epochs: 2, learning_rate: 0.0001 },
      });
      expect(m).toMatchObject({
        backend: "trainer",
        status: "QUEUED",
        baseModel: "meta-llama/Llama-3.1-8B-Instruct",
        hyperparameters: { epochs: 2, learningRate: 0.0001 },
      });
      const sdk = await rest(other).ok("POST /unstable/finetune/create", { body: { datasetId: ds, slug: "sdk-trainer", baseModel: "Qwen/Qwen3-8B" } });
      expect((await trpcClient(other).models.get.query({ slug: "sdk-trainer" })).backend).toBe("trainer");
      expect(sdk.id).toStartWith("ft_");
    } finally {
      await other.close();
    }
  });
});
