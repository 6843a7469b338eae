import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTRPCClient, httpLink } from "@trpc/client";
import { ExportRowWire, ImportWire } from "../../src/http/rest/wire-schemas";
import type { AppRouter } from "../../src/http/trpc/router";
import { createTestApp, serve, userAssistant, type TestApp } from "../helpers/app";
import { captureQueries } from "../helpers/queries";
import { createDataset } from "../helpers/factories";
import { gql, gqlData } from "../helpers/gql";
import { rest, type Rest, type RestOutput } from "../helpers/rest";

let t: TestApp;
let api: Rest;
let server: { url: string; stop(): Promise<void> };
beforeAll(async () => {
  t = await createTestApp();
  api = rest(t);
  server = serve(t.app);
});
afterAll(async () => {
  await server.stop();
  await t.close();
});

const newDataset = (name = "d", key = t.project.apiKey) => createDataset(t, { name, key });
async function report(
  model: string,
  question: string,
  answer: string | null,
  opts: { status?: number; tags?: Record<string, string>; key?: string; extra?: object } = {},
) {
  await api.ok("POST /report", {
    key: opts.key,
    body: {
      reqPayload: { model, messages: [{ role: "user", content: question }], ...opts.extra },
      respPayload:
        answer === null
          ? { error: { message: "boom" } }
          : { id: `c-${question}`, choices: [{ index: 0, message: { role: "assistant", content: answer, refusal: null }, finish_reason: "stop" }] },
      statusCode: opts.status ?? 200,
      tags: opts.tags,
    },
  });
}
const IMPORT = `mutation($input: ImportLogsToDatasetInput!) { importLogsToDataset(input: $input) { entriesCreated duplicatesSkipped invalidLogs errors { logId message } } }`;
type Imported = {
  importLogsToDataset: { entriesCreated: number; duplicatesSkipped: number; invalidLogs: number; errors: { logId: string; message: string }[] };
};
/** IMPORT, failing the test on any GraphQL error. */
const importLogs = (input: Record<string, unknown>, key?: string) => gqlData<Imported>(t, IMPORT, { input }, { key });
const ENTRIES = `query($id: ID!) { dataset(id: $id) { entryCount entries(first: 100) { edges { node { id split messages sourceLog { id model metadata } } } } } }`;
type Entries = {
  dataset: {
    entryCount: number;
    entries: {
      edges: {
        node: { id: string; split: string; messages: unknown; sourceLog: { id: string; model: string | null; metadata: Record<string, string> } | null };
      }[];
    };
  };
};
/** A message's content (a stored entry's messages are JSON of any shape). */
const contentOf = (message: unknown) => (typeof message === "object" && message !== null && "content" in message ? message.content : undefined);

/** The chat-format rows of an export (the default format). */
const exportRows = async (datasetId: string, query: { split?: string } = {}) =>
  (await api.lines("GET /datasets/:datasetId/export", { params: { datasetId }, query })) as RestOutput<"GET /datasets/:datasetId/export">[] as Extract<
    RestOutput<"GET /datasets/:datasetId/export">,
    { split: unknown }
  >[];

