// Garbage-collection pauses under gateway load: where the rest of Hone's p99 at c=32 goes.
//
//   bun bench/gc.ts [--seconds 8] [--rounds 3] [--db postgres]
//
// The same load as bench/gateway.ts (wrk, c=32, a fake upstream answering after 20 ms) is sent to
// Hone and to the bare Bun proxy in turn, both started with JavaScriptCore's GC log on
// (BUN_JSC_logGC=1, written to stderr). For the heap that serves requests, every young-generation
// ("eden") collection in the measured window is counted with its pause (the time the JavaScript
// thread stood still). A pause lands on every call that is being handled or arrives meanwhile, so
// at c=32 the added p99 cannot drop below the typical pause once collections come more often than
// once per hundred calls.
import { parseArgs } from "node:util";
import { BENCH_AUTH, CHAT_BODY, benchDatabase, fmt, setBenchProviderKey, startBunProxy, startFakeUpstream, startHone, wrk } from "./lib";

const { values } = parseArgs({
  options: { seconds: { type: "string", default: "8" }, rounds: { type: "string", default: "3" }, db: { type: "string", default: "postgres" } },
});
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
const body = CHAT_BODY;
const auth = BENCH_AUTH;

type Pause = { heap: string; kind: string; ms: number };
const GC_LINE = /GC<(0x[0-9a-f]+)>: START \w+ \d+kb => (\w+)Collection[^[]*?=> \d+kb, p=[\d.]+ms \(max [\d.]+\), cycle ([\d.]+)ms/g;

/** Collects a process's GC log; `since()` returns the pauses logged after a mark. */
function gcLog() {
  let text = "";
  return {
    onStderr: (t: string) => void (text += t),
    mark: () => text.length,
    since(mark: number): Pause[] {
      return [...text.slice(mark).matchAll(GC_LINE)].map((m) => ({ heap: m[1]!, kind: m[2]!, ms: Number(m[3]) }));
    },
  };
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(p * s.length))]! : NaN;
};

/** The eden pauses of the busiest heap (a Hone process also has the log-writer thread's heap). */
function edenOfMainHeap(pauses: Pause[]): number[] {
  const byHeap = new Map<string, number[]>();
  for (const p of pauses) if (p.kind === "Eden") byHeap.set(p.heap, [...(byHeap.get(p.heap) ?? []), p.ms]);
  return [...byHeap.values()].sort((a, b) => b.reduce((x, y) => x + y, 0) - a.reduce((x, y) => x + y, 0))[0] ?? [];
}

const db = await benchDatabase(values.db as "pglite" | "postgres");
const slow = await startFakeUpstream(20);
const gcEnv = { BUN_JSC_logGC: "1" };
const honeLog = gcLog();
const proxyLog = gcLog();
const hone = await startHone({ ...db.env, OPENAI_BASE_URL: `${slow.url}/v1`, ...gcEnv }, { onStderr: honeLog.onStderr });
const proxy = await startBunProxy(`${slow.url}/v1/chat/completions`, { env: gcEnv, onStderr: proxyLog.onStderr });
try {
  await setBenchProviderKey(hone.url);
  const targets = [
    { name: "Hone", url: `${hone.url}/api/v1/chat/completions`, headers: auth, log: honeLog },
    { name: "bare Bun proxy", url: proxy.url, headers: {}, log: proxyLog },
  ];
  for (const t of targets) await wrk(t.url, body, t.headers, { connections: 32, seconds: 5 });
  const results = targets.map(() => ({ pauses: [] as number[], calls: 0, seconds: 0 }));
  for (let r = 0; r < rounds; r++) {
    for (const [i, t] of targets.entries()) {
      const mark = t.log.mark();
      const w = await wrk(t.url, body, t.headers, { connections: 32, seconds });
      results[i]!.pauses.push(...edenOfMainHeap(t.log.since(mark)));
      results[i]!.calls += w.requests;
      results[i]!.seconds += seconds;
    }
  }
  console.log(`\nEden (young-generation) GC pauses of the request-serving heap, wrk c=32, upstream after 20 ms, ${rounds} x ${seconds} s each, ${db.name}:\n`);
  console.log("| process | calls/s | collections/s | calls per collection | pause p50 (ms) | pause p90 (ms) | pause max (ms) |");
  console.log("|---|---|---|---|---|---|---|");
  for (const [i, t] of targets.entries()) {
    const { pauses, calls, seconds: s } = results[i]!;
    console.log(
      `| ${t.name} | ${fmt(calls / s, 0)} | ${fmt(pauses.length / s, 1)} | ${fmt(calls / Math.max(1, pauses.length), 0)} | ${fmt(pct(pauses, 0.5))} | ${fmt(pct(pauses, 0.9))} | ${fmt(Math.max(...pauses))} |`,
    );
  }
} finally {
  await hone.stop();
  proxy.stop();
  slow.stop();
  await db.cleanup();
}
process.exit(0);
