import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTRPCClient, httpLink } from "@trpc/client";
import type { AppRouter } from "../../src/http/trpc/router";
import { createTestApp, serve, userAssistant, type TestApp } from "../helpers/app";
import { captureQueries } from "../helpers/queries";
import { createDataset } from "../helpers/factories";
import { gql } from "../helpers/gql";

let t: TestApp;
let server: { url: string; stop(): Promise<void> };
beforeAll(async () => {
  t = await createTestApp();
  server = serve(t.app);
});
afterAll(async () => {
  await server.stop();
  await t.close();
});

const json = async (res: Response) => (await res.json()) as any;
const newDataset = (name = "d", key = t.project.apiKey) => createDataset(t, { name, key });
async function report(
  model: string,
  question: string,
  answer: string | null,
  opts: { status?: number; tags?: Record<string, string>; key?: string; extra?: object } = {},
) {
  const res = await t.request("POST", "/api/v1/report", {
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
  expect(res.status).toBe(200);
}
const IMPORT = `mutation($input: ImportLogsToDatasetInput!) { importLogsToDataset(input: $input) { entriesCreated duplicatesSkipped invalidLogs errors { logId message } } }`;
const ENTRIES = `query($id: ID!) { dataset(id: $id) { entryCount entries(first: 100) { edges { node { id split messages sourceLog { id model metadata } } } } } }`;

async function exportRows(datasetId: string, query = "", key = t.project.apiKey) {
  const res = await fetch(`${server.url}/api/v1/datasets/${datasetId}/export${query}`, { headers: { authorization: `Bearer ${key}` } });
  return {
    res,
    rows:
      res.status === 200
        ? (await res.text())
            .split("\n")
            .filter(Boolean)
            .map((l) => JSON.parse(l))
        : [],
  };
}

describe("import from logs", () => {
  test("successful logs become entries (request + first choice), non-200 and invalid are skipped, duplicates counted", async () => {
    await report("imp-a", "q1", "a1", { tags: { team: "x" } });
    await report("imp-a", "q2", "a2");
    await report("imp-a", "q1", "a1"); // same content as the first
    await report("imp-a", "q3", null, { status: 500 });
    await report("imp-a", "q4", "a4", {
      extra: { functions: [{ name: "lookup", parameters: { type: "object" } }], function_call: { name: "lookup" }, response_format: { type: "text" } },
    });
    await t.request("POST", "/api/v1/report", { body: { reqPayload: { model: "imp-a", prompt: "not chat" }, respPayload: { choices: [] }, statusCode: 200 } });
    const ds = await newDataset();
    const r = await gql(t, IMPORT, { input: { datasetId: ds, filter: { model: "imp-a" } } });
    expect(r.data.importLogsToDataset).toMatchObject({ entriesCreated: 3, duplicatesSkipped: 1, invalidLogs: 1 });
    expect(r.data.importLogsToDataset.errors[0].message).toContain("no messages");

    const read = await gql(t, ENTRIES, { id: ds });
    const nodes = read.data.dataset.entries.edges.map((e: any) => e.node);
    expect(read.data.dataset.entryCount).toBe(3);
    expect(nodes[0].messages).toEqual([
      { role: "user", content: "q1" },
      { role: "assistant", content: "a1" },
    ]);
    expect(nodes[0].sourceLog).toMatchObject({ model: "openai:imp-a", metadata: { team: "x" } });
    const rows = await t.deps.database.db.query.datasetEntries.findMany({ where: { datasetId: ds } });
    const withTools = rows.find((e) => (e.messages as any[])[0].content === "q4")!;
    expect(withTools.tools).toEqual([{ type: "function", function: { name: "lookup", parameters: { type: "object" } } }]);
    expect(withTools.toolChoice).toEqual({ type: "function", function: { name: "lookup" } });
    expect(withTools.responseFormat).toEqual({ type: "text" });
    expect(rows.find((e) => (e.messages as any[])[0].content === "q1")!.metadata).toEqual({ team: "x" });

    // Importing again adds nothing.
    const again = await gql(t, IMPORT, { input: { datasetId: ds, filter: { model: "imp-a" } } });
    expect(again.data.importLogsToDataset).toMatchObject({ entriesCreated: 0, duplicatesSkipped: 4 });
  });

  test("explicit log ids, random samples, metadata filters; other projects' logs are never imported", async () => {
    for (let i = 0; i < 10; i++) await report("imp-b", `b${i}`, `r${i}`, { tags: { batch: i < 5 ? "one" : "two" } });
    const logs = (await gql(t, `{ logs(first: 10, filter: {model: "imp-b"}) { edges { node { id } } } }`)).data.logs.edges.map((e: any) => e.node.id);
    const ds = await newDataset();
    expect((await gql(t, IMPORT, { input: { datasetId: ds, logIds: logs.slice(0, 2) } })).data.importLogsToDataset.entriesCreated).toBe(2);
    expect(
      (await gql(t, IMPORT, { input: { datasetId: ds, filter: { model: "imp-b" }, limit: 3 } })).data.importLogsToDataset.entriesCreated,
    ).toBeLessThanOrEqual(3);
    const ds2 = await newDataset();
    const sample = await gql(t, IMPORT, { input: { datasetId: ds2, filter: { model: "imp-b" }, limit: 4 } });
    expect(sample.data.importLogsToDataset.entriesCreated).toBe(4);
    const ds3 = await newDataset();
    expect(
      (await gql(t, IMPORT, { input: { datasetId: ds3, filter: { metadata: [{ key: "batch", equals: "two" }] } } })).data.importLogsToDataset.entriesCreated,
    ).toBe(5);

    const other = await t.createProject("import-other");
    const theirDs = await newDataset("theirs", other.apiKey);
    const stolen = await gql(t, IMPORT, { input: { datasetId: theirDs, logIds: logs } }, { key: other.apiKey });
    expect(stolen.data.importLogsToDataset.entriesCreated).toBe(0);
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
    const res = await t.request("POST", `/api/v1/datasets/${ds}/import`, { body, headers: { "content-type": "application/x-ndjson" } });
    expect(res.status).toBe(200);
    const r = await json(res);
    expect(r).toMatchObject({ object: "dataset.import", entries_created: 3, error_count: 2 });
    expect(r.errors.data.map((e: any) => e.line)).toEqual([2, 5]);
    expect(r.errors.data[1].message).toContain("assistant");

    const { rows } = await exportRows(ds);
    expect(rows).toHaveLength(3);
    expect(rows[0]).toEqual({ ...userAssistant("question 1", "answer 1"), tools: null, tool_choice: null, split: rows[0].split, metadata: { i: "1" } });
    expect(rows[1].split).toBe("TEST");
    expect(rows[2]).toMatchObject({ tools: [{ type: "function", function: { name: "f" } }], tool_choice: "auto" });
    expect((await exportRows(ds, "?split=TEST")).rows.map((x) => x.metadata.i)).toContain("2");
    expect((await exportRows(ds, "?split=NOPE")).res.status).toBe(400);
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
    expect((await json(res)).entries_created).toBe(3);
    const noFile = new FormData();
    noFile.append("note", "hello");
    const bad = await fetch(`${server.url}/api/v1/datasets/${ds}/import`, {
      method: "POST",
      headers: { authorization: `Bearer ${t.project.apiKey}` },
      body: noFile,
    });
    expect(bad.status).toBe(400);

    const other = await t.createProject("jsonl-other");
    for (const key of [other.apiKey]) {
      expect((await t.request("POST", `/api/v1/datasets/${ds}/import`, { body: line(1), key })).status).toBe(404);
      expect((await exportRows(ds, "", key)).res.status).toBe(404);
    }
    expect((await t.request("POST", "/api/v1/datasets/ds_missing/import", { body: line(1) })).status).toBe(404);
    expect((await exportRows("ds_missing")).res.status).toBe(404);
    const empty = await t.request("POST", `/api/v1/datasets/${ds}/import`, { body: "" });
    expect(empty.status).toBe(400);
    expect((await json(empty)).message).toContain("empty");
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
        for (let k = 0; k < 1000 && i < N; k++, i++) chunk += line(i, i % 10 === 0 ? { split: "TEST" } : { split: "TRAIN" }) + "\n";
        c.enqueue(encoder.encode(chunk));
      },
    });
    const res = await fetch(`${server.url}/api/v1/datasets/${ds}/import`, {
      method: "POST",
      headers: { authorization: `Bearer ${t.project.apiKey}`, "content-type": "application/x-ndjson" },
      body,
    });
    expect(await json(res)).toMatchObject({ entries_created: N, error_count: 0 });

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
        const row = JSON.parse(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
        const k = Number(row.metadata.i);
        expect(row.messages[1].content).toBe(`answer ${k}`);
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
    const query = `query($n: Int) { logs(first: $n, filter: {model: "graph-m"}) { edges { node { id model statusCode cacheHit metadata completionId costUsd
      datasetEntries { id dataset { id name } } } } } }`;
    const small = await captureQueries(t.deps.database.db, () => gql(t, query, { n: 2 }, { key: proj.apiKey }));
    const large = await captureQueries(t.deps.database.db, () => gql(t, query, { n: 6 }, { key: proj.apiKey }));
    const edges = large.result.data.logs.edges;
    expect(edges).toHaveLength(6);
    const names = edges.flatMap((e: any) => e.node.datasetEntries.map((de: any) => de.dataset.name));
    expect(names.filter((n: string) => n === "first")).toHaveLength(6);
    expect(names.filter((n: string) => n === "second")).toHaveLength(3);
    // logs page + entries by log (sized, then loaded) + datasets by id (+ auth is cached): no N+1.
    expect(large.queries.length).toBe(small.queries.length);
    expect(large.queries.length).toBeLessThanOrEqual(4);

    const fromEntry = await gql(
      t,
      `query($id: ID!) { dataset(id: $id) { entries(first: 10) { edges { node { sourceLog { id model } dataset { id } } } } } }`,
      { id: d1 },
      { key: proj.apiKey },
    );
    expect(fromEntry.data.dataset.entries.edges.every((e: any) => e.node.sourceLog.model === "openai:graph-m" && e.node.dataset.id === d1)).toBe(true);
  });
});
