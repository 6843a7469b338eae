import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { createTestApp, serve, type TestApp } from "../helpers/app";
import { createDataset } from "../helpers/factories";
import { waitFor } from "../helpers/wait-for";

// Uploads as an attacker (or a flaky network) sends them: multipart and JSONL bodies cut short,
// spliced and corrupted at random points, against a real server. The properties: never a 5xx, the
// process still serves, a refused upload stores nothing, and the next good import works.

let t: TestApp;
let server: { url: string; stop(): Promise<void> };
let dataset: string;

beforeAll(async () => {
  t = await createTestApp({ env: { HONE_LOG_LEVEL: "error" } });
  server = serve(t.app);
  dataset = await createDataset(t, { name: "uploads" });
});
afterAll(async () => {
  await server.stop();
  await t.close();
});

const BOUNDARY = "----hone-fuzz-7MA4YWxkTrZu0gW";
const enc = new TextEncoder();
const line = (i: number) =>
  JSON.stringify({
    messages: [
      { role: "user", content: `q${i} ü` },
      { role: "assistant", content: `a${i}` },
    ],
  });
const jsonl = (n: number) => Array.from({ length: n }, (_, i) => line(i)).join("\n");

function multipart(file: string): Uint8Array {
  return enc.encode(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="note"\r\n\r\nhello\r\n` +
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="data.jsonl"\r\nContent-Type: application/x-ndjson\r\n\r\n${file}\r\n` +
      `--${BOUNDARY}--\r\n`,
  );
}

/** An import's answer: the entries created, or the error envelope; null when the body is not JSON. */
type UploadBody = { entries_created?: number; message?: string; code?: string } | null;

async function upload(body: Uint8Array, type: string): Promise<{ status: number; body: UploadBody }> {
  const res = await fetch(`${server.url}/api/v1/datasets/${dataset}/import`, {
    method: "POST",
    headers: { authorization: `Bearer ${t.project.apiKey}`, "content-type": type },
    body: body as Uint8Array<ArrayBuffer>,
  });
  return { status: res.status, body: (await res.json().catch(() => null)) as UploadBody };
}

async function entryCount(): Promise<number> {
  const res = await fetch(`${server.url}/api/v1/datasets`, { headers: { authorization: `Bearer ${t.project.apiKey}` } });
  const list = (await res.json()) as { data: { id: string; dataset_entry_count: number }[] };
  return list.data.find((d) => d.id === dataset)!.dataset_entry_count;
}

async function healthy(): Promise<void> {
  expect((await fetch(`${server.url}/health`)).status).toBe(200);
}

const MULTIPART = `multipart/form-data; boundary=${BOUNDARY}`;
const GOOD = multipart(jsonl(5));
/** Where the closing delimiter starts: a cut at or after it leaves a complete body. */
const CLOSING = GOOD.length - enc.encode(`--${BOUNDARY}--\r\n`).length;

/** A body changed at random: cut short, bytes spliced in, or bytes overwritten. */
const mutation = (size: number) =>
  fc.oneof(
    fc.record({ kind: fc.constant("truncate" as const), at: fc.integer({ min: 0, max: size - 1 }) }),
    fc.record({ kind: fc.constant("splice" as const), at: fc.integer({ min: 0, max: size }), bytes: fc.uint8Array({ minLength: 1, maxLength: 40 }) }),
    fc.record({ kind: fc.constant("corrupt" as const), at: fc.integer({ min: 0, max: size - 1 }), bytes: fc.uint8Array({ minLength: 1, maxLength: 40 }) }),
  );

type Mutation = { kind: "truncate"; at: number } | { kind: "splice" | "corrupt"; at: number; bytes: Uint8Array };

function apply(body: Uint8Array, m: Mutation): Uint8Array {
  if (m.kind === "truncate") return body.slice(0, m.at);
  if (m.kind === "splice") return new Uint8Array([...body.slice(0, m.at), ...m.bytes, ...body.slice(m.at)]);
  const out = body.slice();
  out.set(m.bytes.slice(0, out.length - m.at), m.at);
  return out;
}

