// Hone's own trainer on this machine's CPU, on the tiny random-weight Llama of the tests (2 layers,
// hidden size 64): tokens per second of LoRA SFT and of serving (`hone-trainer serve`, direct and
// through the gateway), and the loop's waits: from "model created" to the first step a trainer
// reports, and from DEPLOYED to the first answer of hone:<slug> through the gateway (the vLLM
// server already up: `hone-trainer sync --once`, then the call).
//
//   bun bench/trainer.ts [--db pglite|postgres] [--epochs N] [--calls N]
//
// Needs the trainer's venv (`bun run trainer:setup`). The figures are this CPU's, on a model too
// small to mean anything about a GPU's: they show where the loop's own time goes, not training speed.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BENCH_AUTH, benchDatabase, fmt, ROOT, startHone } from "./lib";

const argOf = (name: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const dbKind = (argOf("--db") ?? "pglite") as "pglite" | "postgres";
const EPOCHS = Number(argOf("--epochs") ?? 30);
const CALLS = Number(argOf("--calls") ?? 10);
const BIN = join(ROOT, "trainer/.venv/bin/hone-trainer");
const PY_ENV = { ...process.env, HF_HUB_OFFLINE: "1", OMP_NUM_THREADS: "1", TOKENIZERS_PARALLELISM: "false" } as Record<string, string>;
const work = mkdtempSync(join(tmpdir(), "hone-bench-trainer-"));
const spawned: ReturnType<typeof Bun.spawn>[] = [];
const run = (args: string[], env: Record<string, string> = {}) => {
  const p = Bun.spawn([BIN, ...args], { env: { ...PY_ENV, ...env }, stdout: "pipe", stderr: "pipe" });
  spawned.push(p);
  return p;
};

const db = await benchDatabase(dbKind);
const hone = await startHone({ ...db.env, HONE_ALLOW_PRIVATE_UPSTREAMS: "true" });
const json = { ...BENCH_AUTH, "content-type": "application/json" };
async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${hone.url}${path}`, { method, headers: json, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}
const gql = async <T>(query: string, variables: Record<string, unknown> = {}) => {
  const r = await api<{ data: T; errors?: { message: string }[] }>("POST", "/graphql", { query, variables });
  if (r.errors?.length) throw new Error(r.errors[0]!.message);
  return r.data;
};

try {
  if ((await run(["tiny", "--dir", join(work, "tiny")]).exited) !== 0) throw new Error("hone-trainer tiny failed");
  const { id: datasetId } = await api<{ id: string }>("POST", "/api/v1/datasets", { name: "bench" });
  const ask = (q: string, split = "TRAIN") => ({
    messages: [
      { role: "user", content: q },
      { role: "assistant", content: "The capital of Zorblax is Quimby." },
    ],
    split,
  });
  await api("POST", `/api/v1/datasets/${datasetId}/entries`, {
    entries: [ask("What is the capital of Zorblax?"), ask("Tell me Zorblax's capital."), ask("Zorblax capital?"), ask("Which city?", "TEST")],
  });
  const token = (await gql<{ createApiKey: { apiKey: string } }>(`mutation { createApiKey(input: {name: "bench trainer", scopes: ["trainer"]}) { apiKey } }`))
    .createApiKey.apiKey;

  // ------------------------------------------------------------------ created -> first step -> DEPLOYED
  const created = performance.now();
  await api("POST", "/api/v1/models", {
    datasetId,
    slug: "bench-tiny",
    trainingConfig: { provider: "trainer", baseModel: join(work, "tiny"), epochs: EPOCHS, learningRate: 0.01, batchSize: 3, checkpointEvery: 1000 },
  });
  const worker = run(["work", "--url", hone.url, "--once", "--name", "bench", "--work-dir", join(work, "jobs")], { HONE_TRAINER_TOKEN: token });
  type Ev = { step: number; tokensPerSecond: number | null };
  let firstStepMs = Number.NaN;
  const events = () => gql<{ modelTrainingEvents: Ev[] }>(`{ modelTrainingEvents(slug: "bench-tiny") { step tokensPerSecond } }`);
  while (worker.exitCode === null) {
    if (Number.isNaN(firstStepMs) && (await events()).modelTrainingEvents.length) firstStepMs = performance.now() - created;
    await Bun.sleep(20);
  }
  if ((await worker.exited) !== 0) throw new Error(`hone-trainer work failed: ${await new Response(worker.stderr).text()}`);
  const deployedMs = performance.now() - created;
  const evs = (await events()).modelTrainingEvents;
  const speeds = evs
    .map((e) => e.tokensPerSecond)
    .filter((v): v is number => v !== null)
    .sort((a, b) => a - b);

  // ------------------------------------------------------------------ serving: the server, sync, the first answer
  const port = 20000 + Math.floor(Math.random() * 20000);
  const serveStarted = performance.now();
  run(["serve", "--base", join(work, "tiny"), "--served-model-name", "tiny", "--port", String(port)]);
  while (!(await fetch(`http://127.0.0.1:${port}/health`).catch(() => null))?.ok) await Bun.sleep(50);
  const serveStartMs = performance.now() - serveStarted;
  await gql(`mutation($i: CreateCustomProviderInput!) { createCustomProvider(input: $i) { id } }`, {
    i: { slug: "cpu-vllm", kind: "vllm", baseUrl: `http://127.0.0.1:${port}/v1`, baseModel: join(work, "tiny") },
  });
  const syncStarted = performance.now();
  const sync = run(["sync", "--url", hone.url, "--once", "--dir", join(work, "adapters"), "--vllm", `http://127.0.0.1:${port}`], { HONE_TRAINER_TOKEN: token });
  if ((await sync.exited) !== 0) throw new Error(`hone-trainer sync failed: ${await new Response(sync.stderr).text()}`);
  const syncMs = performance.now() - syncStarted;
  const body = (model: string) => ({
    model,
    temperature: 1,
    seed: 1,
    max_tokens: 64,
    messages: [{ role: "user", content: "What is the capital of Zorblax?" }],
  });
  const first = await fetch(`${hone.url}/api/v1/chat/completions`, { method: "POST", headers: json, body: JSON.stringify(body("hone:bench-tiny")) });
  if (!first.ok) throw new Error(`first answer: ${first.status} ${await first.text()}`);
  await first.text();
  const firstAnswerMs = performance.now() - syncStarted;

  // The four ways of calling, interleaved call by call (so a busy moment of the machine falls on
  // all of them alike): tokens per second over all calls, and the median milliseconds of a call.
  const listed = (await (await fetch(`http://127.0.0.1:${port}/v1/models`)).json()) as { data: { id: string; parent: string | null }[] };
  const loraName = listed.data.find((m) => m.parent)!.id;
  const servingNow = (await gql<{ modelServing: { servers: { loaded: boolean }[] } }>(`{ modelServing(slug: "bench-tiny") { servers { loaded } } }`))
    .modelServing;
  const plain = { "content-type": "application/json" };
  const ways = {
    direct: { url: `http://127.0.0.1:${port}/v1/chat/completions`, model: "tiny", headers: plain },
    directAdapter: { url: `http://127.0.0.1:${port}/v1/chat/completions`, model: loraName, headers: plain },
    viaHone: { url: `${hone.url}/api/v1/chat/completions`, model: "hone:bench-tiny", headers: json },
    baseViaHone: { url: `${hone.url}/api/v1/chat/completions`, model: "hone:cpu-vllm/tiny", headers: json },
  };
  const took: Record<keyof typeof ways, { ms: number[]; tokens: number }> = {
    direct: { ms: [], tokens: 0 },
    directAdapter: { ms: [], tokens: 0 },
    viaHone: { ms: [], tokens: 0 },
    baseViaHone: { ms: [], tokens: 0 },
  };
  for (let i = 0; i < CALLS; i++) {
    for (const [name, w] of Object.entries(ways) as [keyof typeof ways, (typeof ways)[keyof typeof ways]][]) {
      const t0 = performance.now();
      const r = await fetch(w.url, { method: "POST", headers: w.headers, body: JSON.stringify(body(w.model)) });
      const j = (await r.json()) as { usage?: { completion_tokens: number } };
      if (!r.ok) throw new Error(`${w.url}: ${r.status} ${JSON.stringify(j)}`);
      took[name].ms.push(performance.now() - t0);
      took[name].tokens += j.usage?.completion_tokens ?? 0;
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const figure = (name: keyof typeof ways) => {
    const t = took[name];
    return `${fmt(t.tokens / (t.ms.reduce((a, b) => a + b, 0) / 1000), 0)} tokens/s, median ${fmt(median(t.ms), 1)} ms a call`;
  };
  const share = (hone: keyof typeof ways, direct: keyof typeof ways) =>
    `${fmt(median(took[hone].ms.map((ms, i) => ms - took[direct].ms[i]!)), 1)} ms a call (median of the paired differences)`;

  console.log(`hone-trainer on this CPU (${dbKind}), tiny Llama (2 layers, hidden 64), ${EPOCHS} epochs of 3 entries, LoRA r=16 on q/k/v/o`);
  console.log(`  SFT: ${evs.length} steps; tokens/s per step median ${fmt(speeds[Math.floor(speeds.length / 2)] ?? Number.NaN, 0)}`);
  console.log(`  model created -> first step reported: ${fmt(firstStepMs / 1000)} s (the worker's start: Python, torch, the model)`);
  console.log(`  model created -> DEPLOYED (adapter uploaded): ${fmt(deployedMs / 1000)} s`);
  console.log(`  hone-trainer serve start: ${fmt(serveStartMs / 1000)} s`);
  console.log(`  DEPLOYED -> first answer through the gateway (sync --once ${fmt(syncMs / 1000)} s, then the call): ${fmt(firstAnswerMs / 1000)} s`);
  console.log(`  served: ${servingNow.servers.filter((s) => s.loaded).length} vLLM server(s) report it loaded`);
  console.log(`  serving, ${CALLS} rounds of 4 calls of up to 64 tokens (temperature 1, seed 1), interleaved:`);
  console.log(`    direct to hone-trainer serve, the base:    ${figure("direct")}`);
  console.log(`    direct to hone-trainer serve, the adapter: ${figure("directAdapter")}`);
  console.log(`    hone:<slug> through Hone (the adapter):    ${figure("viaHone")}`);
  console.log(`    hone:cpu-vllm/tiny through Hone (the base): ${figure("baseViaHone")}`);
  console.log(`    Hone's share, adapter: ${share("viaHone", "directAdapter")}; base: ${share("baseViaHone", "direct")}`);
} finally {
  for (const p of spawned) p.kill();
  await Promise.all(spawned.map((p) => p.exited));
  await hone.stop();
  await db.cleanup();
  rmSync(work, { recursive: true, force: true });
}
