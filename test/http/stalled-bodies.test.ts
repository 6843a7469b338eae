import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { systemCtx } from "../../src/domain/context";
import { setProviderKey } from "../../src/domain/projects";
import { createTestApp, openAiClient, serve, type TestApp } from "../helpers/app";
import { createDataset } from "../helpers/factories";
import { startFakeOpenAI, type FakeUpstream } from "../helpers/fake-upstreams";
import type { RestOutput } from "../helpers/rest";

// A request body that stops arriving is answered 408 after HONE_BODY_IDLE_TIMEOUT_MS and its
// connection closed (before, 300 stalled uploads were all still held 75 s later); a stream whose
// provider is silent gets SSE comments so the client's connection stays alive.

let t: TestApp;
let server: { url: string; stop(): Promise<void> };
let fake: FakeUpstream;
let port: number;
let datasetId: string;

beforeAll(async () => {
  fake = startFakeOpenAI({ apiKey: "sk-fake-stall-0001" });
  t = await createTestApp({
    // 128 imports of the project may run at once: the uploads below all reach the body reader (the
    // fair share's queue and 429s are test/http/fair-share.test.ts's).
    env: {
      HONE_BODY_IDLE_TIMEOUT_MS: "300",
      HONE_SSE_KEEPALIVE_MS: "100",
      OPENAI_BASE_URL: `${fake.url}/v1`,
      HONE_LOG_LEVEL: "error",
      HONE_PROJECT_CONCURRENCY: "128",
    },
  });
  await setProviderKey({ ...systemCtx(t.deps, "test"), projectId: t.project.projectId }, { provider: "openai", apiKey: "sk-fake-stall-0001" });
  server = serve(t.app);
  port = Number(new URL(server.url).port);
  datasetId = await createDataset(t, { name: "stalls" });
});
afterAll(async () => {
  await server.stop();
  await fake.stop();
  await t.close();
});

/** Sends the headers and the first bytes of a body, then nothing: what comes back, and whether the server closed. */
async function stall(path: string, opts: { type?: string; length?: number | null; first?: string } = {}) {
  let answer = "";
  let closed = false;
  const started = performance.now();
  const socket = await Bun.connect({
    hostname: "127.0.0.1",
    port,
    socket: {
      data(_s, d) {
        answer += new TextDecoder().decode(d);
      },
      close() {
        closed = true;
      },
      error() {},
    },
  });
  const length = opts.length === null ? "Transfer-Encoding: chunked" : `Content-Length: ${opts.length ?? 1000}`;
  const first = opts.first ?? "{";
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${t.project.apiKey}\r\n` +
      `Content-Type: ${opts.type ?? "application/json"}\r\n${length}\r\n\r\n${opts.length === null ? `${first.length.toString(16)}\r\n${first}\r\n` : first}`,
  );
  for (let i = 0; i < 60 && !closed; i++) await Bun.sleep(25);
  socket.end();
  const status = Number(answer.split(" ")[1]);
  const body = answer.includes("\r\n\r\n") ? answer.slice(answer.indexOf("\r\n\r\n") + 4) : "";
  return { status, body, closed, ms: performance.now() - started };
}

describe("stalled request bodies", () => {
  test("every way in answers 408 within the idle timeout and closes the connection", async () => {
    const cases: [string, Parameters<typeof stall>[1]][] = [
      ["/api/v1/report", {}],
      ["/api/v1/chat/completions", {}],
      ["/api/v1/report", { length: 5_000_000 }],
      ["/api/v1/report", { length: null }],
      ["/graphql", {}],
      ["/trpc/datasets.create", {}],
      [`/api/v1/datasets/${datasetId}/import`, { type: "application/x-ndjson", first: '{"messages":' }],
      [`/api/v1/datasets/${datasetId}/import`, { type: "multipart/form-data; boundary=b", first: "--b\r\n" }],
    ];
    for (const [path, opts] of cases) {
      const r = await stall(path, opts);
      expect({ path, opts, status: r.status, closed: r.closed }).toEqual({ path, opts, status: 408, closed: true });
      expect(r.body).toContain("HONE_BODY_IDLE_TIMEOUT_MS");
      expect(r.ms).toBeLessThan(1_200);
    }
  });

  test("100 stalled uploads at once are all released; the server keeps serving", async () => {
    const started = performance.now();
    const all = await Promise.all(Array.from({ length: 100 }, () => stall(`/api/v1/datasets/${datasetId}/import`, { type: "application/x-ndjson" })));
    expect(all.every((r) => r.status === 408 && r.closed)).toBe(true);
    expect(performance.now() - started).toBeLessThan(3_000);
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
  });

  test("a request refused before its body was read (an unknown dataset) does not keep the connection", async () => {
    const r = await stall("/api/v1/datasets/ds_missing/import", { type: "application/x-ndjson" });
    expect(r.status).toBe(404);
    expect(r.closed).toBe(true);
    expect(r.ms).toBeLessThan(300);
  });

  test("a slow body that keeps arriving is not cut off", async () => {
    const lines = Array.from(
      { length: 6 },
      (_, i) =>
        `${JSON.stringify({
          messages: [
            { role: "user", content: `q${i}` },
            { role: "assistant", content: "a" },
          ],
        })}\n`,
    );
    let i = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(c) {
        if (i === lines.length) return c.close();
        await Bun.sleep(150); // under the 300 ms idle limit each time, 900 ms in all
        c.enqueue(new TextEncoder().encode(lines[i++]));
      },
    });
    const res = await fetch(`${server.url}/api/v1/datasets/${datasetId}/import`, {
      method: "POST",
      headers: { authorization: `Bearer ${t.project.apiKey}`, "content-type": "application/x-ndjson" },
      body,
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as RestOutput<"POST /datasets/:datasetId/entries">).entries_created).toBe(6);
  });
});

describe("silent providers", () => {
  test("a stream whose provider is silent gets keep-alive comments; the OpenAI SDK reads it unchanged", async () => {
    const raw = await fetch(`${server.url}/api/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${t.project.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "slow-450", stream: true, messages: [{ role: "user", content: "think" }] }),
    });
    const text = await raw.text();
    expect(text.split(": keep-alive").length - 1).toBeGreaterThanOrEqual(2);
    expect(text).toContain("data: [DONE]");
    const client = openAiClient(server.url, t.project.apiKey);
    const stream = await client.chat.completions.create({ model: "slow-450", stream: true, messages: [{ role: "user", content: "think" }] });
    let content = "";
    for await (const chunk of stream) content += chunk.choices[0]?.delta?.content ?? "";
    expect(content).toContain("think");
  });

  test("a non-streamed call that waits on its provider longer than the server's idle timeout is answered", async () => {
    // A server whose idle timeout (1 s) is shorter than the provider's answer (2.5 s), as Bun's 255 s
    // cap is shorter than HONE_UPSTREAM_TIMEOUT_MS (10 min): the gateway lifts it for its calls.
    const short = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      idleTimeout: 1,
      fetch: (r, s) => t.app.handle(r, s.requestIP(r)?.address, () => s.timeout(r, 0)),
    });
    try {
      const res = await fetch(`http://127.0.0.1:${short.port}/api/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${t.project.apiKey}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "slow-2500", messages: [{ role: "user", content: "take your time" }] }),
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as RestOutput<"POST /chat/completions">).choices[0]!.message.content).toContain("take your time");
    } finally {
      short.stop(true);
    }
  }, 20_000);
});
