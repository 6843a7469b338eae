// Server time of the console's log and usage queries on a large project (Postgres): the domain
// verbs are called directly, so the figures are the database's work plus Hone's, not HTTP.
//
//   bun bench/console.ts [--logs 1000000] [--runs 20]   (text search: at most 3 runs, usage: at most 5)
//
// Uses DATABASE_URL when set (a project is added to it), else creates a fresh database on
// BENCH_DATABASE_URL's server (default postgres://postgres@127.0.0.1:5432/postgres) and drops it
// at the end. N logs are seeded with INSERT ... SELECT generate_series (no round trip per row):
// 30 days, 20 models (skewed), 500 prompt_id values (skewed), 10,000 users, ~3% 4xx and ~2% 5xx,
// request/response bodies of about 1-2 KB of text, 1% of them mentioning a refund.
import { parseArgs } from "node:util";
import postgres from "postgres";
import { loadConfig } from "../src/core/config";
import { systemCtx, type Ctx } from "../src/domain/context";
import { openDatabase } from "../src/db/client";
import { createDeps } from "../src/compose";
import { countLogs, listLogs, logUsage } from "../src/domain/logs";
import { createProject } from "../src/domain/projects";
import { createLogger } from "../src/core/logger";
import { fmt } from "./lib";
import { seedLogs } from "./seed-logs";

const { values } = parseArgs({ options: { logs: { type: "string", default: "1000000" }, runs: { type: "string", default: "20" } } });
const N = Number(values.logs);
const RUNS = Number(values.runs);

let url = process.env.DATABASE_URL;
let drop: (() => Promise<void>) | null = null;
if (!url) {
  const base = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const name = `hone_bench_console_${Date.now().toString(36)}`;
  const admin = postgres(base, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${name}"`);
  await admin.end();
  const u = new URL(base);
  u.pathname = `/${name}`;
  url = u.toString();
  drop = async () => {
    const a = postgres(base, { max: 1, onnotice: () => {} });
    await a.unsafe(`drop database if exists "${name}" with (force)`);
    await a.end();
  };
}

const config = loadConfig({ DATABASE_URL: url, HONE_SECRET_KEY: Buffer.alloc(32, 3).toString("base64"), HONE_LOG_LEVEL: "error" });
const database = await openDatabase({ ...config, dbStatementTimeoutMs: 0 });
const deps = createDeps({ config, database, logger: createLogger("error"), secretKey: new Uint8Array(32) });
const sql = postgres(url, { max: 1, onnotice: () => {} });

try {
  const project = await createProject(systemCtx(deps, "bench"), { name: `console-bench-${Date.now()}` });
  const ctx: Ctx = { ...systemCtx(deps, "bench"), projectId: project.projectId };

  const { start, now } = await seedLogs(sql, project.projectId, N);

  // ---- measure ----
  const pct = (xs: number[], p: number) => {
    const s = [...xs].sort((a, b) => a - b);
    return s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
  };
  const from = new Date(start - 86_400_000);
  from.setUTCHours(0, 0, 0, 0);
  const to = new Date(now + 86_400_000);
  to.setUTCHours(0, 0, 0, 0);
  const cases: [string, () => Promise<unknown>, (r: any) => string][] = [
    ["logs.list, newest 50", () => listLogs(ctx, { first: 50 }), (r) => `${r.logs.length} rows`],
    [
      "logs.list, tag prompt_id=prompt-250",
      () => listLogs(ctx, { first: 50, filter: { tags: [{ key: "prompt_id", equals: "prompt-250" }] } }),
      (r) => `${r.logs.length} rows`,
    ],
    [
      "logs.list, tag user_id=user-42",
      () => listLogs(ctx, { first: 50, filter: { tags: [{ key: "user_id", equals: "user-42" }] } }),
      (r) => `${r.logs.length} rows`,
    ],
    ["logs.list, model + 5xx", () => listLogs(ctx, { first: 50, filter: { model: "openai:model-7", statusClass: "5xx" } }), (r) => `${r.logs.length} rows`],
    ["logs.list, text search 'refund' (1%)", () => listLogs(ctx, { first: 50, filter: { search: "refund" } }), (r) => `${r.logs.length} rows`],
    [
      "logs.count, tag prompt_id=prompt-250",
      () => countLogs(ctx, { filter: { tags: [{ key: "prompt_id", equals: "prompt-250" }] } }),
      (r) => `${r.count} (${r.exact ? "exact" : "estimate"})`,
    ],
    [
      "logs.count, tag prompt_id=prompt-0",
      () => countLogs(ctx, { filter: { tags: [{ key: "prompt_id", equals: "prompt-0" }] } }),
      (r) => `${r.count} (${r.exact ? "exact" : "estimate"})`,
    ],
    [
      "logs.usage, 30 days by day and model",
      () => logUsage(ctx, { from: from.toISOString(), to: to.toISOString(), bucket: "day", groupBy: "model" }),
      (r) => `${r.series.length} points, ${r.totals.requests} calls`,
    ],
  ];
  // Text search reads bodies (seconds per query at 1M until the logs-at-scale work indexes it) and
  // usage reads every row of the range: fewer runs of those keep the bench within minutes.
  const runsOf = (name: string) => (name.includes("text search") ? Math.min(RUNS, 3) : name.includes("usage") ? Math.min(RUNS, 5) : RUNS);
  console.log(`\n| query (${N.toLocaleString()} logs, Postgres) | runs | p50 ms | p95 ms | result |`);
  console.log("| --- | --- | --- | --- | --- |");
  for (const [name, run, describe] of cases) {
    const times: number[] = [];
    let last: unknown;
    const runs = runsOf(name);
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      last = await run();
      times.push(performance.now() - t0);
    }
    console.log(`| ${name} | ${runs} | ${fmt(pct(times, 0.5), 1)} | ${fmt(pct(times, 0.95), 1)} | ${describe(last)} |`);
  }
} finally {
  await sql.end();
  await database.close();
  if (drop) await drop();
}
