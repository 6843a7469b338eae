import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTRPCClient, httpLink } from "@trpc/client";
import { asc, eq } from "drizzle-orm";
import { auditEvents } from "../../src/db/schema";
import { REFUSALS_PER_MINUTE } from "../../src/http/audit-request";
import type { AppRouter } from "../../src/http/trpc/router";
import { createTestApp, type TestApp } from "../helpers/app";
import { gql, gqlData } from "../helpers/gql";
import { trpcFailure } from "../helpers/trpc";

// However a GraphQL mutation is written (a fragment, an alias, behind @include), the field that runs
// is checked and audited as a plain one; a field @skip leaves out is not. Refusals are audited on
// every transport, reads included.

let t: TestApp;
let readOnly: string;
let gatewayOnly: string;

beforeAll(async () => {
  t = await createTestApp({ env: { HONE_API_KEY_CACHE_MS: "0" } });
  const CREATE = "mutation($input: CreateApiKeyInput) { createApiKey(input: $input) { apiKey } }";
  readOnly = (await gqlData(t, CREATE, { input: { name: "reader", scopes: ["read"] } })).createApiKey.apiKey;
  gatewayOnly = (await gqlData(t, CREATE, { input: { name: "gateway", scopes: ["gateway"] } })).createApiKey.apiKey;
}, 60_000);
afterAll(async () => {
  await t.close();
});

let n = 0;
const rid = () => `audit-frag-${++n}`;

/** The audit events one request left, in the order written. */
async function eventsOf(requestId: string) {
  const rows = await t.deps.database.db.select().from(auditEvents).where(eq(auditEvents.requestId, requestId)).orderBy(asc(auditEvents.id));
  return rows.map((e) => ({
    verb: e.verb,
    transport: e.transport,
    outcome: e.outcome,
    actorType: e.actorType,
    actorId: e.actorId,
    projectId: e.projectId,
    resourceId: e.resourceId,
    summary: e.summary as Record<string, unknown> | null,
  }));
}

async function run(query: string, variables: Record<string, unknown> = {}, key?: string) {
  const requestId = rid();
  const res = await gql(t, query, variables, { headers: { "x-request-id": requestId }, ...(key ? { key } : {}) });
  return { res, events: await eventsOf(requestId) };
}

