import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import type { z } from "zod";
import { systemCtx } from "../../src/domain/context";
import { openDatabase } from "../../src/db/client";
import { createDeps } from "../../src/compose";
import type { DatasetEntryInput } from "../../src/domain/datasets";
import { claimJob, enqueueJob } from "../../src/domain/jobs";
import { canTransition, MODEL_STATUSES, type ModelStatus } from "../../src/domain/models";
import { setProviderKey } from "../../src/domain/projects";
import { startJobs } from "../../src/background";
import type { Worker } from "../../src/background/worker";
import { createLogger } from "../../src/core/logger";
import { createTestApp, serve, testConfig, type TestApp, openAiClient } from "../helpers/app";
import { startFakeTrainer, type FakeTrainer } from "../helpers/fake-trainer";
import { waitForModelStatus } from "../helpers/factories";
import { gqlData } from "../helpers/gql";
import { latestLog } from "../helpers/logs";
import { rest, type Rest } from "../helpers/rest";

let t: TestApp;
let api: Rest;
let fake: FakeTrainer;
let server: { url: string; stop(): Promise<void> };
let client: OpenAI;
let worker: Worker;
const env = () => ({ OPENAI_BASE_URL: `${fake.url}/v1`, TOGETHER_BASE_URL: `${fake.url}/v1`, HONE_FINETUNE_POLL_MS: "30", HONE_JOB_POLL_MS: "20" });

beforeAll(async () => {
  fake = startFakeTrainer();
  t = await createTestApp({ env: env() });
  api = rest(t);
  const ctx = { ...systemCtx(t.deps, "test"), projectId: t.project.projectId };
  await setProviderKey(ctx, { provider: "openai", apiKey: "sk-openai-train-1" });
  await setProviderKey(ctx, { provider: "together", apiKey: "tg-together-key-1" });
  worker = startJobs(t.deps);
  server = serve(t.app);
  client = openAiClient(server.url, t.project.apiKey);
});
afterAll(async () => {
  await worker.stop();
  await server.stop();
  await fake.stop();
  await t.close();
});

async function datasetWithEntries(key?: string): Promise<string> {
  const ds = (await api.ok("POST /datasets", { body: { name: "train" }, key })).id;
  const entries: z.input<typeof DatasetEntryInput>[] = [
    {
      messages: [
        { role: "user", content: "hi" },
        { role: "assistant", content: "hello" },
      ],
      split: "TRAIN",
    },
    {
      messages: [
        { role: "user", content: "weather?" },
        { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "weather", arguments: "{}" } }] },
      ],
      tools: [{ type: "function", function: { name: "weather", parameters: { type: "object" } } }],
      split: "TRAIN",
    },
    {
      messages: [
        { role: "user", content: "held out" },
        { role: "assistant", content: "test" },
      ],
      split: "TEST",
    },
  ];
  expect((await api.ok("POST /datasets/:datasetId/entries", { params: { datasetId: ds }, body: { entries }, key })).entries_created).toBe(3);
  return ds;
}
const waitForStatus = (slug: string, wanted: string[], timeoutMs = 10_000) => waitForModelStatus(t, slug, wanted, { timeoutMs });

describe("the state machine", () => {
  test("only the documented transitions are allowed", () => {
    // ERROR -> PENDING / QUEUED: a retry (models.retry).
    const allowed = new Set([
      "PENDING>QUEUED",
      "PENDING>ERROR",
      "QUEUED>TRAINING",
      "QUEUED>DEPLOYED",
      "QUEUED>ERROR",
      "TRAINING>DEPLOYED",
      "TRAINING>ERROR",
      "ERROR>PENDING",
      "ERROR>QUEUED",
    ]);
    for (const from of MODEL_STATUSES) {
      for (const to of MODEL_STATUSES) {
        expect(`${from}>${to}:${canTransition(from as ModelStatus, to as ModelStatus)}`).toBe(`${from}>${to}:${from === to || allowed.has(`${from}>${to}`)}`);
      }
    }
  });
});