describe("malformed uploads", () => {
  test("multipart cut short, spliced or corrupted: a 4xx or a consistent 200, never a 5xx; a refused upload stores nothing", async () => {
    await fc.assert(
      fc.asyncProperty(mutation(GOOD.length), async (m) => {
        const before = await entryCount();
        const r = await upload(apply(GOOD, m), MULTIPART);
        expect(r.status).toBeLessThan(500);
        const after = await entryCount();
        if (r.status === 200) {
          expect(after - before).toBe(r.body!.entries_created!);
        } else {
          expect(r.status).toBeGreaterThanOrEqual(400);
          expect(typeof r.body!.message).toBe("string");
          expect(r.body!.code).toBe("VALIDATION");
          expect(after).toBe(before);
        }
        // A body cut before its closing delimiter is malformed, whatever it held.
        if (m.kind === "truncate" && m.at < CLOSING) expect(r.status).toBe(400);
        await healthy();
        // And the next good upload works.
        const good = await upload(multipart(jsonl(2)), MULTIPART);
        expect(good.status).toBe(200);
        expect(good.body!.entries_created).toBe(2);
      }),
      { numRuns: 60, seed: 3_838 },
    );
  }, 120_000);

  test("JSONL bodies cut short, spliced or corrupted: never a 5xx, and what a 200 says it stored is stored", async () => {
    const body = enc.encode(jsonl(6));
    await fc.assert(
      fc.asyncProperty(mutation(body.length), async (m) => {
        const before = await entryCount();
        const r = await upload(apply(body, m), "application/x-ndjson");
        expect(r.status).toBeLessThan(500);
        const after = await entryCount();
        if (r.status === 200) expect(after - before).toBe(r.body!.entries_created!);
        else expect(after).toBe(before);
        await healthy();
      }),
      { numRuns: 60, seed: 3_839 },
    );
  }, 120_000);

  test("each way a multipart body can be malformed is a 400 in the error envelope", async () => {
    const cases: [string, Uint8Array | string, string][] = [
      ["no boundary parameter", GOOD, "multipart/form-data"],
      ["boundary never seen", "just some text\r\n", MULTIPART],
      ["no file part", enc.encode(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="note"\r\n\r\nhello\r\n--${BOUNDARY}--\r\n`), MULTIPART],
      ["empty body", "", MULTIPART],
      ["empty file", multipart(""), MULTIPART],
      ["cut inside the file", GOOD.slice(0, GOOD.length - 60), MULTIPART],
      ["cut after the first line of the part", enc.encode(`--${BOUNDARY}\r\n`), MULTIPART],
      ["empty JSONL body", "", "application/x-ndjson"],
    ];
    for (const [name, body, type] of cases) {
      const r = await upload(typeof body === "string" ? enc.encode(body) : body, type);
      expect({ name, status: r.status, code: r.body?.code }).toEqual({ name, status: 400, code: "VALIDATION" });
      expect(r.body!.message!.length).toBeGreaterThan(10);
    }
    await healthy();
  });

  test("a client that declares a length and hangs up early does not take the process down", async () => {
    const before = await entryCount();
    const { port } = new URL(server.url);
    const answered = () =>
      t.logLines
        .map((l) => JSON.parse(l) as { msg?: string; method?: string; path?: string })
        .filter((l) => l.msg === "request" && l.method === "POST" && l.path === `/api/v1/datasets/${dataset}/import`).length;
    const answeredBefore = answered();
    const socket = await Bun.connect({ hostname: "127.0.0.1", port: Number(port), socket: { data() {}, error() {} } });
    const part = GOOD.slice(0, 200);
    socket.write(
      `POST /api/v1/datasets/${dataset}/import HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.project.apiKey}\r\n` +
        `Content-Type: ${MULTIPART}\r\nContent-Length: ${GOOD.length}\r\n\r\n`,
    );
    socket.write(part);
    await Bun.sleep(100);
    socket.end();
    // The server is done with the cut request once it has logged its answer to it.
    await waitFor(() => answered() > answeredBefore, { message: "the server's answer to the cut request" });
    await healthy();
    expect(await entryCount()).toBe(before);
    const good = await upload(multipart(jsonl(3)), MULTIPART);
    expect(good.status).toBe(200);
  });

  test("an upload that fails after a batch was stored stores nothing", async () => {
    // Three lines of ~3 MB: the first batch (8 MB) is stored before the body is found cut short.
    const big = (i: number) =>
      JSON.stringify({
        messages: [
          { role: "user", content: "x".repeat(3_000_000) },
          { role: "assistant", content: `a${i}` },
        ],
      });
    const file = [big(1), big(2), big(3), big(4)].join("\n");
    const body = multipart(file);
    const before = await entryCount();
    const r = await upload(body.slice(0, body.length - 30), MULTIPART);
    expect(r.status).toBe(400);
    expect(await entryCount()).toBe(before);
    const whole = await upload(body, MULTIPART);
    expect(whole.status).toBe(200);
    expect(whole.body!.entries_created).toBe(4);
    expect(await entryCount()).toBe(before + 4);
  }, 60_000);
});
