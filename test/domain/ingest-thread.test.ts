// OTLP ingest on its own thread (what a Postgres server runs). It needs a Postgres server: its own
// database on the one the suite runs against, or on the local server when the suite runs on
// PGlite. The app around it is an ordinary test app on that database, serving over HTTP.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startIngestThread } from "../../src/background/ingest-thread";
import { openDatabase, type Database } from "../../src/db/client";
import { createTestApp, serve, type TestApp } from "../helpers/app";
import { createOwnPostgresDatabase } from "../helpers/db";
import { trpcClient } from "../helpers/trpc";
import { waitFor } from "../helpers/wait-for";

let url: string;
let drop: () => Promise<void>;
let database: Database;
let t: TestApp;
let server: { url: string; stop(): Promise<void> };
let project: { projectId: string; apiKey: string };

beforeAll(async () => {
  ({ url, drop } = await createOwnPostgresDatabase());
  database = await openDatabase({ databaseUrl: url, dataDir: "", dbPoolSize: 4 });
  t = await createTestApp({ deps: { database } });
  server = serve(t.app);
  project = await t.createProject("ingest-thread");
});

afterAll(async () => {
  await server.stop();
  await t.close();
  await database.close();
  await drop();
});

/**
 * What the server hands the thread: its own environment. HONE_OTLP_MAX_SPANS=3 here only: an
 * export of more spans is cut to three by whoever decodes it, which tells the thread's work from
 * this thread's (the test app keeps the default).
 */
const threadEnv = (over: Record<string, string> = {}) => ({
  DATABASE_URL: url,
  HONE_SECRET_KEY: Buffer.from(t.deps.secretKey).toString("base64"),
  HONE_LOG_LEVEL: "warn",
  HONE_OTLP_MAX_SPANS: "3",
  ...over,
});

const hex = (n: number) => Buffer.from(crypto.getRandomValues(new Uint8Array(n))).toString("hex");

/** An OTLP JSON export of `n` model-call spans in one new trace. */
function exportOf(n: number): { traceId: string; body: string } {
  const traceId = hex(16);
  const now = BigInt(Date.now()) * 1_000_000n;
  const spans = Array.from({ length: n }, (_, i) => ({
    traceId,
    spanId: hex(8),
    name: "chat gpt-4o-mini",
    kind: 3,
    startTimeUnixNano: String(now + BigInt(i) * 1_000_000n),
    endTimeUnixNano: String(now + BigInt(i + 1) * 1_000_000n),
    attributes: [
      { key: "gen_ai.operation.name", value: { stringValue: "chat" } },
      { key: "gen_ai.provider.name", value: { stringValue: "openai" } },
      { key: "gen_ai.request.model", value: { stringValue: "gpt-4o-mini" } },
      { key: "gen_ai.usage.input_tokens", value: { intValue: "40" } },
      { key: "gen_ai.usage.output_tokens", value: { intValue: "8" } },
      { key: "gen_ai.input.messages", value: { stringValue: JSON.stringify([{ role: "user", parts: [{ type: "text", content: `question ${i}` }] }]) } },
    ],
  }));
  return { traceId, body: JSON.stringify({ resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: "t" }, spans }] }] }) };
}