describe("import from logs", () => {
  test("successful logs become entries (request + first choice), non-200 and invalid are skipped, duplicates counted", async () => {
    await report("imp-a", "q1", "a1", { tags: { team: "x" } });
    await report("imp-a", "q2", "a2");
    await report("imp-a", "q1", "a1"); // same content as the first
    await report("imp-a", "q3", null, { status: 500 });
    await report("imp-a", "q4", "a4", {
      extra: { functions: [{ name: "lookup", parameters: { type: "object" } }], function_call: { name: "lookup" }, response_format: { type: "text" } },
    });
    await api.raw("POST /report", { body: { reqPayload: { model: "imp-a", prompt: "not chat" }, respPayload: { choices: [] }, statusCode: 200 } });
    const ds = await newDataset();
    const r = await importLogs({ datasetId: ds, filter: { model: "imp-a" } });
    expect(r.importLogsToDataset).toMatchObject({ entriesCreated: 3, duplicatesSkipped: 1, invalidLogs: 1 });
    expect(r.importLogsToDataset.errors[0]!.message).toContain("no messages");

    const read = await gqlData<Entries>(t, ENTRIES, { id: ds });
    const nodes = read.dataset.entries.edges.map((e) => e.node);
    expect(read.dataset.entryCount).toBe(3);
    expect(nodes[0]!.messages).toEqual([
      { role: "user", content: "q1" },
      { role: "assistant", content: "a1" },
    ]);
    expect(nodes[0]!.sourceLog).toMatchObject({ model: "openai:imp-a", metadata: { team: "x" } });
    const rows = await t.deps.database.db.query.datasetEntries.findMany({ where: { datasetId: ds } });
    const withTools = rows.find((e) => contentOf(e.messages[0]) === "q4")!;
    expect(withTools.tools).toEqual([{ type: "function", function: { name: "lookup", parameters: { type: "object" } } }]);
    expect(withTools.toolChoice).toEqual({ type: "function", function: { name: "lookup" } });
    expect(withTools.responseFormat).toEqual({ type: "text" });
    expect(rows.find((e) => contentOf(e.messages[0]) === "q1")!.metadata).toEqual({ team: "x" });

    // Importing again adds nothing.
    const again = await importLogs({ datasetId: ds, filter: { model: "imp-a" } });
    expect(again.importLogsToDataset).toMatchObject({ entriesCreated: 0, duplicatesSkipped: 4 });
  });

  test("explicit log ids, random samples, metadata filters; other projects' logs are never imported", async () => {
    for (let i = 0; i < 10; i++) await report("imp-b", `b${i}`, `r${i}`, { tags: { batch: i < 5 ? "one" : "two" } });
    const logs = (
      await gqlData<{ logs: { edges: { node: { id: string } }[] } }>(t, `{ logs(first: 10, filter: {model: "imp-b"}) { edges { node { id } } } }`)
    ).logs.edges.map((e) => e.node.id);
    const ds = await newDataset();
    expect((await importLogs({ datasetId: ds, logIds: logs.slice(0, 2) })).importLogsToDataset.entriesCreated).toBe(2);
    expect((await importLogs({ datasetId: ds, filter: { model: "imp-b" }, limit: 3 })).importLogsToDataset.entriesCreated).toBeLessThanOrEqual(3);
    const ds2 = await newDataset();
    const sample = await importLogs({ datasetId: ds2, filter: { model: "imp-b" }, limit: 4 });
    expect(sample.importLogsToDataset.entriesCreated).toBe(4);
    const ds3 = await newDataset();
    expect((await importLogs({ datasetId: ds3, filter: { metadata: [{ key: "batch", equals: "two" }] } })).importLogsToDataset.entriesCreated).toBe(5);

    const other = await t.createProject("import-other");
    const theirDs = await newDataset("theirs", other.apiKey);
    const stolen = await importLogs({ datasetId: theirDs, logIds: logs }, other.apiKey);
    expect(stolen.importLogsToDataset.entriesCreated).toBe(0);
    const wrongDs = await gql(t, IMPORT, { input: { datasetId: theirDs, logIds: logs } });
    expect(wrongDs.errors[0].extensions.code).toBe("NOT_FOUND");

    const trpc = createTRPCClient<AppRouter>({ links: [httpLink({ url: `${server.url}/trpc`, headers: { authorization: `Bearer ${t.project.apiKey}` } })] });
    const ds4 = await newDataset();
    expect((await trpc.datasets.importLogs.mutate({ datasetId: ds4, logIds: logs.slice(0, 3) })).entriesCreated).toBe(3);
  });
});

