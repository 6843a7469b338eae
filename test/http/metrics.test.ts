import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { createApp } from "../../src/app";
import { migrateDatabase, openDatabase } from "../../src/db/client";
import { createDeps } from "../../src/compose";
import type { LogWriter, NewRequestLog } from "../../src/domain/logs";
import { REST_ROUTES } from "../../src/http/rest/routes";
import { newId } from "../../src/lib/ids";
import { createLogWriter, createRowWriter, recordWriter } from "../../src/log-writer/log-writer";
import { createThreadedLogWriter } from "../../src/log-writer/threaded-log-writer";
import { createLogger } from "../../src/core/logger";
import { createMetrics } from "../../src/domain/metrics";
import { createTestApp, openAiClient, serve, storeProviderKey, type TestApp } from "../helpers/app";
import { createOwnPostgresDatabase } from "../helpers/db";
import { resultRows } from "../../src/domain/logs/internal";
import { waitFor } from "../helpers/wait-for";
import { type FakeUpstream, startFakeOpenAI } from "../helpers/fake-upstreams";

// GET /metrics in Prometheus' text format, its token, and /health with the log backlog.

const TOKEN = "metrics-token-0123456789abcdef";
let t: TestApp;
let fake: FakeUpstream;
let server: { url: string; stop(): Promise<void> };

beforeAll(async () => {
  fake = startFakeOpenAI();
  t = await createTestApp({ env: { OPENAI_BASE_URL: `${fake.url}/v1`, HONE_METRICS_TOKEN: TOKEN } });
  await storeProviderKey(t, "openai", "sk-metrics-test-01");
  server = serve(t.app);
}, 60_000);
afterAll(async () => {
  await server.stop();
  await fake.stop();
  await t.close();
});

type Sample = { name: string; labels: Record<string, string>; value: number };
type Parsed = { samples: Sample[]; types: Map<string, string> };

const NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
const LABEL = '[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\\\\n]|\\\\[\\\\"n])*"';
const SAMPLE = new RegExp(`^(${NAME})(?:\\{((?:${LABEL})(?:,${LABEL})*,?)?\\})? (-?[0-9]+(?:\\.[0-9]+)?(?:e[+-]?[0-9]+)?|NaN|\\+Inf|-Inf)( -?[0-9]+)?$`);

/**
 * A strict reader of the text format 0.0.4: every line is `# HELP name text`, `# TYPE name type`
 * or `name{label="value",...} value`, label values escaped (\\, \", \n and nothing else), each
 * family's TYPE given once and before its samples, every sample in a declared family.
 */
function parseProm(text: string): Parsed {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  const helps = new Set<string>();
  expect(text.endsWith("\n")).toBe(true);
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const type = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`).exec(line);
    if (type) {
      if (types.has(type[1]!)) throw new Error(`TYPE given twice: ${line}`);
      types.set(type[1]!, type[2]!);
      continue;
    }
    const help = new RegExp(`^# HELP (${NAME}) (?:[^\\\\]|\\\\[\\\\n])*$`).exec(line);
    if (help) {
      if (helps.has(help[1]!)) throw new Error(`HELP given twice: ${line}`);
      helps.add(help[1]!);
      continue;
    }
    const m = SAMPLE.exec(line);
    if (!m) throw new Error(`not Prometheus text: ${JSON.stringify(line)}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      if (l[1]! in labels) throw new Error(`label given twice: ${line}`);
      labels[l[1]!] = l[2]!.replace(/\\(.)/g, (_, c) => (c === "n" ? "\n" : c));
    }
    const name = m[1]!;
    const family = types.has(name) ? name : name.replace(/_(bucket|sum|count)$/, "");
    if (!types.has(family)) throw new Error(`sample before (or without) its TYPE: ${line}`);
    if (family !== name && types.get(family) !== "histogram" && types.get(family) !== "summary") throw new Error(`suffix on a ${types.get(family)}: ${line}`);
    samples.push({ name, labels, value: Number(m[3]) });
  }
  return { samples, types };
}

const scrape = async (headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` }): Promise<Parsed> => {
  const res = await fetch(`${server.url}/metrics`, { headers });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
  return parseProm(await res.text());
};
const value = (s: Sample[], name: string, labels: Record<string, string> = {}) =>
  s.filter((x) => x.name === name && Object.entries(labels).every(([k, v]) => x.labels[k] === v)).reduce((n, x) => n + x.value, 0);

