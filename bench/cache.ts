// Cache-hit latency: the same chat completion answered from Hone's cache, at concurrency 1 and 8.
// Server-side times come from Hone's own request log lines (durationMs); wrk gives the client view.
//
//   bun bench/cache.ts [--seconds 8] [--db pglite,postgres]
import { parseArgs } from "node:util";
import { BENCH_KEY, benchDatabase, fmt, setBenchProviderKey, startFakeUpstream, startHone, wrk } from "./lib";

const { values } = parseArgs({ options: { seconds: { type: "string", default: "8" }, db: { type: "string", default: "pglite,postgres" } } });
const seconds = Number(values.seconds);
const dbs = values.db!.split(",") as ("pglite" | "postgres")[];
const body = { model: "gpt-4o-mini", messages: [{ role: "user", content: "What is the capital of France?" }], temperature: 0 };
const headers = { Authorization: `Bearer ${BENCH_KEY}`, "op-cache": "readWrite" };

const pct = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
const rows: string[] = [];
for (const kind of dbs) {
  const db = await benchDatabase(kind);
  const upstream = await startFakeUpstream(20);
  let durations: number[] = [];
  let recording = false;
  try {
    const hone = await startHone(
      { ...db.env, OPENAI_BASE_URL: `${upstream.url}/v1`, HONE_LOG_LEVEL: "info" },
      {
        onLine: (line) => {
          if (!recording || !line.includes('"msg":"request"')) return;
          const d = JSON.parse(line).durationMs;
          if (typeof d === "number") durations.push(d);
        },
      },
    );
    await setBenchProviderKey(hone.url);
    const url = `${hone.url}/api/v1/chat/completions`;
    const first = await fetch(url, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify(body) });
    if (first.headers.get("x-hone-cache") !== "MISS") throw new Error("expected a first miss");
    const second = await fetch(url, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify(body) });
    if (second.headers.get("x-hone-cache") !== "HIT") throw new Error("expected a hit");
    await wrk(url, body, headers, { connections: 4, seconds: 2 });
    for (const c of [1, 8]) {
      durations = [];
      recording = true;
      const r = await wrk(url, body, headers, { connections: c, seconds });
      await Bun.sleep(200);
      recording = false;
      durations.sort((a, b) => a - b);
      rows.push(
        `| ${kind} | ${c} | ${fmt(r.rps, 0)} | ${fmt(pct(durations, 50))} | **${fmt(pct(durations, 99))}** | ${fmt(r.p50)} | ${fmt(r.p99)} | ${r.errors} |`,
      );
      console.log(rows.at(-1));
    }
    await hone.stop();
  } finally {
    upstream.stop();
    await db.cleanup();
  }
}
console.log(`
Cache hits (upstream never called; every hit logged), ${seconds}s per run:

| database | concurrency | hits/s | server p50 ms | server p99 ms | client p50 ms | client p99 ms | errors |
|---|---|---|---|---|---|---|---|
${rows.join("\n")}`);
process.exit(0);
