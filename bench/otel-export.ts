// What exporting Hone's own spans costs the gateway (docs/traces.md "Hone's own spans out").
//
//   bun bench/otel-export.ts [--seconds 8] [--rounds 3]
//
// Two Hone servers on one Postgres database, the same but for OTEL_EXPORTER_OTLP_ENDPOINT: one
// exports a span per gateway call (protobuf, to a collector in this process that answers 200 and
// counts what it gets), the other exports nothing. wrk calls each in turn, `rounds` times, at
// concurrency 1 and 32, against a fake upstream answering after 20 ms; each figure is the median
// of the rounds, with the serving thread's CPU per call.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { BENCH_AUTH, CHAT_BODY, benchDatabase, fmt, setBenchProviderKey, startFakeUpstream, startHone, wrk, type WrkResult } from "./lib";

const { values } = parseArgs({ options: { seconds: { type: "string", default: "8" }, rounds: { type: "string", default: "3" } } });
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);

let exports = 0;
let exportedBytes = 0;
const collector = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(req) {
    if (req.method !== "POST" || new URL(req.url).pathname !== "/v1/traces") return new Response("not found", { status: 404 });
    exportedBytes += (await req.arrayBuffer()).byteLength;
    exports++;
    return new Response(new Uint8Array(0), { headers: { "content-type": "application/x-protobuf" } });
  },
});

/** CPU time (µs) a process's main thread (the one serving requests) has used, from /proc (ticks of 10 ms). */
const mainThreadCpuUs = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(f[11]) + Number(f[12])) * 10_000;
};
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

const db = await benchDatabase("postgres");
const upstream = await startFakeUpstream(20);
const dirs = [mkdtempSync(join(tmpdir(), "hone-bench-off-")), mkdtempSync(join(tmpdir(), "hone-bench-on-"))];
const common = { ...db.env, OPENAI_BASE_URL: `${upstream.url}/v1` };
const off = await startHone({ ...common, HONE_DATA_DIR: dirs[0]! });
const on = await startHone({
  ...common,
  HONE_DATA_DIR: dirs[1]!,
  OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${collector.port}`,
  OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
});
try {
  await setBenchProviderKey(off.url);
  const targets = { "export off": off, "export on": on } as const;
  const results: Record<string, Record<number, { r: WrkResult; cpu: number }[]>> = { "export off": { 1: [], 32: [] }, "export on": { 1: [], 32: [] } };
  for (const t of Object.values(targets)) await wrk(`${t.url}/api/v1/chat/completions`, CHAT_BODY, BENCH_AUTH, { connections: 8, seconds: 2 });
  for (let round = 0; round < rounds; round++) {
    for (const connections of [1, 32]) {
      for (const [name, t] of Object.entries(targets)) {
        const before = mainThreadCpuUs(t.pid);
        const r = await wrk(`${t.url}/api/v1/chat/completions`, CHAT_BODY, BENCH_AUTH, { connections, seconds });
        results[name]![connections]!.push({ r, cpu: (mainThreadCpuUs(t.pid) - before) / Math.max(1, r.requests) });
      }
    }
  }
  console.log(
    `# Hone's spans out: ${rounds} rounds of ${seconds} s per target, two Hone servers on one Postgres, ${navigator.hardwareConcurrency} cores shared by wrk, upstream, collector, both servers and the database\n`,
  );
  console.log("| target | concurrency | calls/s | p50 ms | p99 ms | serving-thread CPU per call µs |");
  console.log("|---|---|---|---|---|---|");
  for (const connections of [1, 32])
    for (const name of Object.keys(targets)) {
      const rs = results[name]![connections]!;
      console.log(
        `| ${name} | ${connections} | ${fmt(median(rs.map((x) => x.r.rps)), 0)} | ${fmt(median(rs.map((x) => x.r.p50)))} | ${fmt(median(rs.map((x) => x.r.p99)))} | ${fmt(median(rs.map((x) => x.cpu)), 0)} |`,
      );
    }
  const p99 = (name: string, c: number) => results[name]![c]!.map((x) => x.r.p99);
  console.log(
    `\np99 ranges over the rounds, off / on: c=1 ${fmt(Math.min(...p99("export off", 1)))}-${fmt(Math.max(...p99("export off", 1)))} / ${fmt(Math.min(...p99("export on", 1)))}-${fmt(Math.max(...p99("export on", 1)))} ms; c=32 ${fmt(Math.min(...p99("export off", 32)))}-${fmt(Math.max(...p99("export off", 32)))} / ${fmt(Math.min(...p99("export on", 32)))}-${fmt(Math.max(...p99("export on", 32)))} ms`,
  );
  // The exporter sends every second: wait for the last batch.
  await Bun.sleep(1_500);
  console.log(`collector: ${exports} exports, ${fmt(exportedBytes / 1e6, 1)} MB received`);
} finally {
  await off.stop();
  await on.stop();
  upstream.stop();
  collector.stop(true);
  await db.cleanup();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}
