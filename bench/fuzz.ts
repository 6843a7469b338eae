// Fuzzes a real Hone server with hostile requests over every REST route, GraphQL root field and
// tRPC procedure (enumerated from the code, see test/fuzz/targets.ts), and reports what it sent,
// the status histogram and every 5xx or malformed error, grouped by cause, with the error the
// server logged for it. Exits non-zero on any 5xx, malformed error, unresponsive /health or lost
// row. The bounded version of the same runs in `bun run test` (test/fuzz/fuzz.test.ts).
//
//   bun bench/fuzz.ts [--requests 100000] [--seed S] [--concurrency 12] [--db pglite|postgres]
//                     [--only rest|graphql|trpc|raw] [--out failures.jsonl]
//
// Every failing request is written in full to --out (one JSON object per line: method, path,
// headers, body) so it can be replayed with curl or fetch.
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import fc from "fast-check";
import {
  ADMIN_TOKEN,
  createProjectAsAdmin,
  fuzzEnv,
  healthMs,
  logCount,
  poolsOf,
  seedProject,
  send,
  snapshot,
  startHealthyUpstream,
  violation,
  clientRefused,
} from "../test/fuzz/harness";
import { excerpt } from "../test/fuzz/hostile";
import { allTargets, type FuzzRequest } from "../test/fuzz/targets";
import { BENCH_KEY, benchDatabase, startHone } from "./lib";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}
const total = Number(arg("requests", "100000"));
const seed = Number(arg("seed", String(Date.now() % 2 ** 31)));
const concurrency = Number(arg("concurrency", "12"));
const dbKind = arg("db", "pglite") as "pglite" | "postgres";
const only = arg("only", "");
const out = arg("out", `/tmp/hone-fuzz-${seed}.jsonl`);
const CHUNK = 200;
const RSS_LIMIT_MB = Number(arg("rss-limit-mb", "3000"));

console.log(`fuzz: ${total} requests, seed ${seed}, concurrency ${concurrency}, ${dbKind}; failing requests -> ${out}`);
writeFileSync(out, "");

const upstream = startHealthyUpstream();
const db = await benchDatabase(dbKind);
const errorLines = new Map<string, string[]>();
const otherErrors: string[] = [];
const hone = await startHone(
  { ...db.env, ...fuzzEnv(upstream.url), HONE_LOG_LEVEL: "error", HONE_ADMIN_TOKEN: ADMIN_TOKEN },
  {
    onLine: (line) => {
      try {
        const l = JSON.parse(line);
        if (l.level !== "error") return;
        const summary = `${l.msg}: ${l.errorName ?? ""} ${l.error ?? ""}${l.sqlState ? ` (SQLSTATE ${l.sqlState}: ${l.cause})` : ""}${l.path ? ` [${l.path}]` : ""}`;
        if (l.requestId) (errorLines.get(l.requestId) ?? errorLines.set(l.requestId, []).get(l.requestId)!).push(`${summary}\n      at ${firstFrame(l.stack)}`);
        else otherErrors.push(summary);
      } catch {}
    },
  },
);
const victimKey = await createProjectAsAdmin(hone.url, "fuzz victim");
const keys = { project: BENCH_KEY, victim: victimKey };
const own = await seedProject(hone.url, BENCH_KEY, upstream.url, "own");
const victim = await seedProject(hone.url, victimKey, upstream.url, "victim");
const pools = poolsOf(own, victim, upstream.url);
const before = {
  own: await snapshot(hone.url, BENCH_KEY, own, false),
  victim: await snapshot(hone.url, victimKey, victim, true),
  ownLogs: await logCount(hone.url, BENCH_KEY),
  victimLogs: await logCount(hone.url, victimKey),
};

const targets = allTargets(pools).filter((t) => !only || t.transport === only);
console.log(
  `targets: ${targets.length} (${["rest", "graphql", "trpc", "raw"].map((k) => `${k} ${targets.filter((t) => t.transport === k).length}`).join(", ")})`,
);
const mixed = fc.oneof(...targets.map((t) => t.arbitrary));

