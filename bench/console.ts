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
import { loadConfig } from "../src/config";
import { systemCtx, type Ctx } from "../src/context";
import { openDatabase } from "../src/db/client";
import { createDeps } from "../src/deps";
import { countLogs, listLogs, logUsage } from "../src/domain/logs";
import { createProject } from "../src/domain/projects";
import { createLogger } from "../src/logger";
import { fmt } from "./lib";

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

  // ---- seed ----
  const now = Date.now();
  const span = 30 * 86_400_000;
  const start = now - span;
  const CHUNK = 100_000;
  const seedStarted = performance.now();
  for (let lo = 1; lo <= N; lo += CHUNK) {
    const hi = Math.min(N, lo + CHUNK - 1);
    // Per row g: a time spread evenly over 30 days (with jitter), skewed model and prompt_id.
    await sql.unsafe(
      `with s as (
        select g, ($3::bigint + (g::float8 / $4 * $5)::bigint + (random() * 1000)::bigint) as ms,
          floor(power(random(), 2) * 20)::int as m, floor(power(random(), 3) * 500)::int as p,
          floor(random() * 10000)::int as u, random() as r
        from generate_series($1::int, $2::int) g
      )
      insert into request_logs (id, project_id, source, provider, model, completion_id, status_code, error_message,
        requested_at, received_at, duration_ms, input_tokens, output_tokens, cost_usd, cache_hit, metadata, created_at)
      select 'log_' || lpad(to_hex(ms), 12, '0') || lpad(to_hex(g), 20, '0'), $6, case when r < 0.8 then 'gateway' else 'report' end,
        case when m < 12 then 'openai' when m < 18 then 'anthropic' else 'gemini' end,
        'model-' || m, 'chatcmpl-' || g,
        case when r < 0.03 then 400 + (g % 30) when r < 0.05 then 500 + (g % 4) else 200 end,
        case when r < 0.05 then 'upstream error' end,
        to_timestamp(ms / 1000.0), to_timestamp((ms + 300 + (r * 3000)::int) / 1000.0), 300 + (r * 3000)::int,
        200 + (g % 1800), 20 + (g % 400), (200 + (g % 1800)) * 0.00000015 + (20 + (g % 400)) * 0.0000006,
        r > 0.97, jsonb_build_object('prompt_id', 'prompt-' || p, 'user_id', 'user-' || u, 'env', case when r < 0.9 then 'prod' else 'dev' end),
        to_timestamp(ms / 1000.0)
      from s`,
      [lo, hi, start, N, span, project.projectId],
    );
    await sql.unsafe(
      `insert into request_log_bodies (log_id, req_payload, resp_payload)
      select l.id,
        jsonb_build_object('model', l.model, 'messages', jsonb_build_array(
          jsonb_build_object('role', 'system', 'content', 'You are the support assistant of an online shop. Answer politely, in two or three sentences, and never invent order details you were not given.'),
          jsonb_build_object('role', 'user', 'content', 'Hello, this is ' || (l.metadata->>'user_id') || '. About order #' || substr(l.id, 25) || ': '
            || case when substr(l.completion_id, 10)::int % 100 = 0 then 'I would like a refund, the parcel arrived damaged. ' else 'where is it? It should have arrived by now. ' end
            || repeat('The tracking page says ' || md5(l.id) || ' and nothing else. ', 8 + (length(l.id) + ascii(right(l.id, 1))) % 16)))),
        jsonb_build_object('id', l.completion_id, 'object', 'chat.completion', 'model', l.model, 'choices', jsonb_build_array(jsonb_build_object(
          'index', 0, 'finish_reason', 'stop', 'message', jsonb_build_object('role', 'assistant', 'content',
            'Thank you for reaching out. Your order is on its way; the carrier reports ' || md5(l.completion_id) || '. ' ||
            repeat('We will keep you posted. ', 4 + ascii(right(l.id, 1)) % 12)))),
          'usage', jsonb_build_object('prompt_tokens', l.input_tokens, 'completion_tokens', l.output_tokens))
      from request_logs l
      where l.project_id = $1 and l.completion_id in (select 'chatcmpl-' || g from generate_series($2::int, $3::int) g)`,
      [project.projectId, lo, hi],
    );
    process.stdout.write(`\rseeded ${hi.toLocaleString()} / ${N.toLocaleString()} logs`);
  }
  await sql.unsafe("analyze request_logs");
  await sql.unsafe("analyze request_log_bodies");
  const [size] = await sql.unsafe(
    `select pg_size_pretty(pg_total_relation_size('request_logs')) as logs, pg_size_pretty(pg_total_relation_size('request_log_bodies')) as bodies`,
  );
  console.log(
    `\nseeded ${N.toLocaleString()} logs in ${fmt((performance.now() - seedStarted) / 1000, 1)} s (request_logs ${size!.logs}, bodies ${size!.bodies})`,
  );

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
      () => listLogs(ctx, { first: 50, filter: { metadata: [{ key: "prompt_id", equals: "prompt-250" }] } }),
      (r) => `${r.logs.length} rows`,
    ],
    [
      "logs.list, tag user_id=user-42",
      () => listLogs(ctx, { first: 50, filter: { metadata: [{ key: "user_id", equals: "user-42" }] } }),
      (r) => `${r.logs.length} rows`,
    ],
    ["logs.list, model + 5xx", () => listLogs(ctx, { first: 50, filter: { model: "model-7", statusClass: "5xx" } }), (r) => `${r.logs.length} rows`],
    ["logs.list, text search 'refund' (1%)", () => listLogs(ctx, { first: 50, filter: { search: "refund" } }), (r) => `${r.logs.length} rows`],
    [
      "logs.count, tag prompt_id=prompt-250",
      () => countLogs(ctx, { filter: { metadata: [{ key: "prompt_id", equals: "prompt-250" }] } }),
      (r) => `${r.count} (${r.exact ? "exact" : "estimate"})`,
    ],
    [
      "logs.count, tag prompt_id=prompt-0",
      () => countLogs(ctx, { filter: { metadata: [{ key: "prompt_id", equals: "prompt-0" }] } }),
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
