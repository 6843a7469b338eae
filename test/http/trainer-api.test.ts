import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { loadConfig } from "../../src/core/config";
import { datasetEntries } from "../../src/db/schema";
import { createTestApp, type TestApp } from "../helpers/app";
import { addEntries, createDataset, qa } from "../helpers/factories";
import { gql } from "../helpers/gql";
import { trpcClient, trpcFailure } from "../helpers/trpc";

// The trainer API (docs/fine-tuning.md "The trainer API"), as `hone-trainer work` uses it: a
// trainer token leases a QUEUED fine-tune, reads its entries, reports progress, uploads checked
// files and finishes it; a lease that lapses goes to another trainer, resuming from its checkpoint.

let t: TestApp;
let offsetMs = 0;
let datasetId: string;
let trainerKey: string;

const TRAINER = {
  name: "gpu-box-1",
  host: "gpu-box-1.internal",
  gpus: [{ name: "NVIDIA H100", memoryBytes: 80e9 }],
  versions: { hone_trainer: "0.1.0", torch: "2.13.0" },
};
const sha = (b: Uint8Array | string) => createHash("sha256").update(b).digest("hex");

type Job = {
  id: string;
  leaseId: string;
  leaseSeconds: number;
  slug: string;
  method: string;
  baseModel: string;
  settings: Record<string, unknown>;
  entries: { train: number; test: number };
  resumeFrom: { step: number; files: { path: string; sha256: string; bytes: number }[] } | null;
};

async function call<T>(method: string, path: string, body?: unknown, key = trainerKey): Promise<{ status: number; body: T }> {
  const res = await t.request(method, `/api/v1/trainer${path}`, { body, key });
  const text = await res.text();
  return { status: res.status, body: (text && res.headers.get("content-type")?.startsWith("application/json") ? JSON.parse(text) : text) as T };
}
const lease = async (name = TRAINER.name, key = trainerKey) =>
  (await call<{ job: Job | null }>("POST", "/lease", { trainer: { ...TRAINER, name } }, key)).body.job;