/** Every value a `route` label may take: patterns, never paths. */
const ROUTE_LABELS = new Set([
  ...REST_ROUTES.map((r) => `/api/v1${r.path}`),
  "/api/v1/openapi.json",
  "/api/v1/docs",
  "/api/v1 (no route)",
  "/health",
  "/metrics",
  "/graphql",
  "/trpc",
  "console",
]);

describe("/metrics", () => {
  test("needs its token when HONE_METRICS_TOKEN is set: 401 in the REST error envelope without it or with another", async () => {
    for (const authorization of [undefined, "Bearer nope", `Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(0, -1)}`, TOKEN, `Bearer ${t.project.apiKey}`]) {
      const res = await fetch(`${server.url}/metrics`, { headers: authorization ? { authorization } : {} });
      expect(res.status).toBe(401);
      const body = (await res.json()) as { message: string; code: string; issues: unknown[] };
      expect(body).toEqual({ message: expect.stringContaining("HONE_METRICS_TOKEN"), code: "UNAUTHORIZED", issues: [] });
    }
    await scrape();
    // Scheme names are case-insensitive (RFC 9110), as for API keys.
    await scrape({ authorization: `bearer ${TOKEN}` });
  });

  test("is open on the listening address when HONE_METRICS_TOKEN is unset", async () => {
    const open = createApp({ ...t.deps, config: { ...t.deps.config, metricsToken: undefined } });
    const res = await open.handle(new Request("http://localhost/metrics"));
    expect(res.status).toBe(200);
    expect(parseProm(await res.text()).types.get("hone_http_requests_total")).toBe("counter");
  });

  test("parses as Prometheus text; requests by route pattern and status, upstream latency and errors by provider, cache, logs, jobs, pool, process", async () => {
    const before = await scrape();
    const client = openAiClient(server.url, t.project.apiKey);
    const ask = { model: "gpt-4o-mini", messages: [{ role: "user" as const, content: "hi" }] };
    await client.chat.completions.create(ask);
    await client.chat.completions.create(ask, { headers: { "op-cache": "readWrite" } });
    await client.chat.completions.create(ask, { headers: { "op-cache": "readWrite" } });
    const stream = await client.chat.completions.create({ ...ask, stream: true });
    for await (const _ of stream);
    await client.chat.completions.create({ ...ask, model: "error-500" }).catch(() => {});
    await fetch(`${server.url}/api/v1/datasets/ds_nope1/export`, { headers: { authorization: `Bearer ${t.project.apiKey}` } });
    await fetch(`${server.url}/api/v1/datasets/ds_nope2/export`, { headers: { authorization: `Bearer ${t.project.apiKey}` } });
    await fetch(`${server.url}/api/v1/models/some-slug-42`, { headers: { authorization: `Bearer ${t.project.apiKey}` } });
    await fetch(`${server.url}/api/v1/no/such/thing/123`, { headers: { authorization: `Bearer ${t.project.apiKey}` } });
    await fetch(`${server.url}/trpc/logs.list?input=%7B%7D`);
    await t.deps.logWriter.flush();
    const { samples, types } = await scrape();

    expect(types.get("hone_http_requests_total")).toBe("counter");
    expect(types.get("hone_http_request_duration_seconds")).toBe("histogram");
    expect(types.get("hone_upstream_duration_seconds")).toBe("histogram");
    expect(types.get("hone_upstream_errors_total")).toBe("counter");
    expect(types.get("hone_log_queue_depth")).toBe("gauge");
    const delta = (name: string, labels: Record<string, string>) => value(samples, name, labels) - value(before.samples, name, labels);

    const route = "/api/v1/chat/completions";
    expect(delta("hone_http_requests_total", { route, method: "POST", status: "200" })).toBe(4);
    expect(delta("hone_http_requests_total", { route, status: "500" })).toBe(1);
    expect(delta("hone_http_request_duration_seconds_count", { route, method: "POST" })).toBe(5);
    expect(value(samples, "hone_http_requests_total", { route: "/api/v1/datasets/:datasetId/export", status: "404" })).toBe(2);
    expect(value(samples, "hone_http_requests_total", { route: "/api/v1/models/:modelSlug", status: "404" })).toBe(1);
    expect(value(samples, "hone_http_requests_total", { route: "/api/v1 (no route)", status: "404" })).toBe(1);
    expect(value(samples, "hone_http_requests_total", { route: "/trpc" })).toBe(1);
    expect(value(samples, "hone_http_requests_total", { route: "/metrics", status: "200" })).toBeGreaterThanOrEqual(1);
    expect(value(samples, "hone_http_requests_total", { route: "/metrics", status: "401" })).toBeGreaterThanOrEqual(6);
    // No raw path (an id) ever becomes a label: every route label is a pattern.
    for (const s of samples) if ("route" in s.labels) expect(ROUTE_LABELS.has(s.labels.route!)).toBe(true);
    expect(samples.some((s) => Object.values(s.labels).some((v) => /ds_nope|some-slug|123|logs\.list/.test(v)))).toBe(false);

    // A histogram's buckets are cumulative and end at +Inf = _count.
    const buckets = samples.filter((s) => s.name === "hone_http_request_duration_seconds_bucket" && s.labels.route === route && s.labels.method === "POST");
    expect(buckets.at(-1)!.labels.le).toBe("+Inf");
    expect(buckets.map((b) => b.value)).toEqual([...buckets.map((b) => b.value)].sort((a, b) => a - b));
    expect(buckets.at(-1)!.value).toBe(value(samples, "hone_http_request_duration_seconds_count", { route, method: "POST" }));
    expect(value(samples, "hone_http_request_duration_seconds_sum", { route, method: "POST" })).toBeGreaterThan(0);

    // Four calls reached OpenAI (the cache hit did not), one failed.
    expect(delta("hone_upstream_duration_seconds_count", { provider: "openai" })).toBe(4);
    expect(value(samples, "hone_upstream_duration_seconds_bucket", { provider: "openai", le: "+Inf" })).toBe(4);
    expect(delta("hone_upstream_errors_total", { provider: "openai" })).toBe(1);
    expect(delta("hone_cache_lookups_total", { result: "miss" })).toBe(1);
    expect(delta("hone_cache_lookups_total", { result: "hit" })).toBe(1);
    expect(delta("hone_logs_written_total", {})).toBe(5);
    expect(value(samples, "hone_logs_dropped_total")).toBe(0);
    expect(value(samples, "hone_log_queue_depth")).toBe(0);
    expect(value(samples, "hone_log_queue_oldest_age_seconds")).toBe(0);
    expect(samples.filter((s) => s.name === "hone_jobs").map((s) => s.labels.status)).toEqual(["queued", "running"]);
    expect(value(samples, "hone_scrape_error")).toBe(0);
    const kind = t.deps.database.kind;
    expect(value(samples, "hone_db_pool_max", { driver: kind })).toBe(kind === "pglite" ? 1 : t.deps.config.dbPoolSize);
    expect(value(samples, "hone_process_resident_memory_bytes")).toBeGreaterThan(0);
    expect(value(samples, "hone_process_uptime_seconds")).toBeGreaterThanOrEqual(0);
    expect(value(samples, "hone_process_start_time_seconds")).toBeGreaterThan(1_600_000_000);
  });

  test("job counts come from the jobs table", async () => {
    const at = new Date();
    const rows = [
      { id: newId("job"), status: "queued" },
      { id: newId("job"), status: "queued" },
      { id: newId("job"), status: "running" },
      { id: newId("job"), status: "done" },
    ];
    for (const r of rows) {
      // A kind no worker runs, and no worker runs in this test app: the rows stay as they are.
      await t.deps.database.db.execute(
        sql`insert into jobs (id, kind, payload, status, run_at) values (${r.id}, 'metrics-test', '{}'::jsonb, ${r.status}, ${at.toISOString()}::timestamptz)`,
      );
    }
    try {
      const { samples } = await scrape();
      expect(value(samples, "hone_jobs", { status: "queued" })).toBe(2);
      expect(value(samples, "hone_jobs", { status: "running" })).toBe(1);
      expect(samples.some((s) => s.name === "hone_jobs" && s.labels.status === "done")).toBe(false);
    } finally {
      await t.deps.database.db.execute(sql`delete from jobs where kind = 'metrics-test'`);
    }
  });

  test("a slow database never fails a scrape: the job counts are left out and hone_scrape_error is 1", async () => {
    const metrics = createMetrics({ database: t.deps.database, logWriter: () => t.deps.logWriter, dbPoolSize: 3, dbDeadlineMs: 200 });
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => (locked = r));
    // Holds the jobs table (on PGlite, the whole database) until released.
    const holder = t.deps.database.db.transaction(async (tx) => {
      await tx.execute(sql`lock table jobs in access exclusive mode`);
      locked();
      await released;
    });
    await isLocked;
    try {
      const started = performance.now();
      const { samples } = parseProm(await metrics.render());
      expect(performance.now() - started).toBeLessThan(1_000);
      expect(value(samples, "hone_scrape_error")).toBe(1);
      expect(samples.some((s) => s.name === "hone_jobs")).toBe(false);
      // The rest is there.
      expect(samples.some((s) => s.name === "hone_log_queue_depth")).toBe(true);
    } finally {
      release();
      await holder;
    }
    // Released, the next scrapes read the counts again (the first may still meet a busy pool on a loaded machine).
    const samples = await waitFor(
      async () => {
        const scraped = parseProm(await metrics.render()).samples;
        return value(scraped, "hone_scrape_error") === 0 ? scraped : null;
      },
      { timeoutMs: 5_000, message: "a scrape with the job counts after the lock was released" },
    );
    expect(samples.filter((s) => s.name === "hone_jobs").length).toBe(2);
  });

  test("label values are escaped per the format (backslash, double quote, newline)", async () => {
    const metrics = createMetrics({ database: t.deps.database, logWriter: () => t.deps.logWriter, dbPoolSize: 3 });
    const odd = 'a "quoted" \\ back\nslash';
    metrics.upstream(odd, 0.2, 502);
    metrics.http("/health", "BREW", 200, 0.001);
    const text = await metrics.render();
    expect(text).toContain('hone_upstream_errors_total{provider="a \\"quoted\\" \\\\ back\\nslash"} 1');
    const { samples } = parseProm(text);
    expect(value(samples, "hone_upstream_errors_total", { provider: odd })).toBe(1);
    expect(value(samples, "hone_upstream_duration_seconds_bucket", { provider: odd, le: "0.25" })).toBe(1);
    expect(value(samples, "hone_upstream_duration_seconds_bucket", { provider: odd, le: "0.1" })).toBe(0);
    // A method outside the usual ones is one series, not one per token a client invents.
    expect(value(samples, "hone_http_requests_total", { route: "/health", method: "OTHER" })).toBe(1);
  });
});

