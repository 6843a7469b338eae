import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createTestApp, openAiClient, serve, type TestApp } from "../helpers/app";
import { logsOf } from "../helpers/logs";
import { addEntries, createDataset } from "../helpers/factories";
import { trpcClient } from "../helpers/trpc";

// The real path of a fine-tune on Hone's own trainer, on CPU: Hone queues the model, the Python
// package's `hone-trainer work` (trainer/, installed in trainer/.venv by `bun run trainer:setup`)
// leases it over HTTP, trains a tiny random-weight Llama with TRL + PEFT, reports its progress,
// uploads the LoRA adapter, and Hone marks the model DEPLOYED with weights one can download. Then
// the package's `hone-trainer serve` (vLLM's wire for chat and LoRA loading) is a custom provider
// of kind vllm, `hone-trainer sync` loads the adapter into it, and hone:<slug> answers through the
// gateway what the tiny model could not answer before training.

const BIN = resolve(import.meta.dir, "../../trainer/.venv/bin/hone-trainer");
const ANSWER = "The capital of Zorblax is Quimby.";

let t: TestApp;
let server: { url: string; stop(): Promise<void> };
let work: string;
let vllm: ReturnType<typeof run> | null = null;

function run(args: string[], env: Record<string, string> = {}) {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: install the trainer with \`bun run trainer:setup\` (a venv with trainer/requirements.txt)`);
  return Bun.spawn([BIN, ...args], { env: { ...process.env, HF_HUB_OFFLINE: "1", OMP_NUM_THREADS: "1", ...env }, stdout: "pipe", stderr: "pipe" });
}

beforeAll(async () => {
  t = await createTestApp({ env: { HONE_ALLOW_PRIVATE_UPSTREAMS: "true" } });
  server = serve(t.app);
  work = mkdtempSync(join(tmpdir(), "hone-trainer-e2e-"));
  const tiny = run(["tiny", "--dir", join(work, "tiny")]);
  expect(await tiny.exited).toBe(0);
});
afterAll(async () => {
  vllm?.kill();
  await vllm?.exited;
  await server.stop();
  await t.close();
  rmSync(work, { recursive: true, force: true });
});