function firstFrame(stack: unknown): string {
  const lines = String(stack ?? "")
    .split("\n")
    .slice(1);
  return (lines.find((l) => l.includes("/src/")) ?? lines[0] ?? "").trim();
}

// Health and memory watched on the side while the fuzz runs.
let healthMax = 0;
let healthFailures = 0;
let rssMaxMb = 0;
let stop = false;
let abortReason: string | null = null;
const watcher = (async () => {
  while (!stop) {
    const ms = await healthMs(hone.url, 5_000);
    if (!Number.isFinite(ms)) healthFailures++;
    else healthMax = Math.max(healthMax, ms);
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${hone.pid}/status`, "utf8"));
      if (m) rssMaxMb = Math.max(rssMaxMb, Number(m[1]) / 1024);
    } catch {}
    if (rssMaxMb > RSS_LIMIT_MB) abortReason = `Hone's RSS passed ${RSS_LIMIT_MB} MB`;
    await Bun.sleep(500);
  }
})();

type Finding = { key: string; count: number; sample: FuzzRequest; problem: string; logged: string[]; targets: Set<string> };
const findings = new Map<string, Finding>();
const statuses = new Map<string, number>();
const perTransport = new Map<string, number>();
let sent = 0;
let refused = 0;
let fiveXx = 0;
let problems = 0;
const started = performance.now();

/** One key per root cause: the logged error (driver state and table), else the kind of problem. */
function causeOf(problem: string, logged: string[]): string {
  const line = logged[0];
  if (line) {
    const state = /SQLSTATE (\w+): ([^)]*)/.exec(line);
    const table = /(?:from|into|update) "(\w+)"/.exec(line);
    if (state) return `SQLSTATE ${state[1]} ${state[2]} (${table?.[1] ?? "?"})`;
    return line
      .split("\n")[0]!
      .replace(/[a-z]+_[A-Za-z0-9]{6,}/g, "<id>")
      .replace(/\d+/g, "N")
      .slice(0, 160);
  }
  return problem
    .replace(/\{.*$/s, "")
    .replace(/\d{3,}/g, "N")
    .slice(0, 100);
}

async function runOne(req: FuzzRequest): Promise<void> {
  const o = await send(hone.url, req, keys);
  sent++;
  perTransport.set(req.transport, (perTransport.get(req.transport) ?? 0) + 1);
  if (clientRefused(o)) {
    refused++;
    return;
  }
  const status = "error" in o ? "no response" : String(o.status);
  statuses.set(status, (statuses.get(status) ?? 0) + 1);
  if (!("error" in o) && o.status >= 500) fiveXx++;
  const problem = violation(req, o);
  if (!problem) return;
  problems++;
  // The server's log line may arrive after its response: causes are resolved once the run ends.
  failures.push({ req, problem, status, requestId: "error" in o ? null : o.requestId });
}

const failures: { req: FuzzRequest; problem: string; status: string; requestId: string | null }[] = [];

function groupFailures(): void {
  for (const { req, problem, status, requestId } of failures) {
    const logged = requestId ? (errorLines.get(requestId) ?? []) : [];
    const key = causeOf(problem, logged);
    const f = findings.get(key);
    if (f) {
      f.count++;
      f.targets.add(`${req.target} -> ${status}`);
    } else findings.set(key, { key, count: 1, sample: req, problem, logged, targets: new Set([`${req.target} -> ${status}`]) });
    appendFileSync(
      out,
      `${JSON.stringify({
        target: req.target,
        problem,
        method: req.method,
        path: req.path,
        headers: req.headers,
        auth: req.auth,
        body: req.body?.slice(0, 2_000_000),
        logged,
      })}\n`,
    );
  }
}