describe("fine-tuning end to end", () => {
  test("OpenAI backend: dataset -> model -> DEPLOYED -> chat completion through hone:<slug>", async () => {
    const ds = await datasetWithEntries();
    const created = await api.ok("POST /models", {
      body: { datasetId: ds, slug: "support-v1", trainingConfig: { provider: "openai", baseModel: "gpt-4o-mini-2024-07-18", n_epochs: 3 } },
    });
    expect(created).toMatchObject({
      id: "support-v1",
      object: "model",
      hone: { baseModel: "gpt-4o-mini-2024-07-18", hyperparameters: { n_epochs: 3 }, datasetId: ds, errorMessage: null },
      contextWindow: 128000,
      capabilities: ["chat", "tools", "json"],
      pricing: { chatIn: 0.3, chatOut: 1.2 },
    });
    expect(["PENDING", "QUEUED", "TRAINING"]).toContain(created.hone.status);
    const deployed = await waitForStatus("support-v1", ["DEPLOYED", "ERROR"]);
    expect(deployed.hone.status).toBe("DEPLOYED");

    // Only TRAIN entries were uploaded, tool calls included.
    const job = [...fake.jobs.values()].find((j) => j.suffix === "support-v1")!;
    expect(job.body.model).toBe("gpt-4o-mini-2024-07-18");
    expect(job.body.method!.supervised!.hyperparameters).toEqual({ n_epochs: 3 });
    const lines = fake.files
      .get(job.fileId)!
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(2);
    expect(lines[1].messages[1].tool_calls[0].function.name).toBe("weather");
    expect(lines[1].tools[0].function.name).toBe("weather");
    expect(JSON.stringify(lines)).not.toContain("held out");

    // Calls to a fine-tune are logged when asked (OpenPipe's rule; see the fidelity tests).
    for (const model of ["hone:support-v1", "openpipe:support-v1"]) {
      const r = await client.chat.completions.create({ model, messages: [{ role: "user", content: "ping" }] }, { headers: { "op-log-request": "true" } });
      expect(r.model).toBe(model);
      expect(r.choices[0]!.message.content).toBe("tuned: ping");
      expect(fake.chats.at(-1)!.model).toBe("ft:gpt-4o-mini-2024-07-18:hone:support-v1:x1");
    }
    const log = await latestLog(t);
    // OpenPipe's prefix is an alias of Hone's: one spelling in the logs.
    expect(log).toMatchObject({ provider: "hone", model: "hone:support-v1", statusCode: 200 });
    expect(log.costUsd).toBeCloseTo((1000 * 0.3 + 500 * 1.2) / 1e6, 12);

    const s = await client.chat.completions.create({ model: "hone:support-v1", messages: [{ role: "user", content: "stream" }], stream: true });
    let text = "";
    for await (const chunk of s) {
      expect(chunk.model).toBe("hone:support-v1");
      text += chunk.choices[0]?.delta.content ?? "";
    }
    expect(text).toBe("tuned: stream");
    const miss = await api.raw("POST /chat/completions", {
      body: { model: "hone:support-v1", messages: [{ role: "user", content: "cache me" }] },
      headers: { "op-cache": "readWrite" },
    });
    expect(miss.headers.get("x-hone-cache")).toBe("MISS");
    const hit = await api.raw("POST /chat/completions", {
      body: { model: "hone:support-v1", messages: [{ role: "user", content: "cache me" }] },
      headers: { "op-cache": "readWrite" },
    });
    expect(hit.headers.get("x-hone-cache")).toBe("HIT");

    const listed = (await api.ok("GET /datasets")).data.find((d) => d.id === ds);
    expect(listed!.fine_tune_count).toBe(1);
    const graph = await gqlData<{
      models: { id: string; status: string; baseModel: string; datasetId: string | null; dataset: { id: string } | null }[];
    }>(t, `{ models { id status baseModel datasetId dataset { id } } }`);
    expect(graph.models.find((m) => m.id === "support-v1")).toEqual({
      id: "support-v1",
      status: "DEPLOYED",
      baseModel: "gpt-4o-mini-2024-07-18",
      datasetId: ds,
      dataset: { id: ds },
    });
    const dsGraph = await gqlData<{ dataset: { fineTuneCount: number; models: { id: string }[] } }>(
      t,
      `query($id: ID!) { dataset(id: $id) { fineTuneCount models { id } } }`,
      { id: ds },
    );
    expect(dsGraph.dataset).toEqual({ fineTuneCount: 1, models: [{ id: "support-v1" }] });
  });

  test("Together backend through POST /unstable/finetune/create, served from TOGETHER_BASE_URL", async () => {
    const ds = await datasetWithEntries();
    const r = await api.ok("POST /unstable/finetune/create", {
      body: {
        datasetId: ds,
        slug: "llama-support",
        baseModel: "meta-llama/Meta-Llama-3.1-8B-Instruct-Reference",
        overrides: { n_epochs: 2, learning_rate: 0.0001 },
      },
    });
    expect(r.id).toMatch(/^ft_/);
    await waitForStatus("llama-support", ["DEPLOYED"]);
    const job = [...fake.jobs.values()].find((j) => j.suffix === "llama-support")!;
    expect(job.api).toBe("together");
    expect(job.body).toMatchObject({ model: "meta-llama/Meta-Llama-3.1-8B-Instruct-Reference", n_epochs: 2, learning_rate: 0.0001, lora: true });
    const c = await client.chat.completions.create({ model: "hone:llama-support", messages: [{ role: "user", content: "yo" }] });
    expect(c.choices[0]!.message.content).toBe("tuned: yo");
    expect(fake.chats.at(-1)!.model).toBe("acct/Meta-Llama-3.1-8B-Instruct-Reference-llama-support");
  });

  test("weights: Together's adapter is downloadable through Hone (its own archive, passed on); OpenAI keeps its fine-tunes'", async () => {
    const together = await t.request("GET", "/api/v1/models/llama-support/weights");
    expect(together.status).toBe(200);
    expect(together.headers.get("content-disposition")).toBe('attachment; filename="llama-support.tar.zst"');
    const job = [...fake.jobs.values()].find((j) => j.suffix === "llama-support")!;
    expect(await together.text()).toBe(`zstd archive of the adapter of ${job.id}`);
    const openai = await t.request("GET", "/api/v1/models/support-v1/weights");
    expect(openai.status).toBe(409);
    expect(((await openai.json()) as { message: string }).message).toContain("trained on openai, which keeps the weights");
  });

  test("the openai SDK lists and retrieves models", async () => {
    const ids: string[] = [];
    for await (const m of client.models.list()) ids.push(m.id);
    expect(ids).toEqual(expect.arrayContaining(["support-v1", "llama-support"]));
    const m = await client.models.retrieve("support-v1");
    expect(m).toMatchObject({ id: "support-v1", object: "model", owned_by: "project" });
    const missing = await client.models.retrieve("nope").catch((e) => e);
    expect(missing).toBeInstanceOf(OpenAI.NotFoundError);
  });

  test("a failing job ends in ERROR with the backend's reason; a model not deployed is a clear 409", async () => {
    const ds = await datasetWithEntries();
    await api.ok("POST /models", { body: { datasetId: ds, slug: "will-fail", trainingConfig: { provider: "openai", baseModel: "gpt-4o-mini-2024-07-18" } } });
    const failed = await waitForStatus("will-fail", ["ERROR"]);
    expect(failed.hone.errorMessage).toBe("Training file has too few examples");
    const err = await client.chat.completions.create({ model: "hone:will-fail", messages: [{ role: "user", content: "x" }] }).catch((e) => e);
    expect(err.status).toBe(409);
    expect(err.message).toContain("is not deployed yet (status ERROR)");

    await api.ok("POST /models", {
      body: { datasetId: ds, slug: "stall-train", trainingConfig: { provider: "together", baseModel: "Qwen/Qwen2.5-7B-Instruct" } },
    });
    await waitForStatus("stall-train", ["TRAINING"]);
    const busy = await client.chat.completions
      .create({ model: "hone:stall-train", messages: [{ role: "user", content: "x" }] }, { headers: { "op-log-request": "true" } })
      .catch((e) => e);
    expect(busy.status).toBe(409);
    expect(busy.message).toContain("status TRAINING");
    expect((await latestLog(t)).statusCode).toBe(409);

    // Deleting a model that is training cancels its upstream job.
    const jobId = [...fake.jobs.values()].find((j) => j.suffix === "stall-train")!.id;
    const params = { modelSlug: "stall-train" };
    expect(await api.ok("DELETE /models/:modelSlug", { params })).toEqual({ id: "stall-train", object: "model", deleted: true });
    expect(fake.cancelled).toContain(jobId);
    expect((await api.fail("GET /models/:modelSlug", { params })).status).toBe(404);
    expect((await api.fail("DELETE /models/:modelSlug", { params })).status).toBe(404);
  });

  test("bad requests are 400 with a clear message; duplicates 409; other projects' datasets 404", async () => {
    const ds = await datasetWithEntries();
    const cases: [unknown, number, string][] = [
      [{ datasetId: ds, slug: "a1", trainingConfig: { provider: "openai", baseModel: "gpt-9" } }, 400, "Unknown base model gpt-9"],
      [{ datasetId: ds, slug: "a2", trainingConfig: { provider: "openai", baseModel: "gpt-4o-mini-2024-07-18", n_epochs: 0 } }, 400, "Input validation failed"],
      [
        { datasetId: ds, slug: "a3", trainingConfig: { provider: "openai", baseModel: "gpt-4o-mini-2024-07-18", warp_speed: 9 } },
        400,
        "Input validation failed",
      ],
      [{ datasetId: ds, slug: "a4", trainingConfig: { provider: "together", baseModel: "gpt-4o-mini-2024-07-18" } }, 400, "trained by the openai backend"],
      [{ datasetId: ds, slug: "gpt-4o-mini", trainingConfig: { provider: "openai", baseModel: "gpt-4o-mini-2024-07-18" } }, 400, "name of a base model"],
      [{ datasetId: ds, slug: "Bad Slug!", trainingConfig: { provider: "openai", baseModel: "gpt-4o-mini-2024-07-18" } }, 400, "Input validation failed"],
      [
        { datasetId: "ds_missing", slug: "a5", trainingConfig: { provider: "openai", baseModel: "gpt-4o-mini-2024-07-18" } },
        404,
        "Dataset ds_missing not found",
      ],
      [{ datasetId: ds, slug: "support-v1", trainingConfig: { provider: "openai", baseModel: "gpt-4o-mini-2024-07-18" } }, 409, "already exists"],
      [{ datasetId: ds, slug: "a6" }, 400, "Input validation failed"],
    ];
    for (const [body, status, message] of cases) {
      const r = await api.fail("POST /models", { body });
      expect({ status: r.status, ok: r.body.message.includes(message) }).toEqual({ status, ok: true });
    }
    const empty = (await api.ok("POST /datasets", { body: { name: "empty" } })).id;
    const noEntries = await api.fail("POST /models", {
      body: { datasetId: empty, slug: "a7", trainingConfig: { provider: "openai", baseModel: "gpt-4o-mini-2024-07-18" } },
    });
    expect(noEntries.body.message).toContain("no entries");
    const other = await t.createProject("other");
    const key = other.apiKey;
    expect(
      (
        await api.fail("POST /models", {
          body: { datasetId: ds, slug: "mine", trainingConfig: { provider: "openai", baseModel: "gpt-4o-mini-2024-07-18" } },
          key,
        })
      ).status,
    ).toBe(404);
    expect((await api.fail("GET /models/:modelSlug", { params: { modelSlug: "support-v1" }, key })).status).toBe(404);
    expect(await api.ok("GET /models", { key })).toEqual({ object: "list", data: [], has_more: false });
  });
});

