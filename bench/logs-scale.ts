// Logs at scale: seeds N logs fast (INSERT ... SELECT generate_series into day partitions, the
// text index built after the load), then prints p50/p95 over repeated runs of the Logs page's
// queries, the 30-day usage (from the rollups), export and delete-by-filter throughput, the time
// to drop a day for retention, ingest while queries run, and storage per log.
//
//   bun bench/logs-scale.ts [--logs 10000000] [--runs 20] [--pglite]
//
// Postgres (default 10,000,000 logs): DATABASE_URL's server, or BENCH_DATABASE_URL's
// (postgres://postgres@127.0.0.1:5432/postgres), in a fresh database dropped at the end.
// --pglite (default 1,000,000 logs): an embedded database in a temporary directory.
// Logs: 30 days, 20 models (skewed), 500 prompt ids (skewed), 10,000 users, ~3% 4xx and ~2% 5xx,
// a request of ~700 bytes of text and an answer of ~250, 1% mentioning a refund.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { sql as q } from "drizzle-orm";
import postgres from "postgres";
import { loadConfig } from "../src/core/config";
import { systemCtx, type Ctx } from "../src/domain/context";
import { openDatabase } from "../src/db/client";
import { createDeps } from "../src/compose";
import {
  closeUsageHours,
  countLogs,
  deleteExpiredLogs,
  dropExpiredLogPartitions,
  ensureLogPartitions,
  deleteLogs,
  insertRequestLogs,
  listLogs,
  logIdAt,
  logUsage,
} from "../src/domain/logs";
import { resultRows } from "../src/domain/logs/internal";
import { createProject } from "../src/domain/projects";
import { createLogger } from "../src/core/logger";
import { fmt } from "./lib";

const { values } = parseArgs({
  options: {
    logs: { type: "string" },
    runs: { type: "string", default: "20" },
    pglite: { type: "boolean", default: false },
    keep: { type: "boolean", default: false },
  },
});
const PGLITE = values.pglite;
const N = Number(values.logs ?? (PGLITE ? 1_000_000 : 10_000_000));
const RUNS = Number(values.runs);
const DAY = 86_400_000;

