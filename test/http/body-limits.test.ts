import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { ErrorEnvelope, ImportWire } from "../../src/http/rest/wire-schemas";
import { createTestApp, serve, type TestApp } from "../helpers/app";
import { rest, type Rest } from "../helpers/rest";

// Small limits, so "over the limit by a megabyte" stays cheap to send.
const LIMIT = 64 * 1024;
const IMPORT_LIMIT = 256 * 1024;

let t: TestApp;
let api: Rest;
let server: { url: string; stop(): Promise<void> };

beforeAll(async () => {
  t = await createTestApp({ env: { HONE_MAX_BODY_BYTES: String(LIMIT), HONE_MAX_IMPORT_BYTES: String(IMPORT_LIMIT) } });
  server = serve(t.app);
  api = rest(t);
}, 60_000);
afterAll(async () => {
  await server.stop();
  await t.close();
});

/** A body of undeclared length (no Content-Length): what a chunked upload looks like in-process. */
function chunked(text: string, chunkSize = 8 * 1024): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let at = 0;
  return new ReadableStream({
    pull(c) {
      if (at >= bytes.length) return c.close();
      c.enqueue(bytes.slice(at, at + chunkSize));
      at += chunkSize;
    },
  });
}

function post(path: string, body: ReadableStream<Uint8Array>, headers: Record<string, string> = {}) {
  return t.app.handle(
    new Request(`http://localhost${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${t.project.apiKey}`, "content-type": "application/json", ...headers },
      body,
      duplex: "half",
    } as RequestInit),
  );
}

/** Valid JSON of about `size` bytes: a query padded with a long comment (GraphQL ignores it). */
const bigGraphql = (size: number) => JSON.stringify({ query: `{ __typename }\n#${"x".repeat(size)}` });

describe("chunked bodies over HONE_MAX_BODY_BYTES", () => {
  test("/graphql answers 413 in the REST envelope", async () => {
    const res = await post("/graphql", chunked(bigGraphql(LIMIT + 1)));
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({
      code: "PAYLOAD_TOO_LARGE",
      message: `Request body exceeds the limit of ${LIMIT} bytes`,
      errors: [{ extensions: { code: "PAYLOAD_TOO_LARGE" } }],
    });
  });

  test("/trpc answers 413 in tRPC's error format, which its clients read", async () => {
    const res = await post("/trpc/datasets.create", chunked(JSON.stringify({ name: "x".repeat(LIMIT + 1) })));
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ error: { data: { code: "PAYLOAD_TOO_LARGE", httpStatus: 413 } } });
  });

  test("REST routes answer 413", async () => {
    const res = await post("/api/v1/datasets", chunked(JSON.stringify({ name: "x".repeat(LIMIT + 1) })));
    expect(res.status).toBe(413);
    expect(ErrorEnvelope.parse(await res.json()).code).toBe("PAYLOAD_TOO_LARGE");
  });

  test("bodies under the limit still work on every route", async () => {
    const g = await post("/graphql", chunked(bigGraphql(LIMIT - 1024)));
    expect(g.status).toBe(200);
    expect(((await g.json()) as { data: unknown }).data).toEqual({ __typename: "Query" });
    const r = await post("/trpc/datasets.create", chunked(JSON.stringify({ name: "small" })));
    expect(r.status).toBe(200);
    const d = await post("/api/v1/datasets", chunked(JSON.stringify({ name: "small" })));
    expect(d.status).toBe(200);
  });

  test("the dataset import keeps its own, larger limit (HONE_MAX_IMPORT_BYTES)", async () => {
    const ds = await api.ok("POST /datasets", { body: { name: "imp" } });
    const line = `${JSON.stringify({
      messages: [
        { role: "user", content: "y".repeat(1000) },
        { role: "assistant", content: "ok" },
      ],
    })}\n`;
    const lines = line.repeat(Math.ceil((LIMIT * 2) / line.length));
    expect(lines.length).toBeGreaterThan(LIMIT);
    const ok = await post(`/api/v1/datasets/${ds.id}/import`, chunked(lines), { "content-type": "application/jsonl" });
    expect(ok.status).toBe(200);
    expect(ImportWire.parse(await ok.json()).error_count).toBe(0);
    const tooBig = await post(`/api/v1/datasets/${ds.id}/import`, chunked(line.repeat(Math.ceil((IMPORT_LIMIT + 1) / line.length))), {
      "content-type": "application/jsonl",
    });
    expect(tooBig.status).toBe(413);
  });
});

/**
 * Streams `LIMIT + 1 MB` chunked over a real socket, slowly once past the limit, and reports how
 * much had been sent when the first byte of the answer came back.
 */
async function streamOverSocket(path: string): Promise<{ status: number; body: string; sentWhenAnswered: number; total: number }> {
  const { hostname, port } = new URL(server.url);
  const total = LIMIT + 1024 * 1024;
  const chunk = Buffer.alloc(16 * 1024, "a");
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    let sent = 0;
    let sentWhenAnswered = -1;
    let received = "";
    const timer = setTimeout(() => reject(new Error(`no answer; sent ${sent} of ${total} bytes`)), 20_000);
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1]);
      resolve({ status, body: received.slice(received.indexOf("\r\n\r\n") + 4), sentWhenAnswered, total });
    };
    socket.on("data", (d) => {
      if (sentWhenAnswered < 0) sentWhenAnswered = sent;
      received += d.toString();
      // The envelope is small: the whole answer is in once its closing brace is.
      if (/\r\n\r\n[\s\S]*\}/.test(received)) finish();
    });
    socket.on("error", () => {}); // the server may close its side while we still write
    socket.on("connect", async () => {
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${t.project.apiKey}\r\n` +
          `Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
      );
      while (sent < total && sentWhenAnswered < 0 && !socket.destroyed) {
        socket.write(`${chunk.length.toString(16)}\r\n`);
        socket.write(chunk);
        socket.write("\r\n");
        sent += chunk.length;
        // Past the limit the rest trickles: a server that waits for all of it answers after ~3 s.
        if (sent > LIMIT) await Bun.sleep(50);
      }
      if (sentWhenAnswered < 0 && !socket.destroyed) socket.write("0\r\n\r\n");
    });
  });
}

describe("over a real socket, the server stops reading at the limit", () => {
  for (const path of ["/graphql", "/trpc/datasets.create", "/api/v1/datasets"]) {
    test(`${path}: 413 arrives before the client has sent the rest`, async () => {
      const r = await streamOverSocket(path);
      expect(r.status).toBe(413);
      const body: unknown = JSON.parse(r.body);
      expect(body).toMatchObject(path.startsWith("/trpc") ? { error: { data: { code: "PAYLOAD_TOO_LARGE" } } } : { code: "PAYLOAD_TOO_LARGE" });
      expect(r.sentWhenAnswered).toBeGreaterThan(LIMIT);
      expect(r.sentWhenAnswered).toBeLessThan(r.total);
    });
  }
});