function logRecord(projectId: string, id = newId("log")): NewRequestLog {
  return {
    id,
    projectId,
    source: "gateway",
    provider: "openai",
    model: "m",
    completionId: null,
    statusCode: 200,
    errorMessage: null,
    requestedAt: new Date(),
    receivedAt: new Date(),
    durationMs: 1,
    inputTokens: 1,
    outputTokens: 1,
    costUsd: 0,
    cacheHit: false,
    tags: {},
    reqPayload: { messages: [{ role: "user", content: "q" }] },
    respPayload: { id: "c" },
  };
}

describe("/health", () => {
  type Health = { status: string; logQueue: { depth: number; oldestAgeMs: number | null; written: number; dropped: number } };

  test("reports the log backlog, without auth", async () => {
    const res = await fetch(`${server.url}/health`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Health;
    expect(body).toEqual({ status: "ok", logQueue: { depth: 0, oldestAgeMs: null, written: expect.any(Number), dropped: 0 } });
  });

  test("answers 503 degraded when half the log queue waits", async () => {
    // A writer whose database never answers: the first batch hangs, the rest queue behind it.
    const logger = createLogger("silent");
    const stuck = recordWriter(createRowWriter({ logger, insertRows: () => new Promise(() => {}) }, { maxDelayMs: 1 }), logger);
    // Deps of its own, so that its metrics read this writer too.
    const { metrics: _, ...parts } = t.deps;
    const app = createApp(createDeps({ ...parts, logWriter: stuck }));
    for (let i = 0; i < 50_000; i++) stuck.enqueue(logRecord(t.project.projectId));
    let res = await app.handle(new Request("http://localhost/health"));
    expect(res.status).toBe(200);
    expect(((await res.json()) as Health).logQueue.depth).toBe(50_000);
    stuck.enqueue(logRecord(t.project.projectId));
    res = await app.handle(new Request("http://localhost/health"));
    expect(res.status).toBe(503);
    const body = (await res.json()) as Health;
    expect(body.status).toBe("degraded");
    expect(body.logQueue.depth).toBe(50_001);
    expect(body.logQueue.oldestAgeMs).toBeGreaterThanOrEqual(0);
    const { samples } = parseProm(await (await app.handle(new Request("http://localhost/metrics", { headers: { authorization: `Bearer ${TOKEN}` } }))).text());
    expect(value(samples, "hone_log_queue_depth")).toBe(50_001);
  });

  test("answers 503 degraded when the oldest queued log has waited over a minute", async () => {
    const real = t.deps.logWriter;
    let oldestAgeMs = 59_000;
    const slow: LogWriter = { ...real, stats: () => ({ depth: 3, oldestAgeMs, written: 0, dropped: 0 }) };
    const app = createApp({ ...t.deps, logWriter: slow });
    expect((await app.handle(new Request("http://localhost/health"))).status).toBe(200);
    oldestAgeMs = 61_000;
    const res = await app.handle(new Request("http://localhost/health"));
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ status: "degraded", logQueue: { depth: 3, oldestAgeMs: 61_000, written: 0, dropped: 0 } });
  });
});