async function upload(job: Job, kind: string, path: string, bytes: Uint8Array, digest = sha(bytes)) {
  const res = await t.app.handle(
    new Request(`http://localhost/api/v1/trainer/jobs/${job.id}/files/${kind}/${path}?leaseId=${job.leaseId}`, {
      method: "PUT",
      headers: { authorization: `Bearer ${trainerKey}`, "x-hone-sha256": digest, "content-type": "application/octet-stream" },
      body: bytes.slice().buffer,
    }),
  );
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const createTrainerModel = (slug: string, trainingConfig: Record<string, unknown> = {}) =>
  trpcClient(t).models.create.mutate({
    datasetId,
    slug,
    trainingConfig: { provider: "trainer", baseModel: "meta-llama/Llama-3.2-1B-Instruct", ...trainingConfig },
  });

beforeAll(async () => {
  // OpenAI's end date as shipped (the other tests move it out of their way).
  const openaiEnds = loadConfig({}).openaiFineTuningEndsOn;
  expect(openaiEnds).toBe("2027-01-06");
  t = await createTestApp({
    env: { HONE_TRAINER_LEASE_SECONDS: "30", HONE_OPENAI_FINE_TUNING_ENDS_ON: openaiEnds, HONE_BODY_IDLE_TIMEOUT_MS: "400" },
    deps: { clock: () => new Date(Date.now() + offsetMs) },
  });
  datasetId = await createDataset(t, { name: "zorblax" });
  await addEntries(t, datasetId, [qa("capital?", "Quimby"), qa("capital, again?", "Quimby"), qa("and now?", "Quimby", "TEST")]);
  trainerKey = (await trpcClient(t).apiKeys.create.mutate({ name: "trainer", scopes: ["trainer"] })).apiKey;
});
afterAll(() => t.close());

describe("trainer tokens", () => {
  test("a trainer token holds the trainer scope alone, and reaches nothing but the trainer API", async () => {
    const mixed = await trpcFailure(trpcClient(t).apiKeys.create.mutate({ name: "bad", scopes: ["trainer", "read"] }));
    expect(JSON.stringify(mixed.data)).toContain("trainer is a scope of its own");
    expect((await t.request("GET", "/api/v1/datasets", { key: trainerKey })).status).toBe(403);
    expect((await gql(t, "{ limits { id } }", {}, { key: trainerKey })).errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
    const chat = await t.request("POST", "/api/v1/chat/completions", {
      key: trainerKey,
      body: { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] },
    });
    expect(chat.status).toBe(403);
    // ... and a key without the scope cannot act as a trainer.
    const member = (await trpcClient(t).apiKeys.create.mutate({ name: "member", scopes: ["gateway", "read", "write"] })).apiKey;
    expect((await call("POST", "/lease", { trainer: TRAINER }, member)).status).toBe(403);
  });
});

describe("fine-tunes for Hone's trainers", () => {
  test("settings are checked when the model is created: a 400 names the field, an unknown key is named", async () => {
    const bad = await trpcFailure(createTrainerModel("bad-r", { lora: { r: 0 } }));
    expect(JSON.stringify(bad.data)).toContain("lora.r must be at least 1");
    const unknown = await trpcFailure(createTrainerModel("bad-key", { epoch: 3 }));
    expect(unknown.message).toContain("epoch");
    const model = await createTrainerModel("zorblax-v1", { epochs: 2, checkpointEvery: 10 });
    expect(model).toMatchObject({
      status: "QUEUED",
      backend: "trainer",
      hyperparameters: { epochs: 2, checkpointEvery: 10, learningRate: 2e-4, lora: { r: 16 } },
    });
  });

  test("one trainer a job: leased with its settings, entries read by split, progress stored, files checked, then DEPLOYED", async () => {
    const job = (await lease())!;
    expect(job).toMatchObject({
      slug: "zorblax-v1",
      method: "sft",
      baseModel: "meta-llama/Llama-3.2-1B-Instruct",
      entries: { train: 2, test: 1 },
      resumeFrom: null,
    });
    expect(await lease("gpu-box-2")).toBeNull();
    // Settings -> Trainers: each trainer as it last said, and what it trains.
    const listed0 = await trpcClient(t).trainers.list.query();
    expect(listed0.find((r) => r.name === "gpu-box-1")).toMatchObject({ host: "gpu-box-1.internal", online: true, training: "zorblax-v1", gpus: TRAINER.gpus });
    expect(listed0.find((r) => r.name === "gpu-box-2")).toMatchObject({ online: true, training: null });

    const train = await call<string>("GET", `/jobs/${job.id}/entries?split=TRAIN&leaseId=${job.leaseId}`);
    const lines = train.body
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { messages: { role: string; content: string }[] });
    expect(lines.map((l) => l.messages.at(-1)!.content)).toEqual(["Quimby", "Quimby"]);
    const testLines = (await call<string>("GET", `/jobs/${job.id}/entries?split=TEST&leaseId=${job.leaseId}`)).body.trim().split("\n");
    expect(testLines).toHaveLength(1);

    const beat = await call<{ cancel: boolean; leaseSeconds: number }>("POST", `/jobs/${job.id}/heartbeat`, {
      leaseId: job.leaseId,
      events: [0, 1, 2].map((step) => ({
        step,
        totalSteps: 4,
        loss: 3 - step,
        evalLoss: step === 0 ? 3.2 : null,
        learningRate: 2e-4,
        tokensPerSecond: 900,
        etaSeconds: 4 - step,
        gpuMemoryBytes: null,
      })),
    });
    expect(beat).toEqual({ status: 200, body: { cancel: false, leaseSeconds: 30 } });
    // A step sent twice in one heartbeat (its loss, then its eval loss, as TRL reports them) is one row, both figures kept.
    const twice = await call("POST", `/jobs/${job.id}/heartbeat`, {
      leaseId: job.leaseId,
      events: [
        { step: 3, totalSteps: 4, loss: 0.5, evalLoss: null, learningRate: 1e-4, tokensPerSecond: 800, etaSeconds: 1, gpuMemoryBytes: 123 },
        { step: 3, totalSteps: 4, loss: null, evalLoss: 0.7, learningRate: null, tokensPerSecond: null, etaSeconds: null, gpuMemoryBytes: null },
      ],
    });
    expect(twice.status).toBe(200);
    const seen = await trpcClient(t).models.get.query({ slug: "zorblax-v1" });
    expect(seen.status).toBe("TRAINING");
    expect(seen.trainingCurve.map((p) => [p.step, p.trainLoss, p.validLoss])).toEqual([
      [0, 3, 3.2],
      [1, 2, null],
      [2, 1, null],
      [3, 0.5, 0.7],
    ]);
    // Every figure a step carried, on tRPC and GraphQL alike.
    const events = await trpcClient(t).trainers.events.query({ slug: "zorblax-v1" });
    expect(events.map((e) => e.step)).toEqual([0, 1, 2, 3]);
    expect(events[3]).toMatchObject({ loss: 0.5, evalLoss: 0.7, learningRate: 1e-4, tokensPerSecond: 800, gpuMemoryBytes: 123 });
    const viaGql = await gql<{ modelTrainingEvents: { step: number; tokensPerSecond: number }[] }>(
      t,
      `{ modelTrainingEvents(slug: "zorblax-v1") { step tokensPerSecond } }`,
    );
    expect(viaGql.data?.modelTrainingEvents.map((e) => [e.step, e.tokensPerSecond])).toEqual([
      [0, 900],
      [1, 900],
      [2, 900],
      [3, 800],
    ]);

    const weights = new TextEncoder().encode("safetensors bytes");
    expect((await upload(job, "result", "adapter/adapter_model.safetensors", weights, sha("something else"))).status).toBe(400);
    // A path that climbs out of the model's folder is refused, however it is spelt.
    expect((await upload(job, "result", "adapter/..%2F..%2Fescape.bin", weights)).status).toBe(400);
    // (an encoded `..` segment is resolved by the URL itself: it stays inside the folder)
    expect((await upload(job, "result", "adapter/%2E%2E/x.bin", weights)).body).toMatchObject({ path: "x.bin" });
    expect((await upload(job, "result", "adapter/adapter_model.safetensors", weights)).status).toBe(201);
    const listed = [{ path: "adapter/adapter_model.safetensors", sha256: sha(weights), bytes: weights.byteLength }];
    // Done names only files uploaded whole, with that digest.
    const missing = await call("POST", `/jobs/${job.id}/done`, {
      leaseId: job.leaseId,
      files: [...listed, { path: "adapter/adapter_config.json", sha256: sha("{}"), bytes: 2 }],
      dropped: { train: 0, test: 0 },
      metrics: { evalLoss: 0.4, trainLoss: 0.1 },
    });
    expect(missing.status).toBe(400);
    const done = await call("POST", `/jobs/${job.id}/done`, {
      leaseId: job.leaseId,
      files: listed,
      dropped: { train: 0, test: 0 },
      metrics: { evalLoss: 0.4, trainLoss: 0.1 },
    });
    expect(done).toEqual({ status: 200, body: { status: "DEPLOYED" } });
    // DEPLOYED, counting the entries it trained on.
    expect(await trpcClient(t).models.get.query({ slug: "zorblax-v1" })).toMatchObject({ status: "DEPLOYED", trainingEntries: 2 });
    // The job is over: its lease answers 409; with no vLLM server for its base, the gateway says what to set up.
    expect((await call("POST", `/jobs/${job.id}/heartbeat`, { leaseId: job.leaseId, events: [] })).status).toBe(409);
    const served = await t.request("POST", "/api/v1/chat/completions", {
      body: { model: "hone:zorblax-v1", messages: [{ role: "user", content: "capital?" }] },
    });
    expect(served.status).toBe(409);
    expect(await served.text()).toContain("no custom provider of kind vllm serves its base model");

    // The weights are the team's: a tar of what the trainer uploaded, each file's digest listed.
    const tarRes = await t.request("GET", "/api/v1/models/zorblax-v1/weights");
    expect(tarRes.status).toBe(200);
    expect(tarRes.headers.get("content-type")).toBe("application/x-tar");
    expect(JSON.parse(tarRes.headers.get("x-hone-files")!)).toEqual(listed);
    const archive = new Uint8Array(await tarRes.arrayBuffer());
    expect(archive.byteLength).toBe(Number(tarRes.headers.get("content-length")));
    const dir = mkdtempSync(join(tmpdir(), "hone-weights-"));
    writeFileSync(join(dir, "w.tar"), archive);
    const untar = Bun.spawnSync(["tar", "-xf", "w.tar"], { cwd: dir });
    expect(untar.exitCode).toBe(0);
    expect(readFileSync(join(dir, "zorblax-v1/adapter/adapter_model.safetensors"), "utf8")).toBe("safetensors bytes");
    rmSync(dir, { recursive: true, force: true });
    // A download cut off resumes: any byte range of the same archive, alone.
    const etag = tarRes.headers.get("etag")!;
    expect(tarRes.headers.get("accept-ranges")).toBe("bytes");
    for (const [range, from, to] of [
      ["bytes=100-", 100, archive.byteLength],
      ["bytes=0-0", 0, 1],
      ["bytes=500-530", 500, 531],
      ["bytes=-10", archive.byteLength - 10, archive.byteLength],
    ] as const) {
      const part = await t.request("GET", "/api/v1/models/zorblax-v1/weights", { headers: { range, "if-range": etag } });
      expect(part.status).toBe(206);
      expect(part.headers.get("content-range")).toBe(`bytes ${from}-${to - 1}/${archive.byteLength}`);
      expect(new Uint8Array(await part.arrayBuffer())).toEqual(archive.subarray(from, to));
    }
    const past = await t.request("GET", "/api/v1/models/zorblax-v1/weights", { headers: { range: `bytes=${archive.byteLength}-` } });
    expect(past.status).toBe(416);
    expect(past.headers.get("content-range")).toBe(`bytes */${archive.byteLength}`);
    // Asked for a range of another version of it: the whole archive.
    const changed = await t.request("GET", "/api/v1/models/zorblax-v1/weights", { headers: { range: "bytes=100-", "if-range": '"other"' } });
    expect(changed.status).toBe(200);
    expect((await changed.arrayBuffer()).byteLength).toBe(archive.byteLength);
    // A model still training, or trained elsewhere, has none to give.
    expect((await t.request("GET", "/api/v1/models/nothing-here/weights")).status).toBe(404);
  });

  test("a lease that lapses goes to another trainer, which resumes from the last checkpoint; the first is told it lost it", async () => {
    await createTrainerModel("zorblax-v2", { checkpointEvery: 5 });
    const first = (await lease("gpu-box-1"))!;
    const ckpt = new TextEncoder().encode("optimizer state");
    expect((await upload(first, "checkpoint", "checkpoint-5/optimizer.pt", ckpt)).status).toBe(201);
    const files = [{ path: "checkpoint-5/optimizer.pt", sha256: sha(ckpt), bytes: ckpt.byteLength }];
    expect((await call("POST", `/jobs/${first.id}/checkpoint`, { leaseId: first.leaseId, step: 5, files })).status).toBe(200);
    expect(await lease("gpu-box-2")).toBeNull();

    offsetMs += 31_000;
    const second = (await lease("gpu-box-2"))!;
    expect(second.id).toBe(first.id);
    expect(second.resumeFrom).toEqual({ step: 5, files });
    const back = await t.request("GET", `/api/v1/trainer/jobs/${second.id}/files/checkpoint/checkpoint-5/optimizer.pt?leaseId=${second.leaseId}`, {
      key: trainerKey,
    });
    expect(back.status).toBe(200);
    expect(new Uint8Array(await back.arrayBuffer())).toEqual(ckpt);
    const lost = await call<{ message: string }>("POST", `/jobs/${first.id}/heartbeat`, { leaseId: first.leaseId, events: [] });
    expect(lost.status).toBe(409);
    expect(lost.body.message).toContain("no longer yours");
    // The one that gave up is not the one that holds it: its failure changes nothing.
    expect((await call("POST", `/jobs/${first.id}/fail`, { leaseId: first.leaseId, error: "CUDA out of memory" })).status).toBe(409);
    expect((await call("POST", `/jobs/${second.id}/fail`, { leaseId: second.leaseId, error: "CUDA out of memory" })).status).toBe(200);
    const failed = await trpcClient(t).models.get.query({ slug: "zorblax-v2" });
    expect(failed).toMatchObject({ status: "ERROR", errorMessage: "The trainer failed: CUDA out of memory" });
  });

  test("cancelling: the trainer's next heartbeat says stop; a queued one ends at once; a viewer may not", async () => {
    await createTrainerModel("zorblax-v3");
    const job = (await lease())!;
    const viewer = (await trpcClient(t).apiKeys.create.mutate({ name: "viewer", scopes: ["read"] })).apiKey;
    expect((await trpcFailure(trpcClient(t, viewer).trainers.cancel.mutate({ slug: "zorblax-v3" }))).data?.code).toBe("FORBIDDEN");
    const asked = await gql<{ cancelModelTraining: { status: string } }>(t, `mutation { cancelModelTraining(slug: "zorblax-v3") { status } }`);
    expect(asked.data?.cancelModelTraining.status).toBe("TRAINING");
    expect((await call<{ cancel: boolean }>("POST", `/jobs/${job.id}/heartbeat`, { leaseId: job.leaseId, events: [] })).body.cancel).toBe(true);
    expect((await call("POST", `/jobs/${job.id}/fail`, { leaseId: job.leaseId, error: "cancelled", cancelled: true })).status).toBe(200);
    expect((await trpcClient(t).models.get.query({ slug: "zorblax-v3" })).errorMessage).toBe("Cancelled: the trainer stopped when asked");

    await createTrainerModel("zorblax-v4");
    expect((await trpcClient(t).trainers.cancel.mutate({ slug: "zorblax-v4" })).status).toBe("ERROR");
    expect(await lease()).toBeNull();
  });

  test("another project's trainer sees none of this project's jobs, and deleting a model ends its lease and its files", async () => {
    const other = await t.createProject("other");
    const otherTrainer = (await trpcClient(t, other.apiKey).apiKeys.create.mutate({ name: "trainer", scopes: ["trainer"] })).apiKey;
    await createTrainerModel("zorblax-v5");
    expect(await lease("foreign", otherTrainer)).toBeNull();
    const job = (await lease())!;
    expect((await call("POST", `/jobs/${job.id}/heartbeat`, { leaseId: job.leaseId, events: [] }, otherTrainer)).status).toBe(409);
    const bytes = new TextEncoder().encode("partial");
    expect((await upload(job, "checkpoint", "checkpoint-1/x.bin", bytes)).status).toBe(201);
    const dir = `${t.deps.config.trainers.artifactsDir}/${t.project.projectId}/${job.id}`;
    expect(existsSync(dir)).toBe(true);
    // An upload that stops mid-file is cut off after the idle deadline, and nothing of it is kept.
    const stalled = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new Uint8Array([1, 2, 3]));
      },
    });
    const cut = await t.app.handle(
      new Request(`http://localhost/api/v1/trainer/jobs/${job.id}/files/checkpoint/checkpoint-1/stalled.bin?leaseId=${job.leaseId}`, {
        method: "PUT",
        headers: { authorization: `Bearer ${trainerKey}`, "x-hone-sha256": sha("whatever") },
        body: stalled,
        duplex: "half",
      } as RequestInit),
    );
    expect(cut.status).toBe(408);
    expect(existsSync(`${dir}/checkpoint/checkpoint-1/stalled.bin`)).toBe(false);
    await trpcClient(t).models.delete.mutate({ slug: "zorblax-v5" });
    expect((await call("POST", `/jobs/${job.id}/heartbeat`, { leaseId: job.leaseId, events: [] })).status).toBe(409);
    expect(existsSync(dir)).toBe(false);
  });
});

