import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Subprocess } from "bun";
import { createTestApp, serve, type TestApp } from "../helpers/app";
import { createDataset, qa } from "../helpers/factories";
import { trpcClient } from "../helpers/trpc";
import { waitFor } from "../helpers/wait-for";

// What happens to a fine-tune on Hone's own trainer when things go wrong mid-job, on the real path:
// a Hone test server and real `hone-trainer work` processes (trainer/.venv, `bun run
// trainer:setup`) training a tiny random-weight Llama on CPU.
// - A trainer killed outright (SIGKILL: no goodbye) keeps its lease until HONE_TRAINER_LEASE_SECONDS
//   pass without a heartbeat; then another trainer gets the job, downloads the last checkpoint the
//   first one uploaded, and goes on from that step (not from step 0) to a DEPLOYED model.
// - A fine-tune cancelled in Hone while it trains is stopped by its trainer within a step of the
//   heartbeat that tells it, and ends ERROR as cancelled, far short of its last step.

const BIN = resolve(import.meta.dir, "../../trainer/.venv/bin/hone-trainer");
// The shortest lease Hone allows (src/core/env-routing.ts): a heartbeat every 5/3 s.
const LEASE_SECONDS = 5;

let t: TestApp;
let server: { url: string; stop(): Promise<void> };
let work: string;
let token: string;
const spawned = new Set<Subprocess>();

type Worker = {
  proc: Subprocess<"ignore", "ignore", "pipe">;
  /** Everything it logged so far (its log goes to stderr). */
  log(): string;
  /** Waits for a line of its log matching `re` and returns the match. */
  logged(re: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
};

function run(args: string[], env: Record<string, string> = {}): Worker {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: install the trainer with \`bun run trainer:setup\` (a venv with trainer/requirements.txt)`);
  const proc = Bun.spawn([BIN, ...args], {
    env: { ...process.env, HF_HUB_OFFLINE: "1", OMP_NUM_THREADS: "1", ...env },
    stdin: "ignore",
    stdout: "ignore",
    stderr: "pipe",
  });
  spawned.add(proc);
  void proc.exited.then(() => spawned.delete(proc));
  let out = "";
  // Drained as it comes, so the worker never blocks on a full pipe and its log can be watched.
  void (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of proc.stderr) out += decoder.decode(chunk, { stream: true });
  })();
  return {
    proc,
    log: () => out,
    logged: (re, timeoutMs = 30_000) => waitFor(() => re.exec(out), { timeoutMs, intervalMs: 10, message: () => `${re} in the worker's log:\n${out}` }),
  };
}

/** `hone-trainer work --once` as the trainer named `name`, logging every step. */
const worker = (name: string) =>
  run(["work", "--url", server.url, "--once", "--name", name, "--work-dir", join(work, name), "--log-every", "1"], { HONE_TRAINER_TOKEN: token });

/** A dataset of `n` TRAIN entries (no TEST entries: no eval, every step is training): n steps an epoch at batch size 1. */
const dataset = (name: string, n: number) =>
  createDataset(t, { name, entries: Array.from({ length: n }, (_, i) => qa(`What is the capital of Zorblax, take ${i}?`, "Quimby.")) });

const config = (epochs: number, checkpointEvery: number) => ({
  provider: "trainer" as const,
  baseModel: join(work, "tiny"),
  epochs,
  learningRate: 0.001,
  lora: { r: 4, alpha: 8, dropout: 0, targetModules: ["q_proj", "v_proj"] },
  batchSize: 1,
  checkpointEvery,
  maxSeqLength: 128,
});

