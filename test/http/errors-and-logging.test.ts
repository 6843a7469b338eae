import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, serve, userAssistant, type TestApp } from "../helpers/app";
import type { GqlErrorBody } from "../helpers/gql";
import type { ErrorBody, RestOutput } from "../helpers/rest";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ env: { HONE_MAX_BODY_BYTES: "4096" } });
});
afterAll(() => t.close());

describe("errors, request ids and request logs", () => {
  test("unknown routes are 404 in the envelope, with and without a key", async () => {
    for (const path of ["/api/v1/nothing-here", "/nowhere", "/api/v2/datasets"]) {
      const res = await t.request("GET", path);
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ message: `Not found: ${path}`, code: "NOT_FOUND", issues: [] });
    }
  });

  test("a path with broken percent-encoding is a 400, not a confusing lookup", async () => {
    for (const [method, path] of [
      ["GET", "/api/v1/models/%E0%A4%A"],
      ["DELETE", "/api/v1/datasets/%zz"],
      ["POST", "/api/v1/datasets/%E0/entries"],
    ] as const) {
      const res = await t.request(method, path, { body: method === "POST" ? { entries: [] } : undefined });
      expect(res.status).toBe(400);
      expect(((await res.json()) as ErrorBody).message).toContain("percent-encoding");
    }
  });

  test("bodies over the limit get 413, whether declared or streamed", async () => {
    const big = JSON.stringify({ entries: [{ ...userAssistant("x".repeat(5000)) }] });
    const declared = await t.request("POST", "/api/v1/datasets/ds_x/entries", { body: big });
    expect(declared.status).toBe(413);
    expect(await declared.json()).toMatchObject({ code: "PAYLOAD_TOO_LARGE", issues: [{ message: expect.stringContaining("4096") }] });

    // A chunked body declares no length: the limit is enforced while reading.
    const ds = (await (await t.request("POST", "/api/v1/datasets", { body: { name: "limit" } })).json()) as RestOutput<"POST /datasets">;
    const stream = new ReadableStream({
      start(c) {
        for (let i = 0; i < 10; i++) c.enqueue(new TextEncoder().encode(i === 0 ? '{"entries": ["' : "y".repeat(1000)));
        c.close();
      },
    });
    const chunked = await t.app.handle(
      new Request(`http://localhost/api/v1/datasets/${ds.id}/entries`, {
        method: "POST",
        headers: { authorization: `Bearer ${t.project.apiKey}` },
        body: stream,
      }),
    );
    expect(chunked.status).toBe(413);
  });

  test("an empty or missing body is a 400 that says so, over a real socket", async () => {
    const s = serve(t.app);
    try {
      for (const body of ["", undefined]) {
        // fetch sends `content-length: 0` for "" and no body at all for undefined.
        const res = await fetch(`${s.url}/api/v1/chat/completions`, {
          method: "POST",
          headers: { authorization: `Bearer ${t.project.apiKey}`, "content-type": "application/json" },
          body,
        });
        expect(res.status).toBe(400);
        expect(await res.json()).toMatchObject({ message: "Request body is empty: send a JSON object", code: "VALIDATION" });
      }
    } finally {
      await s.stop();
    }
  });

  test("the same limit holds on a real socket", async () => {
    const s = serve(t.app);
    try {
      const res = await fetch(`${s.url}/api/v1/datasets`, {
        method: "POST",
        headers: { authorization: `Bearer ${t.project.apiKey}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "n".repeat(10_000) }),
      });
      expect(res.status).toBe(413);
    } finally {
      await s.stop();
    }
  });

  test("every response carries x-request-id; a caller's own id is kept", async () => {
    const responses = [
      await t.request("GET", "/api/v1/datasets"),
      await t.request("GET", "/api/v1/datasets", { key: null }),
      await t.request("GET", "/nowhere"),
      await t.request("POST", "/graphql", { body: { query: "{ datasets { id } }" } }),
      await t.request("GET", "/trpc/datasets.list"),
      await t.request("GET", "/health", { key: null }),
    ];
    for (const r of responses) expect(r.headers.get("x-request-id")).toMatch(/^req_[0-9a-f]{32}$/);
    const mine = await t.request("GET", "/api/v1/datasets", { headers: { "x-request-id": "trace-abc.123" } });
    expect(mine.headers.get("x-request-id")).toBe("trace-abc.123");
    const hostile = await t.request("GET", "/api/v1/datasets", { headers: { "x-request-id": "bad id with spaces and <angle> brackets" } });
    expect(hostile.headers.get("x-request-id")).toMatch(/^req_/);
  });

  test("one JSON log line per request, with project id, never the key", async () => {
    t.logLines.length = 0;
    const res = await t.request("GET", "/api/v1/datasets", { headers: { "x-request-id": "log-check-1" } });
    await t.request("GET", "/api/v1/datasets", { key: "hone_sk_secretsecretsecretsecretsecret" });
    const lines = t.logLines.map((l) => JSON.parse(l));
    const line = lines.find((l) => l.requestId === "log-check-1");
    expect(line).toMatchObject({
      level: "info",
      msg: "request",
      method: "GET",
      path: "/api/v1/datasets",
      status: res.status,
      projectId: t.project.projectId,
    });
    expect(typeof line.durationMs).toBe("number");
    const all = t.logLines.join("\n");
    expect(all).not.toContain(t.project.apiKey);
    expect(all).not.toContain("hone_sk_secretsecret");
  });
});

describe("failures inside the server", () => {
  test("a GraphQL resolver that fails is logged with the request id the client got", async () => {
    const ids = t.deps.ids;
    (t.deps as { ids: unknown }).ids = () => {
      throw new Error("id source broke");
    };
    try {
      t.logLines.length = 0;
      const res = await t.request("POST", "/graphql", {
        body: { query: 'mutation { createDataset(input: {name: "x"}) { id } }' },
        headers: { "x-request-id": "gql-trace-1" },
      });
      const body = (await res.json()) as GqlErrorBody;
      expect(body.errors[0]!.extensions!.code).toBe("INTERNAL");
      expect(body.errors[0]!.message).toBe("Internal server error");
      const line = t.logLines.map((l) => JSON.parse(l)).find((l) => l.msg === "graphql resolver failed");
      expect(line).toMatchObject({ level: "error", requestId: "gql-trace-1" });
    } finally {
      (t.deps as { ids: unknown }).ids = ids;
    }
  });

  test("an unreachable database is a 503 to retry: no SQL text or driver message reaches the client", async () => {
    const broken = await createTestApp();
    const key = broken.project.apiKey;
    // Warm the key cache so the failure happens in the verb, not in authentication.
    expect((await broken.request("GET", "/api/v1/datasets")).status).toBe(200);
    await broken.db.database.close();
    const res = await broken.request("POST", "/api/v1/datasets", { body: { name: "x" }, key });
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("5");
    const body = (await res.json()) as ErrorBody;
    expect(body).toEqual({ message: "The database is unavailable; retry in 5 seconds", code: "UNAVAILABLE", issues: [] });
    await broken.db.drop().catch(() => {});
  });
});