describe("JSONL import and export", () => {
  const line = (i: number, extra: object = {}) => JSON.stringify({ ...userAssistant(`question ${i}`, `answer ${i}`), metadata: { i: String(i) }, ...extra });

  test("ndjson upload: good lines stored, bad lines reported by number, splits drawn; export round trip", async () => {
    const ds = await newDataset();
    const body = [
      line(1),
      "{broken",
      line(2, { split: "TEST" }),
      "",
      JSON.stringify({ messages: [{ role: "user", content: "x" }] }),
      line(3, { tools: [{ type: "function", function: { name: "f" } }], tool_choice: "auto" }),
    ].join("\r\n");
    // The body is JSON lines, not the one entry the route's body schema describes: sent raw, parsed here.
    const res = await api.raw("POST /datasets/:datasetId/import", { params: { datasetId: ds }, body, headers: { "content-type": "application/x-ndjson" } });
    expect(res.status).toBe(200);
    const r = ImportWire.parse(await res.json());
    expect(r).toMatchObject({ object: "dataset.import", entries_created: 3, error_count: 2 });
    expect(r.errors.data.map((e) => e.line)).toEqual([2, 5]);
    expect(r.errors.data[1]!.message).toContain("assistant");

    const rows = await exportRows(ds);
    expect(rows).toHaveLength(3);
    expect(rows[0]).toEqual({ ...userAssistant("question 1", "answer 1"), tools: null, tool_choice: null, split: rows[0]!.split, metadata: { i: "1" } });
    expect(rows[1]!.split).toBe("TEST");
    expect(rows[2]).toMatchObject({ tools: [{ type: "function", function: { name: "f" } }], tool_choice: "auto" });
    expect((await exportRows(ds, { split: "TEST" })).map((x) => x.metadata.i)).toContain("2");
    expect((await api.fail("GET /datasets/:datasetId/export", { params: { datasetId: ds }, query: { split: "NOPE" } })).status).toBe(400);
  });

  test("multipart upload, unknown and other projects' datasets, empty bodies", async () => {
    const ds = await newDataset();
    const form = new FormData();
    form.append("file", new Blob([[line(1), line(2), line(3)].join("\n")], { type: "application/jsonl" }), "data.jsonl");
    const res = await fetch(`${server.url}/api/v1/datasets/${ds}/import`, {
      method: "POST",
      headers: { authorization: `Bearer ${t.project.apiKey}` },
      body: form,
    });
    expect(res.status).toBe(200);
    expect(ImportWire.parse(await res.json()).entries_created).toBe(3);
    const noFile = new FormData();
    noFile.append("note", "hello");
    const bad = await fetch(`${server.url}/api/v1/datasets/${ds}/import`, {
      method: "POST",
      headers: { authorization: `Bearer ${t.project.apiKey}` },
      body: noFile,
    });
    expect(bad.status).toBe(400);

    const other = await t.createProject("jsonl-other");
    const params = { datasetId: ds };
    for (const key of [other.apiKey]) {
      expect((await api.fail("POST /datasets/:datasetId/import", { params, body: line(1), key })).status).toBe(404);
      expect((await api.fail("GET /datasets/:datasetId/export", { params, key })).status).toBe(404);
    }
    const missing = { datasetId: "ds_missing" };
    expect((await api.fail("POST /datasets/:datasetId/import", { params: missing, body: line(1) })).status).toBe(404);
    expect((await api.fail("GET /datasets/:datasetId/export", { params: missing })).status).toBe(404);
    const empty = await api.fail("POST /datasets/:datasetId/import", { params, body: "" });
    expect(empty.status).toBe(400);
    expect(empty.body.message).toContain("empty");
  });

  test("100,000 rows round trip: streamed in, streamed out, every row kept", async () => {
    const ds = await newDataset("big");
    const N = 100_000;
    const encoder = new TextEncoder();
    let i = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        if (i >= N) return c.close();
        let chunk = "";
        for (let k = 0; k < 1000 && i < N; k++, i++) chunk += `${line(i, i % 10 === 0 ? { split: "TEST" } : { split: "TRAIN" })}\n`;
        c.enqueue(encoder.encode(chunk));
      },
    });
    const res = await fetch(`${server.url}/api/v1/datasets/${ds}/import`, {
      method: "POST",
      headers: { authorization: `Bearer ${t.project.apiKey}`, "content-type": "application/x-ndjson" },
      body,
    });
    expect(ImportWire.parse(await res.json())).toMatchObject({ entries_created: N, error_count: 0 });

    const out = await fetch(`${server.url}/api/v1/datasets/${ds}/export`, { headers: { authorization: `Bearer ${t.project.apiKey}` } });
    const seen = new Uint8Array(N);
    let count = 0;
    let tests = 0;
    const decoder = new TextDecoder();
    let buf = "";
    for await (const chunk of out.body as unknown as AsyncIterable<Uint8Array>) {
      buf += decoder.decode(chunk, { stream: true });
      let nl: number;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const row = ExportRowWire.parse(JSON.parse(buf.slice(0, nl)));
        buf = buf.slice(nl + 1);
        const k = Number(row.metadata.i);
        expect(contentOf(row.messages[1])).toBe(`answer ${k}`);
        seen[k] = 1;
        count++;
        if (row.split === "TEST") tests++;
      }
    }
    expect(count).toBe(N);
    expect(seen.every((x) => x === 1)).toBe(true);
    expect(tests).toBe(N / 10);
  }, 300_000);
});

