import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../helpers/app";
import { createDataset } from "../helpers/factories";
import { gqlData } from "../helpers/gql";
import { latestLog } from "../helpers/logs";

// Every call is logged whatever its size: a payload past HONE_MAX_LOGGED_PAYLOAD_BYTES is stored
// cut short with a marker giving its size, the row (status, tokens, cost, tags) always.

const CAP = 64 * 1024;
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ env: { HONE_MAX_LOGGED_PAYLOAD_BYTES: String(CAP) } });
});
afterAll(() => t.close());

const report = (content: string, answer = "a") =>
  t.request("POST", "/api/v1/report", {
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
    expect((await report(content)).status).toBe(200);
    const log = await latestLog(t);
    expect(log.inputTokens).toBe(50_000);
    expect(log.costUsd).toBeGreaterThan(0);
    expect(log.metadata).toEqual({ user: "big" });
    expect(log.warning).toMatch(/the request payload of 300,\d{3} bytes is stored cut short \(HONE_MAX_LOGGED_PAYLOAD_BYTES is 65,536\)/);
    const marker = (log.body.reqPayload as any).hone_truncated_payload;
    expect(marker.bytes).toBeGreaterThan(300_000);
    expect(marker.text.startsWith('{"model":"gpt-4o-mini","messages":[{"role":"user","content":"üüü')).toBe(true);
    expect(log.reqBytes).toBeLessThanOrEqual(CAP);
    expect(Buffer.byteLength(JSON.stringify(log.body.reqPayload))).toBeLessThanOrEqual(CAP);
    // The response was small: stored whole, its size counted.
    expect((log.body.respPayload as any).choices[0].message.content).toBe("a");
    expect(log.respBytes).toBe(Buffer.byteLength(JSON.stringify(log.body.respPayload)));
  });

  test("sizes are kept for every log, and GraphQL shows them with the warning", async () => {
    expect((await report("small")).status).toBe(200);
    const d = await gqlData(t, `{ logs(first: 2) { edges { node { warning reqBytes respBytes } } } }`);
    const [small, big] = d.logs.edges.map((e: any) => e.node);
    expect(small.warning).toBeNull();
    expect(small.reqBytes).toBeGreaterThan(50);
    expect(small.reqBytes).toBeLessThan(500);
    expect(big.warning).toContain("cut short");
  });

  test("a log whose payload was cut short never becomes a dataset entry; importing says why", async () => {
    const ds = await createDataset(t, { name: "from logs" });
    const d = await gqlData(t, `mutation($ds: ID!) { importLogsToDataset(input: {datasetId: $ds, filter: {}}) { entriesCreated } }`, { ds });
    expect(d.importLogsToDataset.entriesCreated).toBe(1); // the small one
    const r = await t.request("POST", `/trpc/datasets.importLogs`, { body: { datasetId: ds, filter: { metadata: [{ key: "user", equals: "big" }] } } });
    const out = ((await r.json()) as any).result?.data;
    expect(out.invalidLogs).toBeGreaterThanOrEqual(1);
    expect(out.errors.some((e: any) => /stored cut short \(HONE_MAX_LOGGED_PAYLOAD_BYTES\), so it cannot become an entry/.test(e.message))).toBe(true);
  });
});
