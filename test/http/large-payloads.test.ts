import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { systemCtx } from "../../src/domain/context";
import { setProviderKey } from "../../src/domain/projects";
import { ChatErrorEnvelope } from "../../src/http/rest/wire-schemas";
import { createTestApp, serve, type TestApp } from "../helpers/app";
import { createDataset } from "../helpers/factories";
import { gqlData } from "../helpers/gql";
import { latestLog } from "../helpers/logs";
import { rest, type Rest } from "../helpers/rest";
import { waitFor } from "../helpers/wait-for";

// Every call is logged whatever its size: a payload past HONE_MAX_LOGGED_PAYLOAD_BYTES is stored
// cut short with a marker giving its size, the row (status, tokens, cost, tags) always.

const CAP = 64 * 1024;
/** An answer of about 3 MB (well past CAP), its usage at the end as OpenAI writes it. */
const BIG = "z".repeat(3_000_000);
const bigAnswer = JSON.stringify({
  id: "chatcmpl-big",
  object: "chat.completion",
  created: 1,
  model: "gpt-4o-mini",
  choices: [{ index: 0, message: { role: "assistant", content: BIG }, finish_reason: "stop" }],
  usage: { prompt_tokens: 12, completion_tokens: 750_000, total_tokens: 750_012 },
});
/** A payload stored cut short: its beginning and its full size. */
type CutShort = { hone_truncated_payload: { bytes: number; text: string } };
let t: TestApp;
let api: Rest;
let upstream: ReturnType<typeof Bun.serve>;
let server: { url: string; stop(): Promise<void> };

beforeAll(async () => {
  // An upstream whose answers are larger than Hone holds: sent in 64 kB pieces, streamed or not.
  upstream = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const body = (await req.json()) as { stream?: boolean };
      const enc = new TextEncoder();
      if (!body.stream) {
        const bytes = enc.encode(bigAnswer);
        let at = 0;
        return new Response(
          new ReadableStream({
            pull(c) {
              if (at >= bytes.length) return c.close();
              c.enqueue(bytes.slice(at, at + 65_536));
              at += 65_536;
            },
          }),
          { headers: { "content-type": "application/json" } },
        );
      }
      const chunk = (delta: object, finish: string | null, usage?: object) =>
        `data: ${JSON.stringify({ id: "chatcmpl-s", object: "chat.completion.chunk", created: 1, model: "gpt-4o-mini", choices: usage ? [] : [{ index: 0, delta, finish_reason: finish }], ...(usage ? { usage } : {}) })}\n\n`;
      let i = 0;
      return new Response(
        new ReadableStream({
          pull(c) {
            if (i < 40) c.enqueue(enc.encode(chunk({ content: "s".repeat(10_000) }, null)));
            else if (i === 40) c.enqueue(enc.encode(chunk({}, "stop")));
            else if (i === 41) c.enqueue(enc.encode(chunk({}, null, { prompt_tokens: 5, completion_tokens: 100_000, total_tokens: 100_005 })));
            else if (i === 42) c.enqueue(enc.encode("data: [DONE]\n\n"));
            else return c.close();
            i++;
          },
        }),
        { headers: { "content-type": "text/event-stream" } },
      );
    },
  });
  t = await createTestApp({ env: { HONE_MAX_LOGGED_PAYLOAD_BYTES: String(CAP), OPENAI_BASE_URL: `http://127.0.0.1:${upstream.port}/v1` } });
  await setProviderKey({ ...systemCtx(t.deps, "test"), projectId: t.project.projectId }, { provider: "openai", apiKey: "sk-upstream-test-0001" });
  server = serve(t.app);
  api = rest(t);
});
afterAll(async () => {
  await server.stop();
  await upstream.stop(true);
  await t.close();
});

const report = (content: string, answer = "a") =>
  api.ok("POST /report", {
    body: {
      requestedAt: Date.now() - 100,
      receivedAt: Date.now(),
      statusCode: 200,
      reqPayload: { model: "gpt-4o-mini", messages: [{ role: "user", content }], metadata: { user: "big" } },
      respPayload: {
        id: "c1",
        choices: [{ index: 0, message: { role: "assistant", content: answer }, finish_reason: "stop" }],
        usage: { prompt_tokens: 50_000, completion_tokens: 1, total_tokens: 50_001 },
      },
    },
  });

