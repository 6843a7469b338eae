import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTRPCClient, httpBatchLink } from "@trpc/client";
import type { AppRouter } from "../../src/http/trpc/router";
import { createTestApp, type TestApp } from "../helpers/app";
import { addEntries, createDataset } from "../helpers/factories";
import { gql } from "../helpers/gql";
import { trpcClient, trpcFailure } from "../helpers/trpc";

// No answer is bigger than HONE_MAX_RESPONSE_BYTES: stored sizes are charged before content is
// loaded, per place the content appears in the answer. With 1 MiB here: 40 logs of ~100 kB.

const LIMIT = 1024 * 1024;
const KB100 = "x".repeat(100_000);
let t: TestApp;
let datasetId: string;

beforeAll(async () => {
  t = await createTestApp({ env: { HONE_MAX_RESPONSE_BYTES: String(LIMIT), HONE_LOG_LEVEL: "error" } });
  for (let i = 0; i < 40; i++) {
    const r = await t.request("POST", "/api/v1/report", {
      body: {
        requestedAt: Date.now() - 10,
        receivedAt: Date.now(),
        statusCode: 200,
        reqPayload: { model: "gpt-4o-mini", messages: [{ role: "user", content: `${i} ${KB100}` }] },
        respPayload: { id: `c${i}`, choices: [{ index: 0, message: { role: "assistant", content: "a" }, finish_reason: "stop" }] },
      },
    });
    expect(r.status).toBe(200);
  }
  datasetId = await createDataset(t, { name: "big entries" });
  await addEntries(
    t,
    datasetId,
    Array.from({ length: 20 }, (_, i) => ({
      messages: [
        { role: "user", content: `${i} ${KB100}` },
        { role: "assistant", content: "a" },
      ],
    })),
  );
}, 60_000);
afterAll(() => t.close());

const payloads = (alias: string, first: number) => `${alias}: logs(first: ${first}) { edges { node { id reqPayload respPayload } } }`;

describe("the size of one GraphQL answer", () => {
  test("15 aliases of a page of large payloads are refused whole, naming the limit; one small page is answered", async () => {
    const aliases = Array.from({ length: 15 }, (_, i) => payloads(`a${i}`, 40)).join(" ");
    const r = await gql(t, `{ ${aliases} }`);
    expect(r.data ?? null).toBeNull();
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0].extensions.code).toBe("VALIDATION");
    expect(r.errors[0].message).toContain("HONE_MAX_RESPONSE_BYTES");
    expect(r.errors[0].message).toContain("GET /api/v1/logs/export");
    const ok = await gql(t, `{ ${payloads("a", 5)} }`);
    expect(ok.errors).toBeUndefined();
    expect(ok.data.a.edges).toHaveLength(5);
    expect(ok.data.a.edges[0].node.reqPayload.messages[0].content).toContain(KB100);
  });

  test("the same payload in two places counts twice; lean fields of many logs count nothing", async () => {
    expect((await gql(t, `{ ${payloads("a", 6)} }`)).errors).toBeUndefined();
    const twice = await gql(t, `{ ${payloads("a", 6)} ${payloads("b", 6)} }`);
    expect(twice.errors?.[0]?.message).toContain("HONE_MAX_RESPONSE_BYTES");
    const lean = await gql(t, `{ a: logs(first: 40) { edges { node { id model reqBytes } } } b: logs(first: 40) { edges { node { id } } } }`);
    expect(lean.errors).toBeUndefined();
    expect(lean.data.a.edges[0].node.reqBytes).toBeGreaterThan(100_000);
  });

  test("dataset entries are sized before they are loaded", async () => {
    const q = (first: number) => `query($id: ID!) { dataset(id: $id) { entries(first: ${first}) { edges { node { messages } } } } }`;
    const refused = await gql(t, q(20), { id: datasetId });
    expect(refused.data ?? null).toBeNull();
    expect(refused.errors[0].message).toContain("HONE_MAX_RESPONSE_BYTES");
    expect(refused.errors[0].message).toContain(`/datasets/{id}/export`);
    const ok = await gql(t, q(5), { id: datasetId });
    expect(ok.data.dataset.entries.edges).toHaveLength(5);
    // tRPC's list of entries is held to the same rule.
    const err = await trpcFailure(trpcClient(t).datasets.listEntries.query({ datasetId, first: 20 }));
    expect(err.data?.code).toBe("VALIDATION");
    expect((await trpcClient(t).datasets.listEntries.query({ datasetId, first: 5 })).entries).toHaveLength(5);
  });
});

