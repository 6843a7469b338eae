// Gateway benchmark: the latency Hone adds over calling the same upstream directly, and the
// throughput of /chat/completions with logging on, on PGlite and on Postgres.
//
//   bun bench/gateway.ts [--seconds 8] [--db pglite,postgres]
//
// Added latency: a fake upstream (own process) answers after a fixed 20 ms. In one run, wrk
// (closed loop) calls it directly, through a bare Bun proxy (bench/bun-proxy.ts: the floor any
// Bun gateway pays on this machine) and through Hone, at concurrency 1 and 32; every Hone call
// is logged. Throughput: an instant upstream, concurrency 64.
import { parseArgs } from "node:util";
import { BENCH_KEY, benchDatabase, fmt, startBunProxy, startFakeUpstream, startHone, wrk, type WrkResult } from "./lib";

const { values } = parseArgs({ options: { seconds: { type: "string", default: "8" }, db: { type: "string", default: "pglite,postgres" } } });
const seconds = Number(values.seconds);
const dbs = values.db!.split(",") as ("pglite" | "postgres")[];
const body = { model: "gpt-4o-mini", messages: [{ role: "system", content: "Answer briefly." }, { role: "user", content: "What is the capital of France?" }] };
const auth = { Authorization: `Bearer ${BENCH_KEY}` };

async function setKey(url: string) {
  const res = await fetch(`${url}/graphql`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({ query: `mutation { setProviderKey(input: {provider: "openai", apiKey: "sk-bench-upstream"}) { last4 } }` }),
  });
  if (!res.ok) throw new Error(`setProviderKey failed: ${await res.text()}`);
}

const lat = (r: WrkResult) => `${fmt(r.p50)} / ${fmt(r.p99)}`;
const plus = (a: number, b: number) => `${a - b >= 0 ? "+" : ""}${fmt(a - b)}`;

console.log(`# Hone gateway benchmark: ${seconds}s per run, wrk on loopback, ${navigator.hardwareConcurrency} cores shared by wrk, upstream, Hone and the database\n`);
const latencyRows: string[] = [];
const throughputRows: string[] = [];
for (const kind of dbs) {
  const db = await benchDatabase(kind);
  const slow = await startFakeUpstream(20);
  const fast = await startFakeUpstream(0);
  const floor = await startBunProxy(`${slow.url}/v1/chat/completions`);
  try {
    let hone = await startHone({ ...db.env, OPENAI_BASE_URL: `${slow.url}/v1` });
    await setKey(hone.url);
    await wrk(`${hone.url}/api/v1/chat/completions`, body, auth, { connections: 8, seconds: 2 });
    for (const c of [1, 32]) {
      const o = { connections: c, seconds };
      const direct = await wrk(`${slow.url}/v1/chat/completions`, body, {}, o);
      const proxy = await wrk(floor.url, body, {}, o);
      const via = await wrk(`${hone.url}/api/v1/chat/completions`, body, auth, o);
      latencyRows.push(
        `| ${kind} | ${c} | ${lat(direct)} | ${lat(proxy)} | ${lat(via)} | **${plus(via.p50, direct.p50)} / ${plus(via.p99, direct.p99)}** | ${plus(via.p50, proxy.p50)} / ${plus(via.p99, proxy.p99)} | ${fmt(via.rps, 0)} | ${via.errors} |`,
      );
      console.log(latencyRows.at(-1));
    }
    await hone.stop();

    hone = await startHone({ ...db.env, OPENAI_BASE_URL: `${fast.url}/v1` });
    await wrk(`${hone.url}/api/v1/chat/completions`, body, auth, { connections: 8, seconds: 2 });
    const direct = await wrk(`${fast.url}/v1/chat/completions`, body, {}, { connections: 64, seconds });
    const via = await wrk(`${hone.url}/api/v1/chat/completions`, body, auth, { connections: 64, seconds, threads: 2 });
    throughputRows.push(`| ${kind} | ${fmt(direct.rps, 0)} | **${fmt(via.rps, 0)}** | ${lat(via)} | ${via.errors} |`);
    console.log(throughputRows.at(-1));
    await hone.stop();
  } finally {
    floor.stop();
    slow.stop();
    fast.stop();
    await db.cleanup();
  }
}
console.log(`
Added latency (ms, p50 / p99), upstream answering after 20 ms, every Hone call logged:

| database | concurrency | direct | bare Bun proxy | Hone | Hone - direct | Hone - bare proxy | Hone req/s | errors |
|---|---|---|---|---|---|---|---|---|
${latencyRows.join("\n")}

Throughput (req/s), instant upstream, concurrency 64, every call logged:

| database | upstream direct | through Hone | Hone p50 / p99 (ms) | errors |
|---|---|---|---|---|
${throughputRows.join("\n")}`);
process.exit(0);