describe("the log-writer thread's backlog", () => {
  test("rows the thread drops leave the backlog and are counted as dropped", async () => {
    const own = await createOwnPostgresDatabase();
    const database = await openDatabase({ databaseUrl: own.url, dataDir: "", dbPoolSize: 2 }, { migrate: false });
    try {
      await migrateDatabase(database);
      const logger = createLogger("silent");
      const writer = createThreadedLogWriter({ databaseUrl: own.url, logLevel: "silent", logFlushMs: 5 }, logger, createLogWriter({ database, logger }));
      const twice = logRecord("prj_thread");
      // A row this database refuses (its own check): the thread drops it. The same id twice is
      // stored once (a batch written again after a lost commit does no harm).
      await database.db.execute(sql`alter table request_logs add constraint refuse_some check (model <> 'refused')`);
      const bad = { ...logRecord("prj_thread"), model: "refused" };
      for (const r of [logRecord("prj_thread"), twice, bad, twice, logRecord("prj_thread")]) writer.enqueue(r);
      await writer.flush();
      expect(writer.stats()).toEqual({ depth: 0, oldestAgeMs: null, written: 4, dropped: 1 });
      const stored = resultRows<{ n: number }>(await database.db.execute(sql`select count(*)::int as n from request_logs where project_id = 'prj_thread'`));
      expect(Number(stored[0]!.n)).toBe(3);
      await writer.close();
    } finally {
      await database.close();
      await own.drop();
    }
  });
});
