// /report benchmark: sustained throughput and latency of client-reported calls, each answered
// only after its log is committed (group commit), at concurrency 32, on PGlite and Postgres.
//
//   bun bench/report.ts [--seconds 10] [--db pglite,postgres] [--connections 32]
// --connections takes a list (1,32): at 1, a report's latency is its commit's round trips.
import { parseArgs } from "node:util";
import { BENCH_KEY, benchDatabase, fmt, startHone, wrk } from "./lib";

const { values } = parseArgs({
  options: { seconds: { type: "string", default: "10" }, db: { type: "string", default: "pglite,postgres" }, connections: { type: "string", default: "32" } },
});
const concurrencies = values.connections!.split(",").map(Number);
const seconds = Number(values.seconds);
const dbs = values.db!.split(",") as ("pglite" | "postgres")[];
// A typical report from the openpipe SDKs: a short chat request and its completion (~1 KB).
const body = {
  requestedAt: 1_763_800_000_000,
  receivedAt: 1_763_800_000_850,
  reqPayload: {
    model: "gpt-4o-mini",
    messages: [
      { role: "system", content: "You are a support assistant for an online shop. Answer in one sentence." },
      { role: "user", content: "Where is my order #12345? It was supposed to arrive yesterday." },
    ],
    metadata: { prompt_id: "order-status" },
  },
  respPayload: {
    id: "chatcmpl-bench",
    object: "chat.completion",
    created: 1_763_800_000,
    model: "gpt-4o-mini-2024-07-18",
    choices: [{ index: 0, message: { role: "assistant", content: "Your order #12345 is out for delivery and should arrive today." }, finish_reason: "stop" }],
    usage: { prompt_tokens: 48, completion_tokens: 16, total_tokens: 64 },
  },
  statusCode: 200,
  tags: { $sdk: "python", "$sdk.version": "5.0.0" },
};

const rows: string[] = [];
for (const kind of dbs) {
  const db = await benchDatabase(kind);
  try {
    const hone = await startHone(db.env);
    const url = `${hone.url}/api/v1/report`;
    await wrk(url, body, { Authorization: `Bearer ${BENCH_KEY}` }, { connections: 8, seconds: 2 });
    for (const connections of concurrencies) {
      const r = await wrk(url, body, { Authorization: `Bearer ${BENCH_KEY}` }, { connections, seconds, threads: Math.min(2, connections) });
      rows.push(`| ${kind} | ${connections} | **${fmt(r.rps, 0)}** | ${fmt(r.p50)} | ${fmt(r.p90)} | **${fmt(r.p99)}** | ${r.errors} | ${r.requests} |`);
      console.log(rows.at(-1));
    }
    await hone.stop();
  } finally {
    await db.cleanup();
  }
}
console.log(`
POST /report, each answered after its log is committed (${seconds}s, wrk):

| database | concurrency | reports/s | p50 ms | p90 ms | p99 ms | errors | reports stored |
|---|---|---|---|---|---|---|---|
${rows.join("\n")}`);
process.exit(0);