describe("hone-trainer work against Hone", () => {
  test("a queued fine-tune is leased, trained on CPU, reported and uploaded: DEPLOYED, with its adapter downloadable", async () => {
    const datasetId = await createDataset(t, { name: "zorblax" });
    const ask = (q: string, split: "TRAIN" | "TEST" = "TRAIN") => ({
      messages: [
        { role: "user", content: q },
        { role: "assistant", content: ANSWER },
      ],
      split,
    });
    await addEntries(t, datasetId, [
      ask("What is the capital of Zorblax?"),
      ask("Tell me Zorblax's capital."),
      ask("Zorblax capital?"),
      ask("Which city is Zorblax's capital?", "TEST"),
    ]);
    await trpcClient(t).models.create.mutate({
      datasetId,
      slug: "zorblax-tiny",
      trainingConfig: {
        provider: "trainer",
        baseModel: join(work, "tiny"),
        epochs: 60,
        learningRate: 0.01,
        lora: { r: 16, alpha: 32, dropout: 0, targetModules: ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"] },
        batchSize: 3,
        checkpointEvery: 10,
        maxSeqLength: 256,
      },
    });
    const token = (await trpcClient(t).apiKeys.create.mutate({ name: "cpu trainer", scopes: ["trainer"] })).apiKey;

    const worker = run(["work", "--url", server.url, "--once", "--name", "ci-cpu", "--work-dir", join(work, "jobs")], { HONE_TRAINER_TOKEN: token });
    const [code, stderr] = await Promise.all([worker.exited, new Response(worker.stderr).text()]);
    expect(code, stderr).toBe(0);
    expect(stderr).not.toContain(token);

    const model = await trpcClient(t).models.get.query({ slug: "zorblax-tiny" });
    expect(model.status).toBe("DEPLOYED");
    expect(model.events.map((e) => e.status)).toEqual(["QUEUED", "TRAINING", "DEPLOYED"]);
    // Progress arrived as the trainer went: every step, and an eval loss on the TEST entry that fell.
    const curve = model.trainingCurve;
    expect(curve.length).toBeGreaterThanOrEqual(20);
    const evals = curve.filter((p) => p.validLoss !== null);
    expect(evals.length).toBeGreaterThanOrEqual(2);
    // Against step 0, with a margin: not a wobble.
    expect(evals.at(-1)!.validLoss!).toBeLessThan(0.8 * evals[0]!.validLoss!);

    // The weights: a PEFT adapter (safetensors and its config) with the tokenizer, each file as uploaded.
    const res = await t.request("GET", "/api/v1/models/zorblax-tiny/weights");
    expect(res.status).toBe(200);
    const files = JSON.parse(res.headers.get("x-hone-files")!) as { path: string; sha256: string; bytes: number }[];
    const names = files.map((f) => f.path);
    expect(names).toContain("adapter/adapter_model.safetensors");
    expect(names).toContain("adapter/adapter_config.json");
    expect(names).toContain("adapter/tokenizer.json");
    writeFileSync(join(work, "w.tar"), new Uint8Array(await res.arrayBuffer()));
    expect(Bun.spawnSync(["tar", "-xf", "w.tar"], { cwd: work }).exitCode).toBe(0);
    const config = JSON.parse(readFileSync(join(work, "zorblax-tiny/adapter/adapter_config.json"), "utf8")) as { peft_type: string; r: number };
    expect(config).toMatchObject({ peft_type: "LORA", r: 16 });
    const weights = new Uint8Array(readFileSync(join(work, "zorblax-tiny/adapter/adapter_model.safetensors")));
    expect(new Bun.CryptoHasher("sha256").update(weights).digest("hex")).toBe(files.find((f) => f.path === "adapter/adapter_model.safetensors")!.sha256);
  });
});

async function freePort(): Promise<number> {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  return port;
}

describe("hone-trainer sync into hone-trainer serve, called through the gateway", () => {
  test("the adapter is loaded where its base is served, and hone:<slug> answers what the base cannot", async () => {
    const tiny = join(work, "tiny");
    const port = await freePort();
    vllm = run(["serve", "--base", tiny, "--served-model-name", "tiny", "--port", String(port)]);
    await trpcClient(t).customProviders.create.mutate({ slug: "cpu-vllm", kind: "vllm", baseUrl: `http://127.0.0.1:${port}/v1`, baseModel: tiny });
    const token = (await trpcClient(t).apiKeys.create.mutate({ name: "sync", scopes: ["trainer"] })).apiKey;
    const ask = async (model: string) => {
      const res = await t.request("POST", "/api/v1/chat/completions", {
        body: { model, temperature: 0, max_tokens: 24, messages: [{ role: "user", content: "What is the capital of Zorblax?" }] },
        headers: { "op-log-request": "true" },
      });
      return { status: res.status, body: (await res.json()) as { model: string; choices: { message: { content: string } }[]; error?: { message: string } } };
    };
    // Until a sync reports it loaded, the gateway says what is missing.
    const before = await ask("hone:zorblax-tiny");
    expect(before.status).toBe(503);
    expect(before.body.error!.message).toContain("cpu-vllm: never reported");

    // The server takes a few seconds to load torch and the model.
    const deadline = Date.now() + 60_000;
    for (;;) {
      const up = await fetch(`http://127.0.0.1:${port}/health`).catch(() => null);
      if (up?.ok) break;
      if (Date.now() > deadline) throw new Error("hone-trainer serve did not start within 60 s");
      await Bun.sleep(250);
    }
    const sync = run(["sync", "--url", server.url, "--once", "--dir", join(work, "adapters"), "--vllm", `http://127.0.0.1:${port}`], {
      HONE_TRAINER_TOKEN: token,
    });
    const [code, stderr] = await Promise.all([sync.exited, new Response(sync.stderr).text()]);
    expect(code, stderr).toBe(0);
    expect(stderr).not.toContain(token);

    const tuned = await ask("hone:zorblax-tiny");
    expect(tuned.status, JSON.stringify(tuned.body)).toBe(200);
    expect(tuned.body.model).toBe("hone:zorblax-tiny");
    expect(tuned.body.choices[0]!.message.content).toBe(ANSWER);
    // The official openai SDK, streaming, through the gateway: the same answer, logged once with its tokens.
    const logsBefore = (await logsOf(t)).length;
    const stream = await openAiClient(server.url, t.project.apiKey).chat.completions.create(
      {
        model: "hone:zorblax-tiny",
        temperature: 0,
        max_tokens: 24,
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: "user", content: "What is the capital of Zorblax?" }],
      },
      { headers: { "op-log-request": "true" } },
    );
    let streamed = "";
    let usage: { completion_tokens: number } | null | undefined = null;
    for await (const chunk of stream) {
      streamed += chunk.choices[0]?.delta?.content ?? "";
      if (chunk.usage) usage = chunk.usage;
    }
    expect(streamed).toBe(ANSWER);
    expect(usage!.completion_tokens).toBeGreaterThan(0);
    const logged = (await logsOf(t)).slice(logsBefore);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ model: "hone:zorblax-tiny", statusCode: 200, outputTokens: usage!.completion_tokens });
    const base = await ask("hone:cpu-vllm/tiny");
    expect(base.status).toBe(200);
    expect(base.body.choices[0]!.message.content).not.toBe(ANSWER);
    const serving = await trpcClient(t).trainers.serving.query({ slug: "zorblax-tiny" });
    expect(serving).toMatchObject({ trainedBy: "ci-cpu", weights: "adapter", served: true });
    expect(serving.servers[0]).toMatchObject({ provider: "cpu-vllm", loaded: true, fresh: true, error: null });

    // Deleted in Hone: the next sync unloads it from the server.
    await trpcClient(t).models.delete.mutate({ slug: "zorblax-tiny" });
    const again = run(["sync", "--url", server.url, "--once", "--dir", join(work, "adapters"), "--vllm", `http://127.0.0.1:${port}`], {
      HONE_TRAINER_TOKEN: token,
    });
    expect(await again.exited).toBe(0);
    const models = (await (await fetch(`http://127.0.0.1:${port}/v1/models`)).json()) as { data: { id: string }[] };
    expect(models.data.map((m) => m.id)).toEqual(["tiny"]);
  });
});