describe("DPO for Hone's trainers", () => {
  test("a DPO job gets the dataset's preference pairs, a line each: the prompt, the output chosen, the one rejected; beta in its settings", async () => {
    const ds = await createDataset(t, { name: "prefs" });
    await addEntries(t, ds, [qa("capital?", "Quimby"), qa("capital, again?", "Quimby"), qa("no pair here", "fine")]);
    // Rejected outputs come from relabel runs and edits; set here on the stored entries.
    const rows = await t.deps.database.db.select().from(datasetEntries).where(eq(datasetEntries.datasetId, ds));
    for (const r of rows.filter((r) => JSON.stringify(r.messages).includes("capital"))) {
      await t.deps.database.db
        .update(datasetEntries)
        .set({ rejectedOutputs: [{ message: { role: "assistant", content: "Paris" }, source: "edit", ref: null, at: new Date().toISOString() }] })
        .where(eq(datasetEntries.id, r.id));
    }
    await trpcClient(t).models.create.mutate({
      datasetId: ds,
      slug: "zorblax-dpo",
      method: "dpo",
      beta: 0.2,
      trainingConfig: { provider: "trainer", baseModel: "meta-llama/Llama-3.2-1B-Instruct" },
    });
    const job = (await lease("dpo-box"))!;
    expect(job).toMatchObject({ slug: "zorblax-dpo", method: "dpo", settings: { dpoBeta: 0.2 } });
    const body = (await call<string>("GET", `/jobs/${job.id}/entries?split=TRAIN&leaseId=${job.leaseId}`)).body;
    const lines = body
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { prompt: { content: string }[]; chosen: { content: string }; rejected: { content: string } });
    expect(lines).toHaveLength(2);
    for (const l of lines) {
      expect(l.prompt.at(-1)!.content).toContain("capital");
      expect(l.chosen).toMatchObject({ role: "assistant", content: "Quimby" });
      expect(l.rejected).toMatchObject({ role: "assistant", content: "Paris" });
    }
    await trpcClient(t).trainers.cancel.mutate({ slug: "zorblax-dpo" });
  });
});