describe("the job queue", () => {
  test("a restart while a job is in flight: another worker picks the job up and finishes it", async () => {
    const ds = await datasetWithEntries();
    await worker.stop();
    try {
      await api.ok("POST /models", {
        body: { datasetId: ds, slug: "restart-me", trainingConfig: { provider: "openai", baseModel: "gpt-4.1-mini-2025-04-14" } },
      });
      // A first worker takes a step or two, then its process "stops".
      const first = startJobs(t.deps);
      await waitForStatus("restart-me", ["QUEUED", "TRAINING"]);
      await first.stop();
      const status = (await api.ok("GET /models/:modelSlug", { params: { modelSlug: "restart-me" } })).hone.status;
      expect(["QUEUED", "TRAINING"]).toContain(status);
      // A new process on the same database (fresh deps) carries on.
      const deps2 = createDeps({ config: testConfig(env()), database: t.db.database, logger: createLogger("silent"), secretKey: t.deps.secretKey });
      const second = startJobs(deps2);
      await waitForStatus("restart-me", ["DEPLOYED"]);
      await second.stop();
      expect([...fake.jobs.values()].filter((j) => j.suffix === "restart-me")).toHaveLength(1);
    } finally {
      worker = startJobs(t.deps);
    }
  });

  test("a job whose worker died is claimed again once its lease expires, not before", async () => {
    let now = Date.now();
    const deps = createDeps({
      config: t.deps.config,
      database: t.db.database,
      logger: createLogger("silent"),
      secretKey: t.deps.secretKey,
      clock: () => new Date(now),
    });
    const ctx = systemCtx(deps, "test");
    const kind = `test-lease-${now}`;
    const id = await enqueueJob(ctx, { kind, payload: {} });
    expect((await claimJob(ctx, { workerId: "dead", kinds: [kind], leaseMs: 60_000 }))?.id).toBe(id);
    expect(await claimJob(ctx, { workerId: "alive", kinds: [kind], leaseMs: 60_000 })).toBeNull();
    now += 61_000;
    const again = await claimJob(ctx, { workerId: "alive", kinds: [kind], leaseMs: 60_000 });
    expect(again).toMatchObject({ id, lockedBy: "alive", attempts: 2 });
  });

  test("two workers (two processes' worth, each with its own connections) run each job once", async () => {
    await worker.stop();
    let other: Awaited<ReturnType<typeof openDatabase>> | null = null;
    try {
      const ds = await datasetWithEntries();
      const slugs = Array.from({ length: 6 }, (_, i) => `pair-${i}`);
      for (const slug of slugs)
        await api.ok("POST /models", { body: { datasetId: ds, slug, trainingConfig: { provider: "openai", baseModel: "gpt-4o-mini-2024-07-18" } } });
      // On Postgres the second worker gets its own pool to the same database, like a second process.
      other = t.db.url ? await openDatabase({ databaseUrl: t.db.url, dataDir: "", dbPoolSize: 3 }, { migrate: false }) : null;
      const deps2 = createDeps({ config: testConfig(env()), database: other ?? t.db.database, logger: createLogger("silent"), secretKey: t.deps.secretKey });
      const a = startJobs(t.deps);
      const b = startJobs(deps2);
      for (const slug of slugs) await waitForStatus(slug, ["DEPLOYED"], 20_000);
      await Promise.all([a.stop(), b.stop()]);
      for (const slug of slugs) {
        expect([...fake.jobs.values()].filter((j) => j.suffix === slug)).toHaveLength(1);
      }
    } finally {
      await other?.close();
      worker = startJobs(t.deps);
    }
  }, 60_000);
});
