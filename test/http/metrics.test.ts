import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, openAiClient, serve, storeProviderKey, type TestApp } from "../helpers/app";
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

/** A strict reader of the text format: every line is a comment (# HELP / # TYPE) or `name{labels} value`. */
function parseProm(text: string): { samples: Sample[]; types: Map<string, string> } {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split("\n")) {
    if (!line) continue;
    const type = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$/.exec(line);
    if (type) {
      types.set(type[1]!, type[2]!);
      continue;
    }
    if (/^# HELP [a-zA-Z_:][a-zA-Z0-9_:]* /.test(line)) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (-?[0-9.e+-]+|NaN|\+Inf|-Inf)$/.exec(line);
    if (!m) throw new Error(`not Prometheus text: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[3] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[l[1]!] = l[2]!.replace(/\\(.)/g, (_, c) => (c === "n" ? "\n" : c));
    samples.push({ name: m[1]!, labels, value: Number(m[4]) });
  }
  return { samples, types };
}

const scrape = async () => {
  const res = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("text/plain; version=0.0.4");
  return parseProm(await res.text());
};
const value = (s: Sample[], name: string, labels: Record<string, string> = {}) =>
  s.filter((x) => x.name === name && Object.entries(labels).every(([k, v]) => x.labels[k] === v)).reduce((n, x) => n + x.value, 0);

describe("/metrics", () => {
  test("needs its token when HONE_METRICS_TOKEN is set", async () => {
    expect((await fetch(`${server.url}/metrics`)).status).toBe(401);
    const wrong = await fetch(`${server.url}/metrics`, { headers: { authorization: "Bearer nope" } });
    expect(wrong.status).toBe(401);
    expect(((await wrong.json()) as { code: string }).code).toBe("UNAUTHORIZED");
    // A project key is not the metrics token.
    expect((await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${t.project.apiKey}` } })).status).toBe(401);
  });

  test("parses as Prometheus text; requests by route pattern, upstream latency by provider, cache, logs, jobs, pool", async () => {
    const before = await scrape();
    const client = openAiClient(server.url, t.project.apiKey);
    await client.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] });
    await client.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }, { headers: { "op-cache": "readWrite" } });
    await client.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }, { headers: { "op-cache": "readWrite" } });
    await client.chat.completions.create({ model: "error-500", messages: [{ role: "user", content: "hi" }] }).catch(() => {});
    await fetch(`${server.url}/api/v1/datasets/ds_nope/export`, { headers: { authorization: `Bearer ${t.project.apiKey}` } });
    await t.deps.logWriter.flush();
    const { samples, types } = await scrape();
    expect(types.get("hone_http_requests_total")).toBe("counter");
    expect(types.get("hone_upstream_duration_seconds")).toBe("histogram");
    const route = "/api/v1/chat/completions";
    expect(
      value(samples, "hone_http_requests_total", { route, status: "200" }) - value(before.samples, "hone_http_requests_total", { route, status: "200" }),
    ).toBe(3);
    expect(value(samples, "hone_http_requests_total", { route: "/api/v1/datasets/:datasetId/export", status: "404" })).toBe(1);
    // No raw path (an id) ever becomes a label.
    expect(samples.some((s) => Object.values(s.labels).some((v) => v.includes("ds_nope")))).toBe(false);
    expect(value(samples, "hone_upstream_duration_seconds_count", { provider: "openai" })).toBe(3);
    expect(value(samples, "hone_upstream_errors_total", { provider: "openai" })).toBe(1);
    expect(value(samples, "hone_cache_lookups_total", { result: "miss" })).toBe(1);
    expect(value(samples, "hone_cache_lookups_total", { result: "hit" })).toBe(1);
    expect(value(samples, "hone_logs_written_total")).toBeGreaterThanOrEqual(4);
    expect(value(samples, "hone_log_queue_depth")).toBe(0);
    expect(samples.some((s) => s.name === "hone_jobs" && s.labels.status === "queued")).toBe(true);
    expect(value(samples, "hone_db_pool_max")).toBeGreaterThanOrEqual(1);
    expect(value(samples, "hone_scrape_error")).toBe(0);
    expect(value(samples, "hone_process_resident_memory_bytes")).toBeGreaterThan(0);
  });
});

describe("/health", () => {
  test("reports the log backlog", async () => {
    const res = await fetch(`${server.url}/health`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { status: string; logQueue: { depth: number; oldestAgeMs: number | null; written: number; dropped: number } };
    expect(body.status).toBe("ok");
    expect(body.logQueue).toMatchObject({ depth: 0, oldestAgeMs: null, dropped: 0 });
    expect(body.logQueue.written).toBeGreaterThanOrEqual(0);
  });
});