describe("bulk pages return fewer items instead of refusing", () => {
  const batchClient = () =>
    createTRPCClient<AppRouter>({
      links: [
        httpBatchLink({
          url: "http://localhost/trpc",
          headers: { authorization: `Bearer ${t.project.apiKey}` },
          fetch: (url, init) => t.app.handle(new Request(url, init as RequestInit)),
        }),
      ],
    });

  test("logs.exportPage: a loop on the cursor gets every log once, each answer within the limit", async () => {
    const client = trpcClient(t);
    const seen: string[] = [];
    let after: string | null = null;
    let pages = 0;
    for (;;) {
      const page: { lines: string[]; endCursor: string | null; hasNextPage: boolean } = await client.logs.exportPage.query({ first: 200, after });
      pages++;
      expect(page.lines.reduce((n, l) => n + l.length, 0)).toBeLessThanOrEqual(LIMIT);
      for (const l of page.lines) seen.push(JSON.parse(l).id);
      if (!page.hasNextPage) break;
      after = page.endCursor;
    }
    expect(pages).toBeGreaterThan(3);
    expect(seen).toHaveLength(40);
    expect(new Set(seen).size).toBe(40);
  });

  test("a batch of ten exportPage calls shares one budget: the answer stays within it", async () => {
    const client = batchClient();
    const res = await Promise.all(Array.from({ length: 10 }, () => client.logs.exportPage.query({ first: 200 })));
    const total = res.reduce((n, p) => n + p.lines.reduce((m, l) => m + l.length, 0), 0);
    expect(total).toBeLessThanOrEqual(LIMIT);
    expect(res.every((p) => p.hasNextPage)).toBe(true);
    // The calls run together: whichever reads first gets the room, the others what is left.
    expect(res.reduce((n, p) => n + p.lines.length, 0)).toBeGreaterThan(0);
    expect(res.some((p) => p.lines.length === 0)).toBe(true);
  });

  test("datasets.exportPage: the same, and a loop gets every entry", async () => {
    const client = trpcClient(t);
    let after: string | null = null;
    let lines = 0;
    for (;;) {
      const page: { lines: string[]; endCursor: string | null; hasNextPage: boolean } = await client.datasets.exportPage.query({
        datasetId,
        first: 500,
        after,
      });
      expect(page.lines.reduce((n, l) => n + l.length, 0)).toBeLessThanOrEqual(LIMIT);
      lines += page.lines.length;
      if (!page.hasNextPage) break;
      after = page.endCursor;
    }
    expect(lines).toBe(20);
  });

  test("one log larger than the whole limit is refused, pointing at the streaming export (which has it)", async () => {
    const p = await t.createProject("huge");
    const r = await t.request("POST", "/api/v1/report", {
      key: p.apiKey,
      body: { statusCode: 200, reqPayload: { model: "gpt-4o-mini", messages: [{ role: "user", content: "y".repeat(1_500_000) }] }, respPayload: null },
    });
    expect(r.status).toBe(200);
    const err = await trpcFailure(trpcClient(t, p.apiKey).logs.exportPage.query({}));
    expect(err.data?.code).toBe("VALIDATION");
    expect(err.message).toContain("GET /api/v1/logs/export streams it");
    const streamed = await t.request("GET", "/api/v1/logs/export", { key: p.apiKey });
    expect((await streamed.text()).length).toBeGreaterThan(1_500_000);
  });
});
