// Gateway benchmark: the latency Hone adds over calling the same upstream directly, and the
// throughput of /chat/completions with logging on, on PGlite and on Postgres.
//
//   bun bench/gateway.ts [--seconds 10] [--rounds 5] [--db pglite,postgres]
//
// Added latency: a fake upstream (own process) answers after a fixed 20 ms. In one run, wrk
// (closed loop) calls it directly, through a bare Bun proxy (bench/bun-proxy.ts: the floor any
// Bun gateway pays on this machine) and through Hone, at concurrency 1 and 32; every Hone call
// is logged. The three are measured in turn, `rounds` times, and each figure is the median of the
// rounds (the p99 of one few-second window swings by milliseconds on a shared 2-core VM); the
// range of Hone's added p99 and the CPU time the hypervisor took meanwhile ("steal") are printed
// too. Throughput: an instant upstream, concurrency 64.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { BENCH_AUTH, CHAT_BODY, benchDatabase, fmt, setBenchProviderKey, startBunProxy, startFakeUpstream, startHone, wrk, type WrkResult } from "./lib";

const { values } = parseArgs({
  options: { seconds: { type: "string", default: "10" }, rounds: { type: "string", default: "5" }, db: { type: "string", default: "pglite,postgres" } },
});
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
const dbs = values.db!.split(",") as ("pglite" | "postgres")[];
const body = CHAT_BODY;
const auth = BENCH_AUTH;

const lat = (r: WrkResult) => `${fmt(r.p50)} / ${fmt(r.p99)}`;
const signed = (d: number) => `${d >= 0 ? "+" : ""}${fmt(d)}`;
const plus = (a: number, b: number) => signed(a - b);
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
/** The median of each figure over the rounds. */
const med = (rs: WrkResult[]): WrkResult => ({
  rps: median(rs.map((r) => r.rps)),
  p50: median(rs.map((r) => r.p50)),
  p75: median(rs.map((r) => r.p75)),
  p90: median(rs.map((r) => r.p90)),
  p99: median(rs.map((r) => r.p99)),
  errors: rs.reduce((a, r) => a + r.errors, 0),
  requests: rs.reduce((a, r) => a + r.requests, 0),
});
/** CPU time (µs) a process's main thread (the one serving requests) has used, from /proc (ticks of 10 ms). */
const mainThreadCpuUs = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(f[11]) + Number(f[12])) * 10_000;
};
/** CPU time the hypervisor gave to others (jiffies, all cores), from /proc/stat. */
const steal = () => Number(readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/)[8] ?? 0);

console.log(
  `# Hone gateway benchmark: ${rounds} rounds of ${seconds}s per target, wrk on loopback, ${navigator.hardwareConcurrency} cores shared by wrk, upstream, Hone and the database\n`,
);
const latencyRows: string[] = [];
const throughputRows: string[] = [];
for (const kind of dbs) {
  const db = await benchDatabase(kind);
  const slow = await startFakeUpstream(20);
  const fast = await startFakeUpstream(0);
  const floor = await startBunProxy(`${slow.url}/v1/chat/completions`);
  try {
    let hone = await startHone({ ...db.env, OPENAI_BASE_URL: `${slow.url}/v1` });
    await setBenchProviderKey(hone.url);
    // A long-running server is warm: its code is compiled by the JIT before it is measured.
    await wrk(`${hone.url}/api/v1/chat/completions`, body, auth, { connections: 32, seconds: 5 });
    for (const c of [1, 32]) {
      const o = { connections: c, seconds };
      const directs: WrkResult[] = [];
      const proxies: WrkResult[] = [];
      const vias: WrkResult[] = [];
      const s0 = steal();
      for (let r = 0; r < rounds; r++) {
        directs.push(await wrk(`${slow.url}/v1/chat/completions`, body, {}, o));
        proxies.push(await wrk(floor.url, body, {}, o));
        vias.push(await wrk(`${hone.url}/api/v1/chat/completions`, body, auth, o));
        console.log(`  ${kind} c=${c} round ${r + 1}: Hone - direct ${plus(vias[r]!.p50, directs[r]!.p50)} / ${plus(vias[r]!.p99, directs[r]!.p99)} ms`);
      }
      const [direct, proxy, via] = [med(directs), med(proxies), med(vias)];
      const added99 = vias.map((v, r) => v.p99 - directs[r]!.p99);
      latencyRows.push(
        `| ${kind} | ${c} | ${lat(direct)} | ${lat(proxy)} | ${lat(via)} | **${plus(via.p50, direct.p50)} / ${plus(via.p99, direct.p99)}** | ${signed(Math.min(...added99))} … ${signed(Math.max(...added99))} | ${plus(via.p50, proxy.p50)} / ${plus(via.p99, proxy.p99)} | ${fmt(via.rps, 0)} | ${via.errors} | ${steal() - s0} |`,
      );
      console.log(latencyRows.at(-1));
    }
    await hone.stop();

    hone = await startHone({ ...db.env, OPENAI_BASE_URL: `${fast.url}/v1` });
    await wrk(`${hone.url}/api/v1/chat/completions`, body, auth, { connections: 8, seconds: 2 });
    const direct = await wrk(`${fast.url}/v1/chat/completions`, body, {}, { connections: 64, seconds });
    const cpu0 = mainThreadCpuUs(hone.pid);
    const via = await wrk(`${hone.url}/api/v1/chat/completions`, body, auth, { connections: 64, seconds, threads: 2 });
    const perCall = (mainThreadCpuUs(hone.pid) - cpu0) / Math.max(1, via.requests);
    throughputRows.push(`| ${kind} | ${fmt(direct.rps, 0)} | **${fmt(via.rps, 0)}** | ${lat(via)} | ${fmt(perCall, 0)} | ${via.errors} |`);
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
Added latency (ms, p50 / p99, medians of ${rounds} rounds of ${seconds} s), upstream answering after 20 ms, every Hone call logged:

| database | concurrency | direct | bare Bun proxy | Hone | Hone - direct | added p99, range over rounds | Hone - bare proxy | Hone req/s | errors | steal (jiffies) |
|---|---|---|---|---|---|---|---|---|---|---|
${latencyRows.join("\n")}

Throughput (req/s), instant upstream, concurrency 64, every call logged:

| database | upstream direct | through Hone | Hone p50 / p99 (ms) | main-thread CPU per call (µs) | errors |
|---|---|---|---|---|---|
${throughputRows.join("\n")}`);
process.exit(0);
