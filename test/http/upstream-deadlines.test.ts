import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, serve, storeProviderKey, type TestApp } from "../helpers/app";
import { gqlData } from "../helpers/gql";
import { latestLog } from "../helpers/logs";
import { rest, type Rest } from "../helpers/rest";

// An upstream that answers with headers at once and then misbehaves in the body, which the
// shared fake upstreams never do. Behaviour by model name:
//   stall-body     a JSON body that stops after a few bytes and never ends
//   trickle-body   a JSON body that sends one space every 40 ms forever (never idle, never done)
//   stall-stream   an SSE stream that sends one chunk and then goes silent
// Each request records when its connection was closed by Hone.
type Call = { model: string; sentSome: Promise<void>; closed: Promise<void>; isClosed: () => boolean };

function startBodyStaller() {
  const calls: Call[] = [];
  const encoder = new TextEncoder();
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    async fetch(req) {
      const body = (await req.json()) as { model?: string };
      const model = String(body.model ?? "");
      let sent!: () => void;
      let close!: () => void;
      let closedFlag = false;
      const call: Call = {
        model,
        sentSome: new Promise<void>((r) => (sent = r)),
        closed: new Promise<void>((r) => {
          close = () => {
            closedFlag = true;
            r();
          };
        }),
        isClosed: () => closedFlag,
      };
      calls.push(call);
      req.signal.addEventListener("abort", () => close());
      let timer: ReturnType<typeof setInterval> | undefined;
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          if (model === "stall-stream") {
            const chunk = {
              id: "c1",
              object: "chat.completion.chunk",
              created: 1,
              model,
              choices: [{ index: 0, delta: { role: "assistant", content: "half" }, finish_reason: null }],
            };
            controller.enqueue(encoder.encode(`data: ${JSON.stringify(chunk)}\n\n`));
          } else {
            controller.enqueue(encoder.encode(`{"id":"chatcmpl-1","object":`));
          }
          if (model === "trickle-body") timer = setInterval(() => controller.enqueue(encoder.encode(" ")), 40);
          sent();
        },
        cancel() {
          clearInterval(timer);
          close();
        },
      });
      const type = model === "stall-stream" ? "text/event-stream" : "application/json";
      return new Response(stream, { headers: { "content-type": type } });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, calls, stop: () => server.stop(true) };
}

let upstream: ReturnType<typeof startBodyStaller>;
/** HONE_UPSTREAM_TIMEOUT_MS=300: the deadline is what ends these calls. */
let short: TestApp;
let shortApi: Rest;
/** A long upstream deadline, so only the client's abort or the judge's deadline can end a call. */
let long: TestApp;
let longApi: Rest;
let longServer: ReturnType<typeof serve>;

beforeAll(async () => {
  upstream = startBodyStaller();
  const base = { OPENAI_BASE_URL: `${upstream.url}/v1`, ANTHROPIC_BASE_URL: upstream.url };
  short = await createTestApp({ env: { ...base, HONE_UPSTREAM_TIMEOUT_MS: "300" } });
  long = await createTestApp({ env: { ...base, HONE_UPSTREAM_TIMEOUT_MS: "60000", HONE_JUDGE_TIMEOUT_MS: "300" } });
  for (const t of [short, long]) {
    await storeProviderKey(t, "openai", "sk-deadline-test-0001");
    await storeProviderKey(t, "anthropic", "sk-ant-deadline-test-0001");
  }
  longServer = serve(long.app);
  shortApi = rest(short);
  longApi = rest(long);
});
afterAll(async () => {
  await longServer.stop();
  await upstream.stop();
  await short.close();
  await long.close();
});

const ask = (model: string, extra: Record<string, unknown> = {}) => ({ model, messages: [{ role: "user", content: "x" }], ...extra });
const lastCall = () => upstream.calls.at(-1)!;

/** Resolves when p does, or fails the test after ms (a hang must not wait for the runner's timeout). */
async function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms)));
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