describe("GraphQL mutations are audited however they are written", () => {
  test("a plain mutation, an inline fragment, a named fragment, aliases and @include(if: true) each leave one record per field run", async () => {
    const plain = await run('mutation { createDataset(input: {name: "plain"}) { id } }');
    expect(plain.res.errors).toBeUndefined();
    expect(plain.events).toHaveLength(1);
    const shape = plain.events[0]!;
    expect(shape).toMatchObject({ verb: "createDataset", transport: "graphql", outcome: "ok", actorType: "apiKey", projectId: t.project.projectId });
    expect(shape.resourceId).toBe(plain.res.data.createDataset.id);
    expect(shape.summary).toMatchObject({ input: { name: "plain" } });

    const forms: [string, string, Record<string, unknown>, number][] = [
      ["inline fragment", 'mutation { ... on Mutation { createDataset(input: {name: "inline"}) { id } } }', {}, 1],
      ["named fragment", 'mutation { ...M } fragment M on Mutation { createDataset(input: {name: "named"}) { id } }', {}, 1],
      ["aliases", 'mutation { one: createDataset(input: {name: "one"}) { id } two: createDataset(input: {name: "two"}) { id } }', {}, 2],
      ["alias in a fragment", 'mutation { ...M } fragment M on Mutation { made: createDataset(input: {name: "aliased"}) { id } }', {}, 1],
      ["@include(if: true)", 'mutation($yes: Boolean!) { createDataset(input: {name: "included"}) @include(if: $yes) { id } }', { yes: true }, 1],
    ];
    for (const [form, query, variables, count] of forms) {
      const { res, events } = await run(query, variables);
      expect({ form, errors: res.errors }).toEqual({ form, errors: undefined });
      expect({ form, count: events.length }).toEqual({ form, count });
      const made = Object.values(res.data as Record<string, { id: string }>).map((d) => d.id);
      for (const e of events) {
        expect({ form, ...e }).toMatchObject({ form, verb: "createDataset", transport: "graphql", outcome: "ok", actorType: "apiKey", actorId: shape.actorId });
        expect(made).toContain(e.resourceId!);
        expect(e.summary).toHaveProperty("input.name");
      }
    }

    // deleteLogs written in a named fragment: recorded as the change it is.
    const del = await run("mutation { ...M } fragment M on Mutation { deleteLogs(all: true, dryRun: true) { deleted } }");
    expect(del.res.errors).toBeUndefined();
    expect(del.events).toMatchObject([{ verb: "deleteLogs", outcome: "ok", summary: { all: true, dryRun: true } }]);
  });

  test("a field @skip(if: true) leaves out never runs and is not audited", async () => {
    const { res, events } = await run('mutation($no: Boolean!) { createDataset(input: {name: "skipped"}) @skip(if: $no) { id } }', { no: true });
    expect(res.errors).toBeUndefined();
    expect(res.data).toEqual({});
    expect(events).toEqual([]);
    const inFragment = await run('mutation { ...M @skip(if: true) } fragment M on Mutation { createDataset(input: {name: "skipped2"}) { id } }');
    expect(inFragment.events).toEqual([]);
    const names = (await gqlData(t, "{ datasets { name } }")).datasets.map((d: { name: string }) => d.name);
    expect(names).not.toContain("skipped");
    expect(names).not.toContain("skipped2");
  });

  test("a read-only key's mutation in a fragment is refused (FORBIDDEN) and the refusal audited", async () => {
    for (const query of [
      'mutation { ...M } fragment M on Mutation { createDataset(input: {name: "by a reader"}) { id } }',
      'mutation { ... on Mutation { x: createDataset(input: {name: "by a reader 2"}) { id } } }',
    ]) {
      const { res, events } = await run(query, {}, readOnly);
      expect(res.errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
      expect(res.errors?.[0]?.message).toContain("lacks the `write` scope");
      expect(events).toMatchObject([{ verb: "createDataset", outcome: "error", actorType: "apiKey", summary: { error: "FORBIDDEN" } }]);
      expect(events[0]!.actorId).not.toBe(null);
    }
    const names = (await gqlData(t, "{ datasets { name } }")).datasets.map((d: { name: string }) => d.name);
    expect(names.filter((x: string) => x.startsWith("by a reader"))).toEqual([]);
  });

  test("a refusal raised inside a resolver is audited: a mutation's and a query's", async () => {
    // createProject needs the admin token: the resolver itself refuses a project key.
    const made = await run('mutation { ...M } fragment M on Mutation { createProject(name: "not mine") { projectId } }');
    expect(made.res.errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
    expect(made.events).toMatchObject([{ verb: "createProject", outcome: "error", summary: { name: "not mine", error: "FORBIDDEN" } }]);
    // The audit log is an admin's: the read-only key is refused by the domain, and that is recorded.
    const read = await run("{ ... on Query { auditLog(first: 1) { edges { node { id } } } } }", {}, readOnly);
    expect(read.res.errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
    expect(read.events).toMatchObject([{ verb: "auditLog", transport: "graphql", outcome: "error", summary: { first: 1, error: "FORBIDDEN" } }]);
    // A gateway-only key reads nothing: refused before execution, and recorded.
    const bare = await run("{ datasets { id } }", {}, gatewayOnly);
    expect(bare.res.errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
    expect(bare.events).toMatchObject([{ verb: "datasets", outcome: "error", summary: { error: "FORBIDDEN" } }]);
    // Reads that are not refused are not audited.
    expect((await run("{ datasets { id } }")).events).toEqual([]);
  });
});

describe("refusals are audited on every transport", () => {
  test("tRPC: a refused query and a refused mutation are recorded with the actor and what was refused", async () => {
    const requestId = rid();
    const client = trpcClientWithRequestId(gatewayOnly, requestId);
    expect((await trpcFailure(client.datasets.list.query())).data?.code).toBe("FORBIDDEN");
    expect((await trpcFailure(client.datasets.create.mutate({ name: "by the gateway key" }))).data?.code).toBe("FORBIDDEN");
    const events = await eventsOf(requestId);
    expect(events).toMatchObject([
      { verb: "datasets.list", transport: "trpc", outcome: "error", actorType: "apiKey", summary: { error: "FORBIDDEN" } },
      { verb: "datasets.create", transport: "trpc", outcome: "error", actorType: "apiKey", summary: { name: "by the gateway key", error: "FORBIDDEN" } },
    ]);
    expect(events[0]!.actorId).toBe(events[1]!.actorId);
    // An allowed read is still not recorded.
    const okId = rid();
    await trpcClientWithRequestId(t.project.apiKey, okId).datasets.list.query();
    expect(await eventsOf(okId)).toEqual([]);
  });

  test("REST: a refused read and a refused write are recorded; an allowed read is not", async () => {
    const read = rid();
    const list = await t.request("GET", "/api/v1/datasets", { key: gatewayOnly, headers: { "x-request-id": read } });
    expect(list.status).toBe(403);
    expect(await eventsOf(read)).toMatchObject([
      { verb: "GET /api/v1/datasets", transport: "rest", outcome: "error", actorType: "apiKey", summary: { error: "FORBIDDEN" } },
    ]);
    const write = rid();
    const post = await t.request("POST", "/api/v1/datasets", { key: readOnly, body: { name: "by a reader" }, headers: { "x-request-id": write } });
    expect(post.status).toBe(403);
    expect(await eventsOf(write)).toMatchObject([{ verb: "POST /api/v1/datasets", transport: "rest", outcome: "error", summary: { error: "FORBIDDEN" } }]);
    const fine = rid();
    expect((await t.request("GET", "/api/v1/datasets", { key: readOnly, headers: { "x-request-id": fine } })).status).toBe(200);
    expect(await eventsOf(fine)).toEqual([]);
  });
});

/** A tRPC client with a key and the request id its audit records are found by. */
function trpcClientWithRequestId(key: string, requestId: string) {
  return createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: "http://localhost/trpc",
        headers: { authorization: `Bearer ${key}`, "x-request-id": requestId },
        fetch: (url, init) => t.app.handle(new Request(url, init as RequestInit)),
      }),
    ],
  });
}

test("a client hammering what it may not do is recorded at most REFUSALS_PER_MINUTE times a minute", async () => {
  const CREATE = "mutation($input: CreateApiKeyInput) { createApiKey(input: $input) { apiKey } }";
  const hammer = (await gqlData(t, CREATE, { input: { name: "hammer", scopes: ["gateway"] } })).createApiKey.apiKey as string;
  for (let i = 0; i < 3 * REFUSALS_PER_MINUTE; i++) {
    const r = await t.request("GET", "/api/v1/datasets", { key: hammer });
    expect(r.status).toBe(403);
  }
  const rows = await t.deps.database.db.select().from(auditEvents).where(eq(auditEvents.outcome, "error"));
  const keyId = (await gqlData(t, "{ apiKeys { id name } }")).apiKeys.find((k: { name: string }) => k.name === "hammer").id;
  const mine = rows.filter((e) => e.actorId === keyId);
  // Within one minute (the test's clock may cross into the next once: at most twice the bound).
  expect(mine.length).toBeGreaterThanOrEqual(REFUSALS_PER_MINUTE);
  expect(mine.length).toBeLessThanOrEqual(2 * REFUSALS_PER_MINUTE);
});