beforeAll(async () => {
  t = await createTestApp({ env: { HONE_TRAINER_LEASE_SECONDS: String(LEASE_SECONDS) } });
  server = serve(t.app);
  work = mkdtempSync(join(tmpdir(), "hone-trainer-resume-"));
  const tiny = run(["tiny", "--dir", join(work, "tiny")]);
  expect(await tiny.proc.exited).toBe(0);
  token = (await trpcClient(t).apiKeys.create.mutate({ name: "cpu trainers", scopes: ["trainer"] })).apiKey;
});
afterAll(async () => {
  for (const p of spawned) p.kill("SIGKILL");
  await Promise.all([...spawned].map((p) => p.exited));
  await server?.stop();
  await t?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("a trainer that dies mid-job", () => {
  test("its lease lapses, and another trainer resumes from the last uploaded checkpoint to DEPLOYED", async () => {
    // 20 entries x 60 epochs at batch size 1: 1,200 steps (a few ms each on CPU), a checkpoint every 100.
    const datasetId = await dataset("resume", 20);
    const total = 1200;
    const model = await trpcClient(t).models.create.mutate({ datasetId, slug: "resumed", trainingConfig: config(60, 100) });
    const checkpointDir = join(t.deps.config.trainers.artifactsDir, t.project.projectId, model.id, "checkpoint");

    // The first trainer trains until Hone holds a checkpoint of it (the worker logs the upload once
    // Hone accepted POST /checkpoint) and some of its progress (sent with its heartbeats), then dies
    // without a word.
    const first = worker("first");
    // Deadlines for a CPU shared with another suite (CI runs two side by side): training on CPU is
    // what is slow here, not Hone.
    const uploaded = Number((await first.logged(/uploaded checkpoint-(\d+)/, 90_000))[1]);
    await waitFor(async () => (await trpcClient(t).trainers.events.query({ slug: "resumed" })).some((e) => e.step > 0), {
      timeoutMs: 10_000,
      message: "Hone to hear of a step",
    });
    first.proc.kill("SIGKILL");
    await first.proc.exited;
    expect(first.proc.signalCode).toBe("SIGKILL");

    // While its lease holds, the job is no one else's: a trainer asking now is told no job waits.
    const ask = await fetch(`${server.url}/api/v1/trainer/lease`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ trainer: { name: "early", host: "test", gpus: [], versions: { hone_trainer: "test" } } }),
    });
    expect(ask.status).toBe(200);
    expect(((await ask.json()) as { job: unknown }).job).toBeNull();

    // The model's updatedAt is its last heartbeat (or checkpoint): the lease lapses LEASE_SECONDS after
    // it. Read again after waiting, in case a request of the dead trainer was still landing.
    for (;;) {
      const held = await trpcClient(t).models.get.query({ slug: "resumed" });
      expect(held.status).toBe("TRAINING");
      const wait = Date.parse(held.updatedAt) + LEASE_SECONDS * 1000 + 100 - Date.now();
      if (wait <= 0) break;
      await Bun.sleep(wait);
    }

    // The next trainer to ask gets the job and takes it from the checkpoint to the end.
    const second = worker("second");
    const code = await second.proc.exited;
    expect(code, second.log()).toBe(0);

    const done = await trpcClient(t).models.get.query({ slug: "resumed" });
    expect(done.status).toBe("DEPLOYED");
    expect(done.events.map((e) => e.status)).toEqual(["QUEUED", "TRAINING", "TRAINING", "DEPLOYED"]);
    const relet = done.events[2]!;
    const resumed = /^the lease of first lapsed: leased again by second, resuming from step (\d+)$/.exec(relet.message ?? "");
    expect(resumed, relet.message ?? "").not.toBeNull();
    const step = Number(resumed![1]);
    // The checkpoint seen uploaded, or a later one the first trainer got in before it died.
    expect(step).toBeGreaterThanOrEqual(uploaded);
    expect(step % 100).toBe(0);
    expect(step).toBeLessThan(total);
    expect(done.events[3]!.message).toStartWith("trained by second;");
    expect(second.log()).toContain(`downloaded checkpoint of step ${step}`);

    // The second trainer's first step is the one after the checkpoint, not step 1, and it ran to the last.
    const steps = [...second.log().matchAll(/step (\d+)\/(\d+) loss/g)].map((m) => Number(m[1]));
    expect(steps[0]).toBe(step + 1);
    expect(steps.at(-1)).toBe(total);

    // Hone's record by step says the same: every step up to the checkpoint was reported by the first
    // trainer (it sends its progress before it records a checkpoint, so a resumed curve has no hole)
    // and none of them again; every step after it, to the last, by the second. The first trainer's
    // steps past the checkpoint were trained again.
    const events = await trpcClient(t).trainers.events.query({ slug: "resumed" });
    const reletAt = Date.parse(relet.at);
    const before = events.filter((e) => e.step > 0 && e.step <= step);
    expect(before.map((e) => e.step)).toEqual(Array.from({ length: step }, (_, i) => i + 1));
    // (The second trainer's start is reported as the checkpoint's step: that row is dated again.)
    expect(before.filter((e) => e.step < step).every((e) => Date.parse(e.at) < reletAt)).toBe(true);
    const after = events.filter((e) => e.step > step);
    expect(after.map((e) => e.step)).toEqual(Array.from({ length: total - step }, (_, i) => step + 1 + i));
    expect(after.every((e) => Date.parse(e.at) >= reletAt && e.totalSteps === total)).toBe(true);

    // Its weights are there to download, and the checkpoints, now of no use, are gone.
    const weights = await t.request("GET", "/api/v1/models/resumed/weights");
    expect(weights.status).toBe(200);
    await weights.arrayBuffer();
    expect(existsSync(checkpointDir)).toBe(false);
  }, 240_000);
});