describe("the graph", () => {
  test("logs -> datasetEntries -> dataset resolves in a fixed number of queries, however many logs", async () => {
    const proj = await t.createProject("graph");
    for (let i = 0; i < 6; i++) await report("graph-m", `g${i}`, `a${i}`, { key: proj.apiKey });
    const d1 = await newDataset("first", proj.apiKey);
    const d2 = await newDataset("second", proj.apiKey);
    await gql(t, IMPORT, { input: { datasetId: d1, filter: { model: "graph-m" } } }, { key: proj.apiKey });
    await gql(t, IMPORT, { input: { datasetId: d2, filter: { model: "graph-m" }, limit: 3 } }, { key: proj.apiKey });
    type LogsWithEntries = { logs: { edges: { node: { id: string; datasetEntries: { id: string; dataset: { id: string; name: string } }[] } }[] } };
    const query = `query($n: Int) { logs(first: $n, filter: {model: "graph-m"}) { edges { node { id model statusCode cacheHit metadata completionId costUsd
      datasetEntries { id dataset { id name } } } } } }`;
    const small = await captureQueries(t.deps.database.db, () => gqlData<LogsWithEntries>(t, query, { n: 2 }, { key: proj.apiKey }));
    const large = await captureQueries(t.deps.database.db, () => gqlData<LogsWithEntries>(t, query, { n: 6 }, { key: proj.apiKey }));
    const edges = large.result.logs.edges;
    expect(edges).toHaveLength(6);
    const names = edges.flatMap((e) => e.node.datasetEntries.map((de) => de.dataset.name));
    expect(names.filter((n) => n === "first")).toHaveLength(6);
    expect(names.filter((n) => n === "second")).toHaveLength(3);
    // logs page + entries by log (sized, then loaded) + datasets by id (+ auth is cached): no N+1.
    expect(large.queries.length).toBe(small.queries.length);
    expect(large.queries.length).toBeLessThanOrEqual(4);

    const fromEntry = await gqlData<{
      dataset: { entries: { edges: { node: { sourceLog: { id: string; model: string | null }; dataset: { id: string } } }[] } };
    }>(
      t,
      `query($id: ID!) { dataset(id: $id) { entries(first: 10) { edges { node { sourceLog { id model } dataset { id } } } } } }`,
      { id: d1 },
      { key: proj.apiKey },
    );
    expect(fromEntry.dataset.entries.edges.every((e) => e.node.sourceLog.model === "openai:graph-m" && e.node.dataset.id === d1)).toBe(true);
  });
});