describe("HONE_UPSTREAM_TIMEOUT_MS covers the whole body of a non-streamed call", () => {
  test("headers then a stalled body: 504 UPSTREAM_TIMEOUT, and the upstream connection is closed", async () => {
    const started = performance.now();
    const res = await within(shortApi.fail("POST /chat/completions", { body: ask("stall-body") }), 5000, "the answer");
    expect(res.status).toBe(504);
    const body = res.body;
    expect(body.code).toBe("UPSTREAM_TIMEOUT");
    expect(body.error.message).toContain("did not answer within 300 ms");
    expect(performance.now() - started).toBeLessThan(3000);
    await within(lastCall().closed, 2000, "closing the upstream connection");
    expect((await latestLog(short)).statusCode).toBe(504);
  });

  test("a body that keeps trickling is cut off by the total deadline, not only by silence", async () => {
    const res = await within(shortApi.fail("POST /chat/completions", { body: ask("trickle-body") }), 5000, "the answer");
    expect(res.status).toBe(504);
    await within(lastCall().closed, 2000, "closing the upstream connection");
  });

  test("the same for the Anthropic API", async () => {
    const res = await within(shortApi.fail("POST /chat/completions", { body: ask("anthropic:stall-body", { max_tokens: 10 }) }), 5000, "the answer");
    expect(res.status).toBe(504);
    expect(res.body.error.message).toContain("Anthropic did not answer within 300 ms");
    expect(lastCall().model).toBe("stall-body");
    await within(lastCall().closed, 2000, "closing the upstream connection");
  });
});

describe("streams", () => {
  test("a stream that sends one chunk and stalls ends with an error event after the silence limit", async () => {
    const res = await within(shortApi.raw("POST /chat/completions", { body: ask("stall-stream", { stream: true }) }), 5000, "the headers");
    expect(res.status).toBe(200);
    const text = await within(res.text(), 5000, "the end of the stream");
    const events = text.split("\n\n").filter(Boolean);
    const first = JSON.parse(events[0]!.slice(6)) as { choices: { delta: { content?: string } }[] };
    expect(first.choices[0]!.delta.content).toBe("half");
    const last = JSON.parse(events.at(-1)!.slice(6)) as { error: { code: string; message: string } };
    expect(last.error).toMatchObject({ code: "UPSTREAM_TIMEOUT" });
    expect(last.error.message).toContain("sent nothing for 300 ms");
    await within(lastCall().closed, 2000, "closing the upstream connection");
    expect((await latestLog(short)).statusCode).toBe(504);
  });
});

describe("the client going away", () => {
  test("a client that disconnects while the upstream body is still arriving closes the upstream connection", async () => {
    const client = new AbortController();
    const pending = fetch(`${longServer.url}/api/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${long.project.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify(ask("stall-body")),
      signal: client.signal,
    }).catch((e) => e);
    const before = upstream.calls.length;
    await within(
      (async () => {
        while (upstream.calls.length === before) await Bun.sleep(5);
        await lastCall().sentSome;
      })(),
      5000,
      "the upstream starting its body",
    );
    const call = lastCall();
    expect(call.isClosed()).toBe(false);
    client.abort();
    expect(await pending).toBeInstanceOf(Error);
    // The upstream deadline is a minute: only the client's abort can close it this soon.
    await within(call.closed, 3000, "closing the upstream connection");
    const log = await within(
      (async () => {
        for (;;) {
          const l = await latestLog(long).catch(() => null);
          if (l && (l.body.reqPayload as { model?: unknown } | null)?.model === "stall-body") return l;
          await Bun.sleep(20);
        }
      })(),
      3000,
      "the call's log",
    );
    expect(log.statusCode).toBe(499);
  });
});

describe("judge calls", () => {
  test("HONE_JUDGE_TIMEOUT_MS covers the judge's body: a judge that stalls mid-body is a 504 and its connection closes", async () => {
    const created = await gqlData<{ createCriterion: { id: string } }>(
      long,
      `mutation { createCriterion(input: {name: "stalls", judgeModel: "openai:stall-body", prompt: "Judge {{output}}"}) { id } }`,
    );
    const id = created.createCriterion.id;
    const started = performance.now();
    const res = await within(
      longApi.fail("POST /criteria/judge", { body: { criterion_id: id, output: { role: "assistant", content: "x" } } }),
      5000,
      "the verdict",
    );
    expect(res.status).toBe(504);
    expect(res.body.message).toContain("did not answer within 300 ms");
    expect(performance.now() - started).toBeLessThan(3000);
    await within(lastCall().closed, 2000, "closing the upstream connection");
  });
});
