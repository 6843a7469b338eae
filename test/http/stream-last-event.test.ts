import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, serve, storeProviderKey, type TestApp } from "../helpers/app";
import { latestLog } from "../helpers/logs";
import { waitFor } from "../helpers/wait-for";

// A passed-through stream is over for the client at its last event (message_stop, response.completed).
// The upstream's body normally ends right after it and the request is released, not aborted; an
// upstream that keeps its body open past the last event has it aborted after a second, and the
// client never waits for it.

const KEY = "sk-ant-last-event";
let t: TestApp;
let server: { url: string; stop(): Promise<void> };
let upstream: ReturnType<typeof Bun.serve>;
/** Per call (by its user message): when the upstream saw its connection aborted, ms after the last event. */
const abortedAfter = new Map<string, number>();

const sse = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
const events = (text: string) =>
  [
    sse("message_start", {
      type: "message_start",
      message: {
        id: "msg_1",
        type: "message",
        role: "assistant",
        model: "claude-sonnet-4-5",
        content: [],
        stop_reason: null,
        usage: { input_tokens: 3, output_tokens: 0 },
      },
    }),
    sse("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }),
    sse("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text } }),
    sse("content_block_stop", { type: "content_block_stop", index: 0 }),
    sse("message_delta", { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 2 } }),
    sse("message_stop", { type: "message_stop" }),
  ].join("");

beforeAll(async () => {
  upstream = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const body = (await req.json()) as { messages: { content: string }[] };
      const asked = body.messages[0]!.content;
      const encoder = new TextEncoder();
      let sentAt = 0;
      req.signal.addEventListener("abort", () => abortedAfter.set(asked, performance.now() - sentAt));
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(encoder.encode(events(`answer to ${asked}`)));
          sentAt = performance.now();
          // "open": the body goes on after message_stop (nothing more is ever sent); else it ends.
          if (asked !== "open") controller.close();
        },
      });
      return new Response(stream, { headers: { "content-type": "text/event-stream" } });
    },
  });
  t = await createTestApp({ env: { ANTHROPIC_BASE_URL: `http://127.0.0.1:${upstream.port}` } });
  await storeProviderKey(t, "anthropic", KEY);
  server = serve(t.app);
});
afterAll(async () => {
  await server.stop();
  upstream.stop(true);
  await t.close();
});

async function call(content: string) {
  const started = performance.now();
  const res = await fetch(`${server.url}/api/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": t.project.apiKey, "anthropic-version": "2023-06-01" },
    body: JSON.stringify({ model: "claude-sonnet-4-5", max_tokens: 16, stream: true, messages: [{ role: "user", content }] }),
  });
  const text = await res.text();
  return { status: res.status, text, ms: performance.now() - started };
}

describe("the end of a passed-through stream", () => {
  test("an upstream whose body ends after the last event: the client gets it all; the request is not aborted; logged", async () => {
    const r = await call("closed");
    expect(r.status).toBe(200);
    expect(r.text).toContain("answer to closed");
    expect(r.text).toContain("event: message_stop");
    const log = await waitFor(() => latestLog(t));
    expect(log.statusCode).toBe(200);
    expect(JSON.stringify(log.body.respPayloadOriginal)).toContain("answer to closed");
    // The grace given to a body's end (a second, fixed in the code) must pass to show it is not aborted.
    await Bun.sleep(1_500);
    expect(abortedAfter.has("closed")).toBe(false);
  });

  test("an upstream that keeps its body open after the last event: the client is done at once; the request is aborted within the grace", async () => {
    const r = await call("open");
    expect(r.status).toBe(200);
    expect(r.text).toContain("answer to open");
    expect(r.text.trimEnd().endsWith('data: {"type":"message_stop"}')).toBe(true);
    // The client's stream ended without waiting for the upstream's body.
    expect(r.ms).toBeLessThan(900);
    await waitFor(() => abortedAfter.has("open"), { timeoutMs: 5_000 });
    // Aborted after the grace given to the body's end (a second), not left open.
    expect(abortedAfter.get("open")!).toBeGreaterThan(900);
    expect(abortedAfter.get("open")!).toBeLessThan(4_000);
  });
});