for (let chunk = 0; sent < total && !abortReason; chunk++) {
  let batch: FuzzRequest[];
  try {
    batch = fc.sample(mixed, { seed: seed + chunk, numRuns: Math.min(CHUNK, total - sent) });
  } catch (err) {
    // A generator bug must not end the run: say so, and go on with the next chunk.
    console.log(`  chunk ${chunk} (seed ${seed + chunk}) could not be generated: ${err}`);
    continue;
  }
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < batch.length && !abortReason) await runOne(batch[next++]!);
    }),
  );
  if (chunk % 25 === 0) {
    const s = (performance.now() - started) / 1000;
    console.log(
      `  ${sent} sent, ${fiveXx} 5xx, ${problems} problems, ${(sent / s).toFixed(0)} req/s, /health max ${healthMax.toFixed(0)} ms, RSS max ${rssMaxMb.toFixed(0)} MB`,
    );
  }
}
stop = true;
await watcher;
await Bun.sleep(300);
groupFailures();
const seconds = (performance.now() - started) / 1000;

// Nothing seeded may be lost: the victim project exactly as it was, the fuzzed project's hidden
// dataset, seeded logs and custom provider unchanged, and log counts only grown.
const lost: string[] = [];
if (!abortReason)
  try {
    await Bun.sleep(500);
    const after = {
      own: await snapshot(hone.url, BENCH_KEY, own, false),
      victim: await snapshot(hone.url, victimKey, victim, true),
      ownLogs: await logCount(hone.url, BENCH_KEY),
      victimLogs: await logCount(hone.url, victimKey),
    };
    writeFileSync(`${out.replace(/\.jsonl$/, "")}-snapshots.json`, JSON.stringify({ before, after }, null, 1));
    if (JSON.stringify(after.own) !== JSON.stringify(before.own))
      lost.push(`fuzzed project's protected rows changed: before ${excerpt(before.own, 400)} after ${excerpt(after.own, 400)}`);
    if (JSON.stringify(after.victim) !== JSON.stringify(before.victim))
      lost.push(`victim project changed: before ${excerpt(before.victim, 400)} after ${excerpt(after.victim, 400)}`);
    if (after.ownLogs < before.ownLogs) lost.push(`fuzzed project's logs went from ${before.ownLogs} to ${after.ownLogs}`);
    if (after.victimLogs < before.victimLogs) lost.push(`victim's logs went from ${before.victimLogs} to ${after.victimLogs}`);
  } catch (err) {
    lost.push(`a seeded row could not be read back: ${excerpt(String(err), 600)}`);
  }

console.log(`\nrequests sent: ${sent} in ${seconds.toFixed(1)} s (${(sent / seconds).toFixed(0)} req/s), seed ${seed}`);
console.log(`  by transport: ${[...perTransport].map(([k, v]) => `${k} ${v}`).join(", ")}; refused by the client before sending: ${refused}`);
console.log(
  `  status histogram: ${[...statuses]
    .sort()
    .map(([k, v]) => `${k}: ${v}`)
    .join(", ")}`,
);
console.log(`5xx seen: ${fiveXx}`);
console.log(`other contract problems (error envelope, INTERNAL codes, no response): ${problems - fiveXx}`);
console.log(`/health: max ${healthMax.toFixed(0)} ms, ${healthFailures} checks without an answer within 5 s; Hone RSS max ${rssMaxMb.toFixed(0)} MB`);
if (abortReason) console.log(`ABORTED: ${abortReason}`);
for (const l of lost) console.log(`LOST: ${l}`);
if (findings.size) {
  console.log(`\n${findings.size} distinct causes, with the targets that hit them and one sample each:`);
  for (const f of [...findings.values()].sort((a, b) => b.count - a.count)) {
    console.log(
      `- [${f.count}x] ${f.key}\n    targets: ${[...f.targets].slice(0, 12).join("; ")}${f.targets.size > 12 ? ` (+${f.targets.size - 12})` : ""}\n    ${f.problem.slice(0, 300)}\n    repro: ${f.sample.describe(300)}`,
    );
    for (const l of f.logged.slice(0, 2)) console.log(`    logged: ${l}`);
  }
}
if (otherErrors.length) {
  console.log(`\nerrors logged outside any request (${otherErrors.length}), first few:`);
  for (const e of [...new Set(otherErrors)].slice(0, 10)) console.log(`  ${excerpt(e, 300)}`);
}

await hone.stop();
await upstream.stop();
await db.cleanup();
process.exit(fiveXx || problems || lost.length || healthFailures || abortReason ? 1 : 0);
