import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, userAssistant, type TestApp } from "../helpers/app";
import { gql } from "../helpers/gql";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ env: { HONE_ADMIN_TOKEN: "admin-token-0123456789" } });
});
afterAll(() => t.close());

const CREATE = `mutation($name: String!) { createDataset(input: {name: $name}) { id name entryCount fineTuneCount createdAt updatedAt } }`;
const ADD = `mutation($id: ID!, $entries: [JSON!]!) { addDatasetEntries(input: {datasetId: $id, entries: $entries}) { entriesCreated errors { entryIndex message } } }`;
const GET = `query($id: ID!, $first: Int, $after: String, $split: String) { dataset(id: $id) { id name entryCount
  entries(first: $first, after: $after, split: $split) { edges { cursor node { id split messages metadata } } pageInfo { hasNextPage endCursor } } } }`;

async function newDataset(name = "g", key?: string) {
  const r = await gql(t, CREATE, { name }, { key });
  expect(r.errors).toBeUndefined();
  return r.data.createDataset;
}

describe("GraphQL datasets", () => {
  test("create, add entries, read them back page by page, delete", async () => {
    const ds = await newDataset("graph");
    expect(ds).toMatchObject({ name: "graph", entryCount: 0, fineTuneCount: 0 });
    expect(new Date(ds.createdAt).toISOString()).toBe(ds.createdAt);

    const entries = Array.from({ length: 5 }, (_, i) => ({ ...userAssistant(`q${i}`, `a${i}`), metadata: { i: String(i) }, split: i < 2 ? "TEST" : "TRAIN" }));
    const added = await gql(t, ADD, { id: ds.id, entries });
    expect(added.data.addDatasetEntries).toEqual({ entriesCreated: 5, errors: [] });

    const page1 = await gql(t, GET, { id: ds.id, first: 3 });
    const d1 = page1.data.dataset;
    expect(d1.entryCount).toBe(5);
    expect(d1.entries.edges).toHaveLength(3);
    expect(d1.entries.pageInfo.hasNextPage).toBe(true);
    expect(d1.entries.edges.map((e: { node: { metadata: { i: string } } }) => e.node.metadata.i)).toEqual(["0", "1", "2"]);
    const page2 = await gql(t, GET, { id: ds.id, first: 3, after: d1.entries.pageInfo.endCursor });
    const d2 = page2.data.dataset;
    expect(d2.entries.edges.map((e: { node: { metadata: { i: string } } }) => e.node.metadata.i)).toEqual(["3", "4"]);
    expect(d2.entries.pageInfo.hasNextPage).toBe(false);

    const tests = await gql(t, GET, { id: ds.id, split: "TEST" });
    expect(tests.data.dataset.entries.edges.map((e: { node: { split: string } }) => e.node.split)).toEqual(["TEST", "TEST"]);

    const list = await gql(t, `{ datasets { id entryCount } }`);
    expect(list.data.datasets).toContainEqual({ id: ds.id, entryCount: 5 });

    const del = await gql(t, `mutation($id: ID!) { deleteDataset(id: $id) { id deleted } }`, { id: ds.id });
    expect(del.data.deleteDataset).toEqual({ id: ds.id, deleted: true });
    const gone = await gql(t, GET, { id: ds.id });
    expect(gone.errors[0].extensions.code).toBe("NOT_FOUND");
  });

  test("a bad entry among good ones: good ones stored, bad one reported", async () => {
    const ds = await newDataset();
    const r = await gql(t, ADD, { id: ds.id, entries: [userAssistant(), { messages: [{ role: "user", content: "only" }] }, userAssistant()] });
    expect(r.data.addDatasetEntries.entriesCreated).toBe(2);
    expect(r.data.addDatasetEntries.errors).toHaveLength(1);
    expect(r.data.addDatasetEntries.errors[0].entryIndex).toBe(1);
  });

  test("0 and 101 entries, empty names and bad cursors are VALIDATION errors with issues", async () => {
    const ds = await newDataset();
    for (const n of [0, 101]) {
      const r = await gql(t, ADD, { id: ds.id, entries: Array.from({ length: n }, () => userAssistant()) });
      expect(r.data).toBeNull();
      expect(r.errors[0].message).toBe("Input validation failed");
      expect(r.errors[0].extensions.code).toBe("VALIDATION");
      expect(r.errors[0].extensions.issues.length).toBeGreaterThan(0);
    }
    const empty = await gql(t, CREATE, { name: "" });
    expect(empty.errors[0].extensions.code).toBe("VALIDATION");
    const cursor = await gql(t, GET, { id: ds.id, after: "garbage" });
    expect(cursor.errors[0].extensions.code).toBe("VALIDATION");
    const split = await gql(t, GET, { id: ds.id, split: "VALIDATION" });
    expect(split.errors[0].extensions.code).toBe("VALIDATION");
  });

  test("malformed requests are client errors, not 500s", async () => {
    const broken = await t.request("POST", "/graphql", { body: '{"query": ' });
    expect(broken.status).toBe(400);
    // GraphQL over HTTP: legacy application/json clients get 200 with errors, clients that
    // accept application/graphql-response+json get 400.
    const syntax = await gql(t, `{ datasets { id `);
    expect(syntax.status).toBe(200);
    expect(syntax.errors[0].message).toContain("Syntax Error");
    expect(syntax.errors[0].extensions.code).toBe("GRAPHQL_PARSE_FAILED");
    const unknownField = await gql(t, `{ datasets { nope } }`);
    expect(unknownField.errors[0].extensions.code).toBe("GRAPHQL_VALIDATION_FAILED");
    const modern = await t.request("POST", "/graphql", {
      body: { query: `{ datasets { nope } }` },
      headers: { accept: "application/graphql-response+json" },
    });
    expect(modern.status).toBe(400);
  });

  test("unknown and other projects' datasets are NOT_FOUND", async () => {
    const other = await t.createProject("other");
    const theirs = await newDataset("theirs", other.apiKey);
    for (const id of ["ds_unknown", theirs.id]) {
      const get = await gql(t, GET, { id });
      expect(get.errors[0].extensions.code).toBe("NOT_FOUND");
      expect(get.errors[0].message).toBe(`Dataset ${id} not found`);
      const add = await gql(t, ADD, { id, entries: [userAssistant()] });
      expect(add.errors[0].extensions.code).toBe("NOT_FOUND");
      const del = await gql(t, `mutation($id: ID!) { deleteDataset(id: $id) { id } }`, { id });
      expect(del.errors[0].extensions.code).toBe("NOT_FOUND");
    }
    const mine = await gql(t, `{ datasets { id } }`);
    expect(mine.data.datasets.some((d: { id: string }) => d.id === theirs.id)).toBe(false);
    const still = await gql(t, GET, { id: theirs.id }, { key: other.apiKey });
    expect(still.data.dataset.id).toBe(theirs.id);
  });

  test("missing and wrong keys get 401 with the error envelope and GraphQL errors", async () => {
    for (const key of [null, "hone_sk_wrongwrongwrongwrongwrong"]) {
      const r = await gql(t, `{ datasets { id } }`, {}, { key });
      expect(r.status).toBe(401);
      expect(r.code).toBe("UNAUTHORIZED");
      expect(r.issues).toEqual([]);
      expect(r.errors[0].extensions.code).toBe("UNAUTHORIZED");
    }
  });

  test("createProject needs the admin token; the new key works at once", async () => {
    const mutation = `mutation { createProject(name: "from-admin") { projectId apiKey } }`;
    const asProject = await gql(t, mutation);
    expect(asProject.errors[0].extensions.code).toBe("FORBIDDEN");
    const asAdmin = await gql(t, mutation, {}, { key: "admin-token-0123456789" });
    const created = asAdmin.data.createProject;
    expect(created.apiKey).toMatch(/^hone_sk_[A-Za-z0-9]{40}$/);
    const listed = await gql(t, `{ datasets { id } }`, {}, { key: created.apiKey });
    expect(listed.data.datasets).toEqual([]);
    // The admin token names no project.
    const adminList = await gql(t, `{ datasets { id } }`, {}, { key: "admin-token-0123456789" });
    expect(adminList.errors[0].extensions.code).toBe("FORBIDDEN");
  });

  test("GraphiQL is served from the app itself, with no CDN", async () => {
    const res = await t.request("GET", "/graphql", { key: null, headers: { accept: "text/html" } });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("<html");
    expect(html).not.toMatch(/unpkg\.com|jsdelivr|cdnjs|esm\.sh/);
  });
});
