import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { getIntrospectionQuery, type IntrospectionQuery } from "graphql";
import { z } from "zod";
import { createTestApp, serve, userAssistant, type TestApp } from "../helpers/app";
import { captureQueries } from "../helpers/queries";
import { gql, gqlData, type GqlError } from "../helpers/gql";

let t: TestApp;
let server: { url: string; stop(): Promise<void> };
let datasetId: string;
let otherDatasetId: string;

async function newDataset(name: string, entries: number): Promise<string> {
  const created = await gqlData<{ createDataset: { id: string } }>(t, `mutation($name: String!) { createDataset(input: {name: $name}) { id } }`, { name });
  const id = created.createDataset.id;
  const rows = Array.from({ length: entries }, (_, i) => userAssistant(`q${i}`, `a${i}`));
  const added = await gqlData<{ addDatasetEntries: { entriesCreated: number } }>(
    t,
    `mutation($id: ID!, $e: [JSON!]!) { addDatasetEntries(input: {datasetId: $id, entries: $e}) { entriesCreated } }`,
    { id, e: rows },
  );
  expect(added.addDatasetEntries.entriesCreated).toBe(entries);
  return id;
}

beforeAll(async () => {
  t = await createTestApp();
  server = serve(t.app);
  datasetId = await newDataset("limits", 40);
  otherDatasetId = await newDataset("other", 3);
});
afterAll(async () => {
  await server.stop();
  await t.close();
});

// entries -> dataset -> entries, three levels, as in the issue: on main it froze the server for minutes.
const nested = (first: number, levels: number): string => {
  let inner = "id";
  for (let i = 0; i < levels; i++) inner = `entries(first: ${first}) { edges { node { ${i === 0 ? "id" : `dataset { ${inner} }`} } } }`;
  return `query($id: ID!) { dataset(id: $id) { ${inner} } }`;
};

/** A GraphQL answer read straight off the server (not through gql). */
const GqlAnswer = z.object({
  data: z.unknown().optional(),
  errors: z.array(z.object({ message: z.string(), extensions: z.looseObject({ code: z.string().optional() }).optional() })).optional(),
});
/** A tRPC error answer. */
const TrpcError = z.object({ error: z.object({ message: z.string(), data: z.looseObject({ code: z.string(), httpStatus: z.number() }) }) });
/** A page of a dataset's entries. */
type EntriesPage = { dataset: { entries: { edges: unknown[] } } };

const codes = (body: { errors?: GqlError[] }): (string | undefined)[] => (body.errors ?? []).map((e) => e.extensions?.code);
const messages = (body: { errors?: GqlError[] }): string => (body.errors ?? []).map((e) => e.message).join("\n");