describe("logged payload sizes", () => {
  test("a payload past the cap is stored cut short with its full size; the row keeps tokens, cost and tags", async () => {
    const content = "ü".repeat(150_000); // 300,000 bytes of UTF-8
    expect(await report(content)).toEqual({ status: "ok" });
    const log = await latestLog(t);
    expect(log.inputTokens).toBe(50_000);
    expect(log.costUsd).toBeGreaterThan(0);
    expect(log.tags).toEqual({ user: "big" });
    expect(log.warning).toMatch(/the request payload of 300,\d{3} bytes is stored cut short \(HONE_MAX_LOGGED_PAYLOAD_BYTES is 65,536\)/);
    const marker = (log.body.reqPayload as CutShort).hone_truncated_payload;
    expect(marker.bytes).toBeGreaterThan(300_000);
    expect(marker.text.startsWith('{"model":"gpt-4o-mini","messages":[{"role":"user","content":"üüü')).toBe(true);
    expect(log.reqBytes).toBeLessThanOrEqual(CAP);
    expect(Buffer.byteLength(JSON.stringify(log.body.reqPayload))).toBeLessThanOrEqual(CAP);
    // The response was small: stored whole, its size counted.
    expect((log.body.respPayload as { choices: { message: { content: string } }[] }).choices[0]!.message.content).toBe("a");
    expect(log.respBytes).toBe(Buffer.byteLength(JSON.stringify(log.body.respPayload)));
  });

  test("sizes are kept for every log, and GraphQL shows them with the warning", async () => {
    expect(await report("small")).toEqual({ status: "ok" });
    type Sizes = { warning: string | null; reqBytes: number; respBytes: number };
    const d = await gqlData<{ logs: { edges: { node: Sizes }[] } }>(t, `{ logs(first: 2) { edges { node { warning reqBytes respBytes } } } }`);
    const [small, big] = d.logs.edges.map((e) => e.node);
    expect(small!.warning).toBeNull();
    expect(small!.reqBytes).toBeGreaterThan(50);
    expect(small!.reqBytes).toBeLessThan(500);
    expect(big!.warning).toContain("cut short");
  });

  test("a log whose payload was cut short never becomes a dataset entry; importing says why", async () => {
    const ds = await createDataset(t, { name: "from logs" });
    const d = await gqlData<{ importLogsToDataset: { entriesCreated: number } }>(
      t,
      `mutation($ds: ID!) { importLogsToDataset(input: {datasetId: $ds, filter: {}}) { entriesCreated } }`,
      { ds },
    );
    expect(d.importLogsToDataset.entriesCreated).toBe(1); // the small one
    const r = await t.request("POST", `/trpc/datasets.importLogs`, { body: { datasetId: ds, filter: { tags: [{ key: "user", equals: "big" }] } } });
    type ImportOutcome = { result?: { data?: { invalidLogs: number; errors: { message: string }[] } } };
    const out = ((await r.json()) as ImportOutcome).result?.data;
    expect(out!.invalidLogs).toBeGreaterThanOrEqual(1);
    expect(out!.errors.some((e) => /stored cut short \(HONE_MAX_LOGGED_PAYLOAD_BYTES\), so it cannot become an entry/.test(e.message))).toBe(true);
  });
});

describe("answers larger than Hone holds", () => {
  const call = (body: object, headers: Record<string, string> = {}) =>
    fetch(`${server.url}/api/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${t.project.apiKey}`, "content-type": "application/json", ...headers },
      body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "much" }], ...body }),
    });

  test("a non-streamed answer is passed on whole, byte for byte; the log keeps its beginning, its size and its usage", async () => {
    const r = await call({});
    expect(r.status).toBe(200);
    const text = await r.text();
    expect(text).toBe(bigAnswer);
    // The log is written once the answer has passed through.
    const log = await waitFor(() => latestLog(t), { until: (l) => l.completionId === "chatcmpl-big" });
    expect(log.statusCode).toBe(200);
    expect(log.completionId).toBe("chatcmpl-big");
    expect([log.inputTokens, log.outputTokens]).toEqual([12, 750_000]);
    expect(log.costUsd).toBeGreaterThan(0);
    expect(log.warning).toContain("passed on whole and is stored cut short");
    const marker = (log.body.respPayload as CutShort).hone_truncated_payload;
    expect(marker.bytes).toBe(bigAnswer.length);
    expect(bigAnswer.startsWith(marker.text)).toBe(true);
    expect(log.respBytes).toBeLessThanOrEqual(CAP);
  });

  test("with criteria it cannot be judged: a 502 that says why, and the call is logged", async () => {
    const c = await gqlData<{ createCriterion: { id: string } }>(
      t,
      `mutation { createCriterion(input: {name: "big", judgeModel: "openai:gpt-4o-mini", prompt: "{{output}}"}) { id } }`,
    );
    const r = await call({}, { "op-criteria": JSON.stringify([c.createCriterion.id]) });
    expect(r.status).toBe(502);
    const body = ChatErrorEnvelope.parse(await r.json());
    expect(body.error.message).toContain("criteria cannot judge it");
    const log = await latestLog(t);
    expect(log.statusCode).toBe(502);
  });

  test("a stream is passed on chunk by chunk; the log keeps its beginning, cut short, with the usage", async () => {
    const r = await call({ stream: true });
    expect(r.status).toBe(200);
    const text = await r.text();
    expect(text.split("data: ").length).toBeGreaterThan(40);
    expect(text).toContain("data: [DONE]");
    const log = await latestLog(t);
    expect(log.statusCode).toBe(200);
    expect([log.inputTokens, log.outputTokens]).toEqual([5, 100_000]);
    expect(log.warning).toContain("stored cut short");
    expect((log.body.respPayload as CutShort).hone_truncated_payload.bytes).toBeGreaterThanOrEqual(400_000);
    expect(log.respBytes).toBeLessThanOrEqual(CAP);
  });
});
