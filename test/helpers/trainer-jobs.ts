import { expect } from "bun:test";
import { createHash } from "node:crypto";
import type { TestApp } from "./app";
import { addEntries, createDataset, qa } from "./factories";
import { trpcClient } from "./trpc";

// A trainer's side of the trainer API, in process: a model of Hone's trainers taken to DEPLOYED
// with a small adapter's two files, as `hone-trainer work` would (lease, upload, done).

export const sha256 = (b: Uint8Array | string) => createHash("sha256").update(b).digest("hex");
export const ADAPTER_CONFIG = new TextEncoder().encode('{"peft_type": "LORA", "r": 16}');
export const ADAPTER_WEIGHTS = new TextEncoder().encode("adapter weights");

/** One call of the trainer API with a trainer token: its status and JSON (or text) body. */
export async function trainerCall<T>(t: TestApp, key: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await t.request(method, `/api/v1/trainer${path}`, { body, key });
  const text = await res.text();
  return { status: res.status, body: (res.headers.get("content-type")?.startsWith("application/json") ? JSON.parse(text) : text) as T };
}

/** Uploads one result file of a leased job; its manifest entry. */
export async function putResultFile(t: TestApp, key: string, job: { id: string; leaseId: string }, path: string, bytes: Uint8Array) {
  const res = await t.app.handle(
    new Request(`http://localhost/api/v1/trainer/jobs/${job.id}/files/result/${path}?leaseId=${job.leaseId}`, {
      method: "PUT",
      headers: { authorization: `Bearer ${key}`, "x-hone-sha256": sha256(bytes) },
      body: bytes.slice().buffer,
    }),
  );
  expect(res.status).toBe(201);
  return { path, sha256: sha256(bytes), bytes: bytes.byteLength };
}

/** A trainer model of `baseModel` taken through the trainer API to DEPLOYED; returns its id (the adapter's LoRA name). */
export async function deployedTrainerModel(t: TestApp, key: string, slug: string, baseModel: string): Promise<string> {
  const datasetId = await createDataset(t, { name: `${slug}-train` });
  await addEntries(t, datasetId, [qa("capital?", "Quimby")]);
  await trpcClient(t).models.create.mutate({ datasetId, slug, trainingConfig: { provider: "trainer", baseModel } });
  const leased = await trainerCall<{ job: { id: string; leaseId: string } }>(t, key, "POST", "/lease", {
    trainer: { name: "gpu", host: "gpu", gpus: [], versions: {} },
  });
  expect(leased.status).toBe(200);
  const job = leased.body.job;
  const files = [
    await putResultFile(t, key, job, "adapter/adapter_config.json", ADAPTER_CONFIG),
    await putResultFile(t, key, job, "adapter/adapter_model.safetensors", ADAPTER_WEIGHTS),
  ];
  const done = await trainerCall(t, key, "POST", `/jobs/${job.id}/done`, {
    leaseId: job.leaseId,
    files,
    dropped: { train: 0, test: 0 },
    metrics: { evalLoss: null, trainLoss: null },
  });
  expect(done.status).toBe(200);
  return job.id;
}