let env: Record<string, string>;
let cleanup: () => Promise<void>;
if (PGLITE) {
  const dir = mkdtempSync(join(tmpdir(), "hone-bench-logs-"));
  env = { HONE_DATA_DIR: dir };
  cleanup = async () => rmSync(dir, { recursive: true, force: true });
} else {
  const base = process.env.DATABASE_URL ?? process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const name = `hone_bench_logs_${Date.now().toString(36)}`;
  const admin = postgres(base, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${name}"`);
  await admin.end();
  const u = new URL(base);
  u.pathname = `/${name}`;
  env = { DATABASE_URL: u.toString() };
  cleanup = async () => {
    const a = postgres(base, { max: 1, onnotice: () => {} });
    await a.unsafe(`drop database if exists "${name}" with (force)`);
    await a.end();
  };
}

const config = loadConfig({ ...env, HONE_SECRET_KEY: Buffer.alloc(32, 3).toString("base64"), HONE_LOG_LEVEL: "error", HONE_USAGE_CLOSE_GRACE_MS: "0" });
const childEnv = { ...env, HONE_SECRET_KEY: Buffer.alloc(32, 3).toString("base64") };
const open = async () => {
  const database = await openDatabase({ ...config, dbStatementTimeoutMs: 0, dbPoolSize: 4 });
  return { database, deps: createDeps({ config, database, logger: createLogger("error"), secretKey: new Uint8Array(32) }) };
};
// Reopened after the export (PGlite's directory is one process's at a time): `let`.
let { database, deps } = await open();
let db = database.db;
const exec = async <T = Record<string, unknown>>(text: string) => resultRows<T>(await db.execute(q.raw(text)));
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
const table: string[] = [];
const row = (name: string, runs: number, times: number[], result: string) =>
  table.push(`| ${name} | ${runs} | ${fmt(pct(times, 0.5), 1)} | ${fmt(pct(times, 0.95), 1)} | ${result} |`);

try {
  const project = await createProject(systemCtx(deps, "bench"), { name: "logs-scale" });
  let ctx: Ctx = { ...systemCtx(deps, "bench"), projectId: project.projectId };
  const now = Date.now();
  const start = now - 30 * DAY;
  await ensureLogPartitions(ctx, new Date(now), { since: new Date(start - DAY) });

  // ---- seed: the text index is built after the load (much faster than row by row) ----
  await exec("drop index if exists request_log_bodies_search_trgm");
  const seedStarted = performance.now();
  const CHUNK = 100_000;
  for (let lo = 1; lo <= N; lo += CHUNK) {
    const hi = Math.min(N, lo + CHUNK - 1);
    await exec(`with s as (
        select g, (${start}::bigint + (g::float8 / ${N} * ${30 * DAY})::bigint) as ms,
          floor(power(random(), 2) * 20)::int as m, floor(power(random(), 3) * 500)::int as p,
          floor(random() * 10000)::int as u, random() as r
        from generate_series(${lo}, ${hi}) g
      ), l as (
        insert into request_logs (id, project_id, source, provider, model, completion_id, status_code, error_message,
          requested_at, received_at, duration_ms, input_tokens, output_tokens, cost_usd, classes, price_version, cache_hit, metadata, created_at)
        select 'log_' || lpad(to_hex(ms), 12, '0') || lpad(to_hex(g), 20, '0'), '${project.projectId}',
          case when r < 0.8 then 'gateway' else 'report' end,
          case when m < 12 then 'openai' when m < 18 then 'anthropic' else 'gemini' end, 'model-' || m, 'chatcmpl-' || g,
          case when r < 0.03 then 400 + (g % 30) when r < 0.05 then 500 + (g % 4) else 200 end,
          case when r < 0.05 then 'upstream error' end,
          to_timestamp(ms / 1000.0), to_timestamp((ms + 300 + (r * 3000)::int) / 1000.0), 300 + (r * 3000)::int,
          200 + (g % 1800), 20 + (g % 400), (200 + (g % 1800)) * 0.00000015 + (20 + (g % 400)) * 0.0000006,
          -- Tokens and cost per class, as a priced log keeps them (a quarter of the input read from the cache).
          jsonb_build_object('input_tokens', 150 + (g % 1800) * 3 / 4, 'input_usd', (150 + (g % 1800) * 3 / 4) * 0.00000015,
            'cache_read_tokens', 50 + (g % 1800) / 4, 'cache_read_usd', (50 + (g % 1800) / 4) * 0.000000075,
            'output_tokens', 20 + (g % 400), 'output_usd', (20 + (g % 400)) * 0.0000006),
          'genai-prices 0.1.8: openai/gpt-4o-mini', r > 0.97,
          jsonb_build_object('prompt_id', 'prompt-' || p, 'user_id', 'user-' || u, 'env', case when r < 0.9 then 'prod' else 'dev' end),
          to_timestamp(ms / 1000.0)
        from s returning id, model, completion_id, metadata, input_tokens, output_tokens
      )
      , t as (
        select l.*, 'You are the support assistant of an online shop. Answer politely, in two or three sentences, and never invent order details you were not given.' as system,
          'Hello, this is ' || (l.metadata->>'user_id') || '. About order #' || substr(l.id, 25) || ': '
            || case when substr(l.completion_id, 10)::int % 100 = 0 then 'I would like a refund, the parcel arrived damaged. ' else 'where is it? It should have arrived by now. ' end
            || repeat('The tracking page says ' || left(md5(l.id), 12) || ' and nothing else. ', 4 + ascii(right(l.id, 1)) % 8) as question,
          'Thank you for reaching out. Your order is on its way; the carrier reports ' || left(md5(l.completion_id), 10) || '. ' ||
            repeat('We will keep you posted. ', 2 + ascii(right(l.id, 1)) % 6) as answer
        from l
      )
      insert into request_log_bodies (log_id, req_payload, resp_payload, search_text)
      select t.id,
        jsonb_build_object('model', t.model, 'messages', jsonb_build_array(
          jsonb_build_object('role', 'system', 'content', t.system), jsonb_build_object('role', 'user', 'content', t.question))),
        jsonb_build_object('id', t.completion_id, 'object', 'chat.completion', 'model', t.model, 'choices', jsonb_build_array(jsonb_build_object(
          'index', 0, 'finish_reason', 'stop', 'message', jsonb_build_object('role', 'assistant', 'content', t.answer))),
          'usage', jsonb_build_object('prompt_tokens', t.input_tokens, 'completion_tokens', t.output_tokens)),
        -- What searchTextOf writes: the answer, then the messages from the last.
        lower(left(t.answer || E'\n' || t.question || E'\n' || t.system, 6000))
      from t`);
    const s = (performance.now() - seedStarted) / 1000;
    process.stdout.write(`\rseeded ${hi.toLocaleString()} / ${N.toLocaleString()} logs (${fmt(hi / s, 0)}/s)   `);
  }
  const seedS = (performance.now() - seedStarted) / 1000;
  let t0 = performance.now();
  const hasTrgm = (await exec<{ n: number }>("select count(*)::int as n from pg_extension where extname = 'pg_trgm'"))[0]!.n > 0;
  if (hasTrgm) {
    // A GIN build is much faster with room to sort in; the setting lasts only for this transaction.
    await db.transaction(async (tx) => {
      await tx.execute(q.raw("set local maintenance_work_mem = '1GB'"));
      await tx.execute(q.raw("create index request_log_bodies_search_trgm on request_log_bodies using gin (search_text gin_trgm_ops)"));
    });
  }
  const indexS = (performance.now() - t0) / 1000;
  await exec("analyze request_logs");
  await exec("analyze request_log_bodies");
  t0 = performance.now();
  let hours = 0;
  for (;;) {
    const n = await closeUsageHours(ctx, new Date(now));
    hours += n;
    if (!n) break;
  }
  const rollupS = (performance.now() - t0) / 1000;
  console.log(
    `\nseeded ${N.toLocaleString()} logs in ${fmt(seedS, 1)} s (${fmt(N / seedS, 0)} logs/s); text index ${fmt(indexS, 1)} s; rollups of ${hours} hours ${fmt(rollupS, 1)} s`,
  );
  const sizes = (
    await exec<{ rel: string; heap: number; idx: number; toast: number }>(`
      select p.relname as rel,
        sum(pg_relation_size(c.oid))::float8 as heap,
        sum(pg_indexes_size(c.oid))::float8 as idx,
        sum(coalesce(pg_total_relation_size(c.reltoastrelid), 0))::float8 as toast
      from pg_inherits i join pg_class c on c.oid = i.inhrelid join pg_class p on p.oid = i.inhparent
      where p.relname in ('request_logs', 'request_log_bodies') group by 1`)
  ).map((s) => `${s.rel}: rows ${fmt(Number(s.heap) / N, 0)} B, indexes ${fmt(Number(s.idx) / N, 0)} B, toast ${fmt(Number(s.toast) / N, 0)} B per log`);
  console.log(`storage: ${sizes.join("; ")}`);

  // ---- queries ----
  const dayStart = (ms: number) => Math.floor(ms / DAY) * DAY;
  const from = new Date(dayStart(start));
  const to = new Date(dayStart(now) + DAY);
  const cases: [string, () => Promise<unknown>, (r: any) => string, number?][] = [
    ["newest page (50)", () => listLogs(ctx, { first: 50 }), (r) => `${r.logs.length} rows`],
    ["model filter", () => listLogs(ctx, { first: 50, filter: { model: "model-7" } }), (r) => `${r.logs.length} rows`],
    [
      "tag filter prompt_id=prompt-250",
      () => listLogs(ctx, { first: 50, filter: { tags: [{ key: "prompt_id", equals: "prompt-250" }] } }),
      (r) => `${r.logs.length} rows`,
    ],
    [
      "tag filter user_id=user-42",
      () => listLogs(ctx, { first: 50, filter: { tags: [{ key: "user_id", equals: "user-42" }] } }),
      (r) => `${r.logs.length} rows`,
    ],
    [
      "time window (a day, 10 days ago)",
      () => listLogs(ctx, { first: 50, filter: { from: new Date(now - 10 * DAY), to: new Date(now - 9 * DAY) } }),
      (r) => `${r.logs.length} rows`,
    ],
    ["status filter 5xx", () => listLogs(ctx, { first: 50, filter: { statusClass: "5xx" } }), (r) => `${r.logs.length} rows`],
    ["text search 'refund' (1%)", () => listLogs(ctx, { first: 50, filter: { search: "refund" } }), (r) => `${r.logs.length} rows`],
    ["text search 'refund' + model", () => listLogs(ctx, { first: 50, filter: { search: "refund", model: "model-3" } }), (r) => `${r.logs.length} rows`],
    ["text search, no match", () => listLogs(ctx, { first: 50, filter: { search: "xylophone" } }), (r) => `${r.logs.length} rows`],
    [
      "count, tag prompt_id=prompt-250",
      () => countLogs(ctx, { filter: { tags: [{ key: "prompt_id", equals: "prompt-250" }] } }),
      (r) => `${r.count} (${r.exact ? "exact" : "estimate"})`,
    ],
    ["count, everything", () => countLogs(ctx, {}), (r) => `${r.count} (${r.exact ? "exact" : "estimate"})`],
    [
      "usage, 30 days by day and model",
      () => logUsage(ctx, { from, to, bucket: "day", groupBy: "model" }),
      (r) => `${r.series.length} points, ${r.totals.requests} calls`,
    ],
    [
      "usage, 30 days by hour and prompt_id",
      () => logUsage(ctx, { from, to, bucket: "hour", groupBy: "tag", tagKey: "prompt_id" }),
      (r) => `${r.series.length} points, ${r.groups.length} groups`,
    ],
  ];
  for (const [name, run, describe] of cases) {
    const times: number[] = [];
    let last: unknown;
    for (let i = 0; i < RUNS; i++) {
      const s = performance.now();
      last = await run();
      times.push(performance.now() - s);
    }
    row(name, RUNS, times, describe(last));
  }

  // ---- export: each format in a process of its own (its peak RSS is the export's alone) ----
  await database.close();
  for (const format of ["jsonl", "csv"] as const) {
    const job = { projectId: project.projectId, format, from: new Date(now - 3 * DAY).toISOString(), to: new Date(now).toISOString() };
    const child = Bun.spawn(["bun", join(import.meta.dir, "export-child.ts")], {
      env: { ...process.env, ...childEnv, HONE_BENCH_EXPORT: JSON.stringify(job) },
      stdout: "pipe",
      stderr: "inherit",
    });
    const out = await new Response(child.stdout).text();
    if ((await child.exited) !== 0) throw new Error(`export child failed: ${out}`);
    const r = JSON.parse(out.trim().split("\n").at(-1)!) as { bytes: number; lines: number; seconds: number; peakRss: number; openedRss: number };
    const rows = format === "csv" ? r.lines - 1 : r.lines;
    table.push(
      `| export ${format.toUpperCase()}, last 3 days, own process | 1 | ${fmt(r.seconds * 1000, 0)} | | ${rows.toLocaleString()} logs (${fmt(r.bytes / 2 ** 20, 0)} MB), ${fmt(rows / r.seconds, 0)} logs/s, peak RSS ${fmt(r.peakRss / 2 ** 20, 0)} MB (${fmt(r.openedRss / 2 ** 20, 0)} MB before the first row) |`,
    );
  }
  ({ database, deps } = await open());
  db = database.db;
  ctx = { ...systemCtx(deps, "bench"), projectId: project.projectId };

  // ---- delete by filter: a privacy request for one user, then a large one (a prompt id) ----
  // On Postgres a delete runs two workers (days in turn); prompt-2, of a similar size, with one, to compare.
  for (const [label, filter, workers] of [
    ["user_id=user-42", { tags: [{ key: "user_id", equals: "user-42" }] }],
    ["prompt_id=prompt-1", { tags: [{ key: "prompt_id", equals: "prompt-1" }] }],
    ["prompt_id=prompt-2, one worker", { tags: [{ key: "prompt_id", equals: "prompt-2" }] }, 1],
  ] as [string, { tags: { key: string; equals: string }[] }, number?][]) {
    const s = performance.now();
    let deleted = 0;
    for (;;) {
      const r = await deleteLogs(ctx, { filter }, workers ? { workers } : {});
      deleted += r.deleted;
      if (r.done) break;
    }
    const secs = (performance.now() - s) / 1000;
    table.push(`| delete by filter ${label} | 1 | ${fmt(secs * 1000, 0)} | | ${deleted.toLocaleString()} logs, ${fmt(deleted / secs, 0)} logs/s |`);
  }

  // ---- ingest while the Logs page's queries run ----
  {
    const s = performance.now();
    const batch = 500;
    let written = 0;
    let queries = 0;
    const until = s + 10_000;
    const reader = (async () => {
      while (performance.now() < until) {
        await listLogs(ctx, { first: 50, filter: { tags: [{ key: "prompt_id", equals: "prompt-7" }] } });
        queries++;
      }
    })();
    while (performance.now() < until) {
      const at = Date.now();
      await insertRequestLogs(
        ctx,
        Array.from({ length: batch }, (_, i) => ({
          id: `${logIdAt(new Date(at))}${(written + i).toString(16).padStart(20, "0")}`,
          projectId: project.projectId,
          source: "gateway" as const,
          provider: "openai",
          model: "model-1",
          completionId: null,
          statusCode: 200,
          errorMessage: null,
          requestedAt: new Date(at),
          receivedAt: new Date(at),
          durationMs: 420,
          inputTokens: 300,
          outputTokens: 80,
          costUsd: 0.0001,
          cacheHit: false,
          tags: { prompt_id: "prompt-7", user_id: "user-1" },
          reqPayload: {
            model: "model-1",
            messages: [{ role: "user", content: `Where is order ${written + i}? ${"The tracking page is blank. ".repeat(10)}` }],
          },
          respPayload: { choices: [{ index: 0, message: { role: "assistant", content: "It is on its way. ".repeat(5) } }] },
        })),
      );
      written += batch;
    }
    await reader;
    const secs = (performance.now() - s) / 1000;
    table.push(
      `| ingest (batches of ${batch}) with queries running | 1 | ${fmt(secs * 1000, 0)} | | ${fmt(written / secs, 0)} logs/s, ${queries} queries meanwhile |`,
    );
  }

  // ---- retention: drop the oldest day; the partial day is deleted in batches ----
  {
    const cutoff = new Date(dayStart(start) + DAY + 6 * 3_600_000);
    const s = performance.now();
    const dropped = await dropExpiredLogPartitions(ctx, cutoff);
    const dropMs = performance.now() - s;
    const s2 = performance.now();
    const deleted = await deleteExpiredLogs(ctx, { before: cutoff });
    const delMs = performance.now() - s2;
    table.push(`| retention: drop the oldest day | 1 | ${fmt(dropMs, 1)} | | ${dropped.length} partitions (with bodies) |`);
    table.push(
      `| retention: delete 6 h of the next day | 1 | ${fmt(delMs, 0)} | | ${deleted.toLocaleString()} logs, ${fmt(deleted / (delMs / 1000), 0)} logs/s |`,
    );
  }

  console.log(`\n| ${N.toLocaleString()} logs, ${PGLITE ? "PGlite" : "Postgres"} | runs | p50 ms | p95 ms | result |`);
  console.log("| --- | --- | --- | --- | --- |");
  for (const line of table) console.log(line);
} finally {
  await database.close();
  if (values.keep) console.log(`kept: ${env.DATABASE_URL ?? env.HONE_DATA_DIR}`);
  else await cleanup();
}
