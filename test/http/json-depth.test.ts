import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ImportWire } from "../../src/http/rest/wire-schemas";
import { jsonTextTooDeep, valueTooDeep } from "../../src/core/json-depth";
import { createTestApp, type TestApp } from "../helpers/app";
import { createDataset } from "../helpers/factories";
import { gql } from "../helpers/gql";
import { rest, type Rest } from "../helpers/rest";
import { trpcClient, trpcFailure } from "../helpers/trpc";

// JSON nested past HONE_MAX_JSON_DEPTH is refused with a 400 naming the limit, on every way in;
// before, a 100,000-deep array in a report overflowed the stack and answered 500.

let t: TestApp;
let api: Rest;
beforeAll(async () => {
  t = await createTestApp();
  api = rest(t);
});
afterAll(() => t.close());

const deepArray = (n: number) => `${"[".repeat(n)}${"]".repeat(n)}`;
const deepObject = (n: number) => `${'{"a":'.repeat(n)}1${"}".repeat(n)}`;
const now = Date.now();
const reportBody = (reqPayload: string, respPayload = "null") =>
  `{"requestedAt":${now - 1000},"receivedAt":${now},"statusCode":200,"reqPayload":${reqPayload},"respPayload":${respPayload}}`;

describe("the depth of JSON inputs", () => {
  test("the scanner counts brackets, not what strings hold, and stops at the limit", () => {
    expect(jsonTextTooDeep(deepArray(128), 128)).toBe(false);
    expect(jsonTextTooDeep(deepArray(129), 128)).toBe(true);
    expect(jsonTextTooDeep(deepObject(200), 128)).toBe(true);
    // Brackets inside strings (with escaped quotes and backslashes) do not count.
    const inString = JSON.stringify({ s: `${"[".repeat(500)}"\\\\"${"{".repeat(500)}` });
    expect(jsonTextTooDeep(inString, 128)).toBe(false);
    expect(jsonTextTooDeep(`[${inString},${deepArray(128)}]`, 128)).toBe(true);
    expect(jsonTextTooDeep(`[${inString},${deepArray(127)}]`, 128)).toBe(false);
    expect(valueTooDeep(JSON.parse(deepArray(100_000)), 128)).toBe(true);
    expect(valueTooDeep({ a: [{ b: [1, 2, { c: null }] }] }, 5)).toBe(false);
    expect(valueTooDeep({ a: [{ b: [1, 2, { c: [] }] }] }, 5)).toBe(true);
  });

  test("/report with a 100,000-deep payload: 400 naming the limit, not a 500; within the limit it is stored", async () => {
    for (const body of [reportBody(deepArray(100_000)), reportBody("{}", deepObject(100_000))]) {
      const r = await api.fail("POST /report", { body });
      expect(r.status).toBe(400);
      const e = r.body;
      expect(e.code).toBe("VALIDATION");
      expect(e.message).toContain("HONE_MAX_JSON_DEPTH");
      expect(e.message).toContain("128");
    }
    const ok = await api.raw("POST /report", { body: reportBody(`{"model":"gpt-4o","messages":[],"x":${deepArray(120)}}`) });
    expect(ok.status).toBe(200);
  });

  test("/report-anthropic with a 100,000-deep tool_use input: 400", async () => {
    const body = `{"requestedAt":${now - 1000},"receivedAt":${now},"statusCode":200,"reqPayload":{"model":"claude-3-5-haiku","max_tokens":10,"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":${deepObject(100_000)}}]}]},"respPayload":null}`;
    const r = await api.fail("POST /report-anthropic", { body });
    expect(r.status).toBe(400);
    expect(r.body.message).toContain("HONE_MAX_JSON_DEPTH");
  });

  test("the gateway refuses a deep body in OpenAI's error shape", async () => {
    const r = await api.fail("POST /chat/completions", {
      body: `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}],"metadata":${deepArray(5_000)}}`,
    });
    expect(r.status).toBe(400);
    const e = r.body;
    expect(e.error.message).toContain("HONE_MAX_JSON_DEPTH");
    expect(e.code).toBe("VALIDATION");
  });

  test("GraphQL variables and tRPC inputs past the limit are VALIDATION errors", async () => {
    const deepValue: unknown = JSON.parse(deepArray(10_000));
    const g = await gql<{ addDatasetEntries: { entriesCreated: number } }>(
      t,
      `mutation($e: [JSON!]!, $id: ID!) { addDatasetEntries(input: {datasetId: $id, entries: $e}) { entriesCreated } }`,
      {
        id: "ds_x",
        e: [deepValue],
      },
    );
    expect(g.errors![0]!.extensions!.code).toBe("VALIDATION");
    expect(g.errors![0]!.message).toContain("HONE_MAX_JSON_DEPTH");
    const err = await trpcFailure(trpcClient(t).datasets.create.mutate({ name: deepValue } as never));
    expect(err.data?.code).toBe("VALIDATION");
    expect(err.data?.httpStatus).toBe(400);
    expect(err.message).toContain("HONE_MAX_JSON_DEPTH");
  });

  test("a JSONL line past the limit is reported by number; the others are stored", async () => {
    const ds = await createDataset(t, { name: "depth" });
    const good = JSON.stringify({
      messages: [
        { role: "user", content: "q" },
        { role: "assistant", content: "a" },
      ],
    });
    const bad = `{"messages":[{"role":"user","content":"q"},{"role":"assistant","content":"a"}],"metadata":{"x":${deepArray(1_000)}}}`;
    // A raw JSONL body, which the route's typed body (one entry) does not describe: its answer is parsed here.
    const r = await api.raw("POST /datasets/:datasetId/import", {
      params: { datasetId: ds },
      body: [good, bad, good].join("\n"),
      headers: { "content-type": "application/x-ndjson" },
    });
    expect(r.status).toBe(200);
    const body = ImportWire.parse(await r.json());
    expect(body.entries_created).toBe(2);
    expect(body.errors.data).toEqual([{ object: "dataset.import.error", line: 2, message: expect.stringContaining("HONE_MAX_JSON_DEPTH") }]);
  });

  test("the limit is the operator's: HONE_MAX_JSON_DEPTH=16", async () => {
    const small = await createTestApp({ env: { HONE_MAX_JSON_DEPTH: "16" } });
    try {
      const smallApi = rest(small);
      expect((await smallApi.fail("POST /report", { body: reportBody(`{"x":${deepArray(20)}}`) })).status).toBe(400);
      expect((await smallApi.raw("POST /report", { body: reportBody(`{"x":${deepArray(10)}}`) })).status).toBe(200);
    } finally {
      await small.close();
    }
  });
});