describe("GraphQL limits", () => {
  test("the three-level first: 300 query is refused in under a second while /health keeps answering", async () => {
    const healthTimes: number[] = [];
    let attacking = true;
    const poll = (async () => {
      while (attacking) {
        const t0 = performance.now();
        const r = await fetch(`${server.url}/health`);
        expect(r.status).toBe(200);
        healthTimes.push(performance.now() - t0);
        await Bun.sleep(5);
      }
    })();
    const started = performance.now();
    const res = await fetch(`${server.url}/graphql`, {
      method: "POST",
      headers: { authorization: `Bearer ${t.project.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ query: nested(300, 3), variables: { id: datasetId } }),
    });
    const body = GqlAnswer.parse(await res.json());
    const elapsed = performance.now() - started;
    await Bun.sleep(30);
    attacking = false;
    await poll;

    expect(elapsed).toBeLessThan(1000);
    expect(body.data).toBeUndefined();
    expect(new Set(codes(body))).toEqual(new Set(["VALIDATION"]));
    expect(messages(body)).toContain("first: 300 exceeds the page size limit of 200 (HONE_MAX_PAGE_SIZE)");
    expect(messages(body)).toContain("(HONE_GRAPHQL_MAX_DEPTH)");
    expect(messages(body)).toContain("(HONE_GRAPHQL_MAX_COST)");
    expect(healthTimes.length).toBeGreaterThan(0);
  });

  test("fragments that spread each other twice over are measured once each: 30 levels answered or refused in under 100 ms", async () => {
    const doubling = (levels: number, leaf: string) => {
      const frags = [`fragment F0 on Query { ${leaf} }`];
      for (let i = 1; i <= levels; i++) frags.push(`fragment F${i} on Query { ...F${i - 1} ...F${i - 1} }`);
      return `query { ...F${levels} } ${frags.join(" ")}`;
    };
    const timed = async (query: string) => {
      const started = performance.now();
      const res = await fetch(`${server.url}/graphql`, {
        method: "POST",
        headers: { authorization: `Bearer ${t.project.apiKey}`, "content-type": "application/json" },
        body: JSON.stringify({ query }),
      });
      return { body: GqlAnswer.parse(await res.json()), ms: performance.now() - started };
    };
    // Cheap leaf: graphql-js collects the fields once per fragment, so this runs.
    const cheap = await timed(doubling(30, "__typename"));
    expect(cheap.body.data).toEqual({ __typename: "Query" });
    expect(cheap.ms).toBeLessThan(100);
    // A costly leaf repeated 2^30 times: refused on cost, as quickly.
    const costly = await timed(doubling(30, "logs(first: 200) { edges { node { id datasetEntries { id } } } }"));
    expect(codes(costly.body)).toContain("VALIDATION");
    expect(messages(costly.body)).toContain("HONE_GRAPHQL_MAX_COST");
    expect(costly.ms).toBeLessThan(100);
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
  });

  test("a fragment spread under a list still counts once per row", async () => {
    const q = (first: number) =>
      `query { logs(first: ${first}) { edges { node { ...L ...L } } } } fragment L on RequestLog { datasetEntries { dataset { entries(first: 200) { edges { node { id } } } } } }`;
    // 200 logs x 10 entries x 200 entries: refused; the same with first: 1 is within the cost limit.
    const refused = await gql<unknown>(t, q(200));
    expect(codes(refused)).toContain("VALIDATION");
    expect(messages(refused)).toContain("HONE_GRAPHQL_MAX_COST");
    const fine = await gql<unknown>(t, q(1));
    expect(fine.errors).toBeUndefined();
  });

  test("within depth and page size, nested first multiplies into the cost, which refuses it", async () => {
    // depth 9 (< 10), every first <= 200: only the cost (200 x 200 rows) is over.
    const r = await gql<unknown>(t, nested(200, 2), { id: datasetId });
    expect(r.data).toBeUndefined();
    expect(codes(r)).toEqual(["VALIDATION"]);
    expect(r.errors![0]!.message).toMatch(/^Query cost \d+ exceeds the limit of 20000 \(HONE_GRAPHQL_MAX_COST\)/);
    // Smaller nested pages fit the budget and run.
    const ok = await gql<{ dataset: { entries: { edges: { node: EntriesPage }[] } } }>(t, nested(20, 2), { id: datasetId });
    expect(ok.errors).toBeUndefined();
    expect(ok.data!.dataset.entries.edges).toHaveLength(20);
    expect(ok.data!.dataset.entries.edges[0]!.node.dataset.entries.edges).toHaveLength(20);
  });

  test("depth, aliases and tokens each give their own VALIDATION error naming the limit", async () => {
    const deep = `{ logs(first: 1) { edges { node { datasetEntries { dataset { entries(first: 1) { edges { node {
      dataset { entries(first: 1) { edges { node { id } } } } } } } } } } } } }`;
    const d = await gql<unknown>(t, deep);
    expect(codes(d)).toEqual(["VALIDATION"]);
    expect(d.errors![0]!.message).toBe("Query depth 13 exceeds the limit of 10 (HONE_GRAPHQL_MAX_DEPTH)");

    const aliases = `{ ${Array.from({ length: 16 }, (_, i) => `a${i}: __typename`).join(" ")} }`;
    const a = await gql<unknown>(t, aliases);
    expect(codes(a)).toEqual(["VALIDATION"]);
    expect(a.errors![0]!.message).toBe("Query uses 16 aliases, more than the limit of 15 (HONE_GRAPHQL_MAX_ALIASES)");
    expect((await gql<{ a14: string }>(t, `{ ${Array.from({ length: 15 }, (_, i) => `a${i}: __typename`).join(" ")} }`)).data!.a14).toBe("Query");

    const tokens = `{ ${"__typename ".repeat(2_100)} }`;
    const k = await gql<unknown>(t, tokens);
    expect(codes(k)).toEqual(["VALIDATION"]);
    expect(k.errors![0]!.message).toBe("Query has more than 2000 tokens, the limit (HONE_GRAPHQL_MAX_TOKENS)");
  });

  test("first over the page size or negative is a VALIDATION error naming the argument, never clamped", async () => {
    const q = `query($id: ID!, $n: Int) { dataset(id: $id) { entries(first: $n) { edges { node { id } } } } }`;
    const over = await gql<unknown>(t, q, { id: datasetId, n: 201 });
    expect(codes(over)).toEqual(["VALIDATION"]);
    expect(over.errors![0]!.message).toBe("first: 201 exceeds the page size limit of 200 (HONE_MAX_PAGE_SIZE)");
    expect(over.errors![0]!.extensions).toHaveProperty(["issues", 0, "path"], ["dataset", "entries", "first"]);
    const literal = await gql<unknown>(t, `{ logs(first: 5000) { edges { node { id } } } }`);
    expect(literal.errors![0]!.message).toBe("first: 5000 exceeds the page size limit of 200 (HONE_MAX_PAGE_SIZE)");
    const negative = await gql<unknown>(t, `{ logs(first: -1) { edges { node { id } } } }`);
    expect(codes(negative)).toEqual(["VALIDATION"]);
    expect(negative.errors![0]!.message).toBe("first must not be negative (got -1)");
    const full = await gql<EntriesPage>(t, q, { id: datasetId, n: 200 });
    expect(full.errors).toBeUndefined();
    expect(full.data!.dataset.entries.edges).toHaveLength(40);
  });

  test("limit errors have yoga's validation status: 200 for application/json, 400 for graphql-response+json", async () => {
    const deep = nested(300, 3);
    expect((await gql<unknown>(t, deep, { id: datasetId })).status).toBe(200);
    const strict = await gql<unknown>(t, deep, { id: datasetId }, { headers: { accept: "application/graphql-response+json" } });
    expect(strict.status).toBe(400);
    expect(codes(strict)).toContain("VALIDATION");
    // The same as an ordinary validation error, so a client sees one convention.
    const unknown = await gql<unknown>(t, `{ datasets { nope } }`, {}, { headers: { accept: "application/graphql-response+json" } });
    expect(unknown.status).toBe(400);
  });

  test("ordinary queries stay within every limit: CONTRACT's logs query, a full page, GraphiQL's introspection", async () => {
    const contract = `query($first: Int) { logs(first: $first) {
      edges { node { id model statusCode cacheHit metadata completionId costUsd datasetEntries { id dataset { id name } } } }
      pageInfo { hasNextPage endCursor } } }`;
    const logs = await gql<{ logs: { edges: unknown[] } }>(t, contract, { first: 200 });
    expect(logs.errors).toBeUndefined();
    expect(logs.data!.logs.edges).toEqual([]);

    const page = await gql<EntriesPage>(
      t,
      `query($id: ID!) { dataset(id: $id) { id name entryCount
      entries(first: 200) { edges { node { id split messages sourceLog { id model metadata } } } } } }`,
      { id: datasetId },
    );
    expect(page.errors).toBeUndefined();
    expect(page.data!.dataset.entries.edges).toHaveLength(40);

    const introspection = getIntrospectionQuery({
      descriptions: true,
      specifiedByUrl: true,
      directiveIsRepeatable: true,
      schemaDescription: true,
      inputValueDeprecation: true,
      oneOf: true,
    });
    const schema = await gql<IntrospectionQuery>(t, introspection);
    expect(schema.errors).toBeUndefined();
    expect(schema.data!.__schema.queryType.name).toBe("Query");
  });

  test("deep introspection is refused before it runs", async () => {
    // graphql 17's own MaxIntrospectionDepthRule refuses fields -> type -> fields chains; the depth
    // and cost limits count introspection fields too (only the linear ofType chain is free).
    const r = await gql<unknown>(t, `{ __schema { types { fields { type { fields { type { fields { type { fields { name } } } } } } } } } }`);
    expect(r.data).toBeUndefined();
    expect(r.errors![0]!.message).toBe("Maximum introspection depth exceeded");
  });
});

// Statements that read entry rows (not the entry counts datasets carry).
// A statement that reads entries (their sizes or their content), not one about datasets.
const selectsEntries = (sql: string) => /from "dataset_entries"/.test(sql) && !/from "datasets"/.test(sql);

describe("nested connections are batched", () => {
  test("Dataset.entries under a list of datasets costs two queries (sizes, then content) for all of them", async () => {
    const q = `{ datasets { id entries(first: 2) { edges { node { id datasetId } } pageInfo { hasNextPage } } } }`;
    type Entries = { edges: { node: { id: string; datasetId: string } }[]; pageInfo: { hasNextPage: boolean } };
    const { result, queries } = await captureQueries(t.deps.database.db, () => gql<{ datasets: { id: string; entries: Entries }[] }>(t, q));
    const body = result;
    expect(body.errors).toBeUndefined();
    const byId = new Map(body.data!.datasets.map((d) => [d.id, d.entries]));
    expect(byId.get(datasetId)!.edges).toHaveLength(2);
    expect(byId.get(datasetId)!.pageInfo.hasNextPage).toBe(true);
    expect(byId.get(otherDatasetId)!.edges.every((e) => e.node.datasetId === otherDatasetId)).toBe(true);
    // The pages' sizes (charged to the answer before loading), then the entries: two for all of them.
    expect(queries.filter(selectsEntries)).toHaveLength(2);
  });

  test("entries -> dataset -> entries: the inner pages are one batch, not one per entry", async () => {
    const q = `query($id: ID!) { dataset(id: $id) { entries(first: 20) { edges { node { id
      dataset { entries(first: 5) { edges { node { id } } } } } } } } }`;
    type Edges<N> = { edges: { node: N }[] };
    type Outer = { dataset: { entries: Edges<{ id: string; dataset: { entries: Edges<{ id: string }> } }> } };
    const { result, queries } = await captureQueries(t.deps.database.db, () => gql<Outer>(t, q, { id: datasetId }));
    expect(result.errors).toBeUndefined();
    const outer = result.data!.dataset.entries.edges;
    expect(outer).toHaveLength(20);
    expect(outer[19]!.node.dataset.entries.edges.map((e) => e.node.id)).toEqual(outer.slice(0, 5).map((e) => e.node.id));
    // The outer page, then the 20 inner pages together: each sized, then loaded.
    expect(queries.filter(selectsEntries)).toHaveLength(4);
  });
});

describe("tRPC batches", () => {
  const batch = (n: number) =>
    fetch(`${server.url}/trpc/${Array.from({ length: n }, () => "datasets.list").join(",")}?batch=1`, {
      headers: { authorization: `Bearer ${t.project.apiKey}` },
    });

  test("a batch of 10 calls is answered; 11 is refused before any procedure runs", async () => {
    const ok = await batch(10);
    expect(ok.status).toBe(200);
    const results = z.array(z.object({ result: z.object({ data: z.array(z.unknown()) }) })).parse(await ok.json());
    expect(results).toHaveLength(10);
    expect(results[0]!.result.data.length).toBeGreaterThanOrEqual(2);

    const { result: refused, queries } = await captureQueries(t.deps.database.db, async () => {
      const r = await batch(11);
      return { status: r.status, body: TrpcError.parse(await r.json()) };
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.data.code).toBe("VALIDATION");
    expect(refused.body.error.data.httpStatus).toBe(400);
    expect(refused.body.error.message).toBe("A tRPC batch may carry at most 10 calls; this one has 11 (HONE_TRPC_MAX_BATCH)");
    expect(queries).toEqual([]);
  });

  test("tRPC page sizes follow HONE_MAX_PAGE_SIZE", async () => {
    const r = await fetch(`${server.url}/trpc/logs.list?input=${encodeURIComponent(JSON.stringify({ first: 201 }))}`, {
      headers: { authorization: `Bearer ${t.project.apiKey}` },
    });
    const body = TrpcError.parse(await r.json());
    expect(r.status).toBe(400);
    expect(body.error.data.code).toBe("VALIDATION");
    expect(body.error.message).toBe("first: 201 exceeds the page size limit of 200 (HONE_MAX_PAGE_SIZE)");
  });
});