describe("several trainers asking at once", () => {
  test("three jobs, six trainers leasing together: each job goes to exactly one of them", async () => {
    const slugs = ["many-1", "many-2", "many-3"];
    for (const slug of slugs) await createTrainerModel(slug);
    const leased = await Promise.all([1, 2, 3, 4, 5, 6].map((i) => lease(`box-${i}`)));
    const taken = leased.filter((j): j is Job => j !== null);
    expect(taken.map((j) => j.slug).sort()).toEqual(slugs);
    expect(new Set(taken.map((j) => j.leaseId)).size).toBe(3);
    // Each job's lease is its trainer's alone: the others' heartbeats for it are refused.
    for (const job of taken) {
      expect((await call("POST", `/jobs/${job.id}/heartbeat`, { leaseId: job.leaseId, events: [] })).status).toBe(200);
      expect((await call("POST", `/jobs/${job.id}/heartbeat`, { leaseId: "lease_not-mine", events: [] })).status).toBe(409);
    }
    for (const slug of slugs) await trpcClient(t).trainers.cancel.mutate({ slug });
  });
});

describe("OpenAI's fine-tuning end date", () => {
  test("before it the catalogue warns; from it (by the server's clock) a new OpenAI fine-tune is a 400 naming the date and the open backends", async () => {
    const catalogue = await trpcClient(t).models.catalogue.query();
    const mini = catalogue.find((m) => m.id === "gpt-4o-mini-2024-07-18")!;
    expect(mini.trainingEndsOn).toBe("2027-01-06");
    expect(mini.warning).toContain("from 2027-01-06");
    expect(catalogue.find((m) => m.id === "Qwen/Qwen2.5-7B-Instruct")!.warning).toBeNull();

    offsetMs += Date.parse("2027-01-06T00:00:00Z") - (Date.now() + offsetMs);
    const refused = await trpcFailure(
      trpcClient(t).models.create.mutate({ datasetId, slug: "too-late", trainingConfig: { provider: "openai", baseModel: "gpt-4o-mini-2024-07-18" } }),
    );
    expect(refused.data?.code).toBe("VALIDATION");
    expect(refused.message).toContain("since 2027-01-06");
    expect(refused.message).toContain('provider "trainer"');
    // Hone's own trainer takes it.
    expect((await createTrainerModel("after-openai")).status).toBe("QUEUED");
  });
});
