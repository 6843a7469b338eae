import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { appRouter } from "../../src/http/trpc/router";
import { createTestApp, type TestApp } from "../helpers/app";
import { gql, gqlData } from "../helpers/gql";
import { seedLogs } from "../helpers/logs";
import { trpcClient, trpcFailure } from "../helpers/trpc";
import { strippingObjects } from "../helpers/zod-walk";

// An input key the server does not know is a 400 naming it, on tRPC and REST alike: never dropped,
// so a misspelt filter word cannot widen an update to every log. GraphQL's own validation already
// refuses unknown fields; it spells a tag filter as tRPC does (tags), with metadata kept as its
// deprecated alias.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  await seedLogs(t, [
    { model: "openai:gpt-4o", tags: { who: "one" } },
    { model: "openai:gpt-4o", tags: { who: "two" } },
    { model: "openai:gpt-4o-mini", tags: { who: "two" } },
  ]);
});
afterAll(() => t.close());

test("every tRPC procedure's input is strict all the way down (no object that drops keys)", () => {
  const procedures = (appRouter as unknown as { _def: { procedures: Record<string, { _def: { inputs?: unknown[] } }> } })._def.procedures;
  const offenders: string[] = [];
  for (const [name, p] of Object.entries(procedures)) {
    for (const input of p._def.inputs ?? []) for (const path of strippingObjects(input as never)) offenders.push(`${name} ${path}`);
  }
  expect(Object.keys(procedures).length).toBeGreaterThan(100);
  expect(offenders).toEqual([]);
});

describe("tRPC", () => {
  test("logs.setTags with GraphQL's word for the tag filter is a 400 naming it, and no log changes", async () => {
    const trpc = trpcClient(t);
    const err = await trpcFailure(trpc.logs.setTags.mutate({ filter: { metadata: [{ key: "who", equals: "one" }] }, set: { tagged: "yes" } } as never));
    expect(err.data?.code).toBe("VALIDATION");
    expect(err.data?.httpStatus).toBe(400);
    expect(err.message).toContain("metadata");
    const tagged = await trpc.logs.count.query({ filter: { tags: [{ key: "tagged", equals: "yes" }] } });
    expect(tagged).toMatchObject({ count: 0 });
    // Spelt as tRPC spells it, only the matching log changes.
    expect(await trpc.logs.setTags.mutate({ filter: { tags: [{ key: "who", equals: "one" }] }, set: { tagged: "yes" } })).toMatchObject({ updated: 1 });
  });

  test("a misspelt filter key on logs.list is a 400, not every log", async () => {
    const err = await trpcFailure(trpcClient(t).logs.list.query({ filter: { modle: "openai:gpt-4o" } } as never));
    expect(err.data?.code).toBe("VALIDATION");
    expect(err.data?.httpStatus).toBe(400);
    expect(err.message).toContain("modle");
  });
});

describe("REST", () => {
  test("an unknown body key is a 400 naming it", async () => {
    const r = await t.request("POST", "/api/v1/datasets", { body: { name: "d", colour: "red" } });
    expect(r.status).toBe(400);
    const body = (await r.json()) as { message: string; code: string; issues: { message: string; path?: unknown[] }[] };
    expect(body.code).toBe("VALIDATION");
    expect(JSON.stringify(body)).toContain("colour");
    const logs = await t.request("POST", "/api/v1/logs/update-tags", {
      body: { filters: [{ field: "tags.who", equals: "one" }], tags: { x: "y" }, everything: true },
    });
    expect(logs.status).toBe(400);
    expect(JSON.stringify(await logs.json())).toContain("everything");
  });
});

describe("GraphQL spells the tag filter as tRPC does", () => {
  const COUNT = `query ($filter: LogFilterInput) { logs(filter: $filter, first: 10) { edges { node { id } } } }`;
  test("tags and its deprecated alias metadata select the same logs; both at once is a 400", async () => {
    const byTags = await gqlData(t, COUNT, { filter: { tags: [{ key: "who", equals: "two" }] } });
    const byMetadata = await gqlData(t, COUNT, { filter: { metadata: [{ key: "who", equals: "two" }] } });
    expect(byTags.logs.edges).toHaveLength(2);
    expect(byMetadata.logs.edges.map((e: { node: { id: string } }) => e.node.id)).toEqual(byTags.logs.edges.map((e: { node: { id: string } }) => e.node.id));
    const both = await gql(t, COUNT, { filter: { tags: [{ key: "who", equals: "two" }], metadata: [{ key: "who", equals: "one" }] } });
    expect(both.errors?.[0]?.extensions?.code).toBe("VALIDATION");
    expect(both.errors?.[0]?.message).toContain("tags");
    // An unknown filter field is GraphQL's own 400.
    const unknown = await gql(t, COUNT, { filter: { modle: "x" } });
    expect(unknown.errors?.[0]?.message).toContain("modle");
  });
});