describe("a fine-tune cancelled while it trains", () => {
  test("its trainer stops within a step of its next heartbeat, and the model ends ERROR as cancelled", async () => {
    // 40 entries x 100 epochs: 4,000 steps, far more than it runs before the cancel reaches it.
    const datasetId = await dataset("cancel", 40);
    const total = 4000;
    const model = await trpcClient(t).models.create.mutate({ datasetId, slug: "cancelled", trainingConfig: config(100, 1000) });
    const w = worker("third");
    // Hone has heard of a step: the trainer is training.
    await waitFor(async () => (await trpcClient(t).trainers.events.query({ slug: "cancelled" })).some((e) => e.step > 0), {
      timeoutMs: 90_000,
      intervalMs: 50,
      message: () => `Hone to hear of a step:\n${w.log()}`,
    });

    // Cancelling a training model only asks: it stays TRAINING until its trainer hears of it.
    const asked = await trpcClient(t).trainers.cancel.mutate({ slug: "cancelled" });
    expect(asked.status).toBe("TRAINING");
    const cancelledAt = Date.now();

    // The worker exits (code 3: cancelled) within a heartbeat or so, having stopped within one step
    // of the step it was at when the heartbeat's answer said cancel.
    const code = await w.proc.exited;
    // A heartbeat goes every LEASE_SECONDS / 3; the rest is the step, the /fail call and the exit.
    expect(Date.now() - cancelledAt).toBeLessThan(10_000);
    expect(code, w.log()).toBe(3);
    const at = Number(/Hone asked to cancel \(at step (\d+)\)/.exec(w.log())?.[1]);
    const stopped = Number(/cancelled at step (\d+)/.exec(w.log())?.[1]);
    expect(stopped - at, w.log()).toBeLessThanOrEqual(1);
    expect(stopped).toBeGreaterThanOrEqual(at);

    const ended = await trpcClient(t).models.get.query({ slug: "cancelled" });
    expect(ended.status).toBe("ERROR");
    expect(ended.errorMessage).toBe("Cancelled: the trainer stopped when asked");
    expect(ended.events.map((e) => e.status)).toEqual(["QUEUED", "TRAINING", "ERROR"]);
    // Hone's last step is the one the trainer stopped at, well before the end.
    const events = await trpcClient(t).trainers.events.query({ slug: "cancelled" });
    expect(events.at(-1)!.step).toBe(stopped);
    expect(events.at(-1)!.totalSteps).toBe(total);
    expect(stopped).toBeLessThan(total / 2);
    // Nothing of it is kept: no checkpoint to resume, no weights.
    expect(existsSync(join(t.deps.config.trainers.artifactsDir, t.project.projectId, model.id))).toBe(false);
    const weights = await t.request("GET", "/api/v1/models/cancelled/weights");
    expect(weights.status).toBe(409);
    expect(((await weights.json()) as { message: string }).message).toBe("Model cancelled has no weights yet (status ERROR)");
  }, 240_000);
});