async function send(body: string) {
  const res = await fetch(`${server.url}/api/v1/otel/v1/traces`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${project.apiKey}` },
    body,
  });
  return { status: res.status, body: (await res.json()) as { partialSuccess?: { rejectedSpans: number; errorMessage: string } } };
}

const logsOf = async (traceId: string) => (await trpcClient(t, project.apiKey).logs.list.query({ filter: { traceId }, first: 20 })).logs;
const logged = (text: string) => t.logLines.some((l) => l.includes(text));

describe("the ingest thread", () => {
  test("stores what the receiver hands it, by its own settings; after stop, exports are stored on this thread again", async () => {
    const ingest = startIngestThread(t.deps, threadEnv());
    try {
      await waitFor(() => t.deps.traceIngest.thread, { message: "the ingest thread to be ready" });
      const a = exportOf(5);
      const r = await send(a.body);
      // Decoded on the thread (at most 3 spans there): two rejected, three calls stored.
      expect(r.status).toBe(200);
      expect(r.body.partialSuccess?.rejectedSpans).toBe(2);
      const logs = await logsOf(a.traceId);
      expect(logs).toHaveLength(3);
      for (const l of logs) expect(l).toMatchObject({ source: "otel", inputTokens: 40, outputTokens: 8 });
      // A key limited to some models reports through the thread as any key (its grant crosses with it).
      const limited = (await trpcClient(t, project.apiKey).apiKeys.create.mutate({ name: "otel-limited", allowedModels: ["openai:gpt-4o-mini"] })) as {
        apiKey: string;
      };
      const viaLimited = exportOf(1);
      const res = await fetch(`${server.url}/api/v1/otel/v1/traces`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-hone-key": limited.apiKey },
        body: viaLimited.body,
      });
      expect(res.status).toBe(200);
      expect(await logsOf(viaLimited.traceId)).toHaveLength(1);
      // Many exports at once: each answered, each stored once.
      const many = Array.from({ length: 12 }, () => exportOf(3));
      const answers = await Promise.all(many.map((m) => send(m.body)));
      expect(answers.map((x) => x.status)).toEqual(many.map(() => 200));
      for (const m of many) expect(await logsOf(m.traceId)).toHaveLength(3);
      // What the thread records reaches this thread's /metrics: a call with no tokens is unpriced.
      const unpriced = async () => Number(/^hone_logs_unpriced_total\{reason="no_usage"\} (\d+)$/m.exec(await t.deps.metrics.render())?.[1] ?? 0);
      const before = await unpriced();
      const bare = exportOf(1);
      await send(bare.body.replace(/\{"key":"gen_ai\.usage\.(input|output)_tokens","value":\{"intValue":"\d+"\}\},?/g, ""));
      expect(await unpriced()).toBe(before + 1);
      // A bad body is the same 400 from the thread as from here.
      const bad = await send('{"resourceSpans": 7}');
      expect(bad.status).toBe(400);
      expect((bad.body as unknown as { message: string }).message).toContain("not an OTLP trace export");
    } finally {
      await ingest.stop();
    }
    expect(t.deps.traceIngest.thread).toBeNull();
    const b = exportOf(5);
    const r = await send(b.body);
    expect(r.body.partialSuccess).toBeUndefined();
    expect(await logsOf(b.traceId)).toHaveLength(5);
    expect(logged("traces are now stored on the main thread")).toBe(false);
  });

  test("backpressure: past 256 exports waiting for the thread, a 429 with Retry-After; what waited is stored", async () => {
    const ingest = startIngestThread(t.deps, threadEnv({ HONE_OTLP_CONCURRENCY: "1" }));
    try {
      const thread = await waitFor(() => t.deps.traceIngest.thread, { message: "the ingest thread to be ready" });
      const ctx = { deps: t.deps, actor: { type: "apiKey" as const, keyId: "k", projectId: project.projectId }, requestId: "r", projectId: project.projectId };
      const exports = Array.from({ length: 257 }, () => exportOf(1));
      const req = (body: string) => ({ bytes: new TextEncoder().encode(body), protobuf: false, encoding: "" });
      // Handed over at once, faster than one lane stores them: the 257th finds 256 waiting.
      const runs = exports.slice(0, 256).map((e) => thread.run(ctx, req(e.body)));
      const refused = await thread.run(ctx, req(exports[256]!.body)).then(
        () => null,
        (e: { code: string; details: { retryAfterSeconds: number } }) => e,
      );
      expect(refused).toMatchObject({ code: "RATE_LIMITED", details: { retryAfterSeconds: 1 } });
      expect(() => thread.room()).toThrow("busy storing traces");
      const results = await Promise.all(runs);
      expect(results.every((r) => r.rejected === 0 && r.logs === 1)).toBe(true);
      expect(() => thread.room()).not.toThrow();
      expect(await logsOf(exports[255]!.traceId)).toHaveLength(1);
      // A message that cannot cross to the thread is a 503 to retry, and waits for nothing.
      const odd = { ...ctx, actor: { ...ctx.actor, grant: { scopes: ["gateway"], allowedModels: null, extra: () => 0 } } } as unknown as typeof ctx;
      const lost = await thread.run(odd, req(exportOf(1).body)).then(
        () => null,
        (e: { code: string }) => e.code,
      );
      expect(lost).toBe("UNAVAILABLE");
      expect(() => thread.room()).not.toThrow();
    } finally {
      await ingest.stop();
    }
  });

  test("a thread that cannot start leaves exports to this thread, and says why", async () => {
    t.logLines.length = 0;
    const ingest = startIngestThread(t.deps, threadEnv({ DATABASE_URL: "postgres://hone@127.0.0.1:1/nowhere" }));
    try {
      await waitFor(() => logged("traces are now stored on the main thread"), { message: "the fallback to the main thread", timeoutMs: 20_000 });
      expect(t.logLines.find((l) => l.includes("traces are now stored on the main thread"))).toContain("ingest thread could not start");
      expect(t.deps.traceIngest.thread).toBeNull();
      const c = exportOf(4);
      expect((await send(c.body)).status).toBe(200);
      expect(await logsOf(c.traceId)).toHaveLength(4);
    } finally {
      await ingest.stop();
    }
  });
});
