import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTRPCClient, httpBatchLink, httpLink } from "@trpc/client";
import type { AppRouter } from "../../src/http/trpc/router";
import { type TrpcErrorBody, trpcFailure } from "../helpers/trpc";
import { createTestApp, serve, userAssistant, type TestApp } from "../helpers/app";

const ADMIN = "admin-token-abcdefghijkl";
let t: TestApp;
let server: { url: string; stop(): Promise<void> };
beforeAll(async () => {
  t = await createTestApp({ env: { HONE_ADMIN_TOKEN: ADMIN } });
  server = serve(t.app);
});
afterAll(async () => {
  await server.stop();
  await t.close();
});

function client(key: string | null, batch = true) {
  const opts = { url: `${server.url}/trpc`, headers: () => (key ? { authorization: `Bearer ${key}` } : {}) };
  return createTRPCClient<AppRouter>({ links: [batch ? httpBatchLink(opts) : httpLink(opts)] });
}

describe("tRPC datasets", () => {
  test("create, get, list, add entries, list entries, delete", async () => {
    const c = client(t.project.apiKey);
    const ds = await c.datasets.create.mutate({ name: "typed" });
    expect(ds).toMatchObject({ name: "typed", entryCount: 0, fineTuneCount: 0 });
    expect(typeof ds.createdAt).toBe("string");

    const added = await c.datasets.addEntries.mutate({
      datasetId: ds.id,
      entries: [userAssistant("a"), userAssistant("b"), { messages: [{ role: "user", content: "no answer" }] }],
    });
    expect(added.entriesCreated).toBe(2);
    expect(added.errors.map((e) => e.entryIndex)).toEqual([2]);

    // Batched: both calls travel in one HTTP request.
    const [got, listed] = await Promise.all([c.datasets.get.query({ datasetId: ds.id }), c.datasets.list.query()]);
    expect(got.entryCount).toBe(2);
    expect(listed.map((d) => d.id)).toContain(ds.id);

    const page = await c.datasets.listEntries.query({ datasetId: ds.id, first: 1 });
    expect(page.entries).toHaveLength(1);
    expect(page.hasNextPage).toBe(true);
    const rest = await c.datasets.listEntries.query({ datasetId: ds.id, first: 10, after: page.endCursor });
    expect(rest.entries).toHaveLength(1);
    expect(rest.hasNextPage).toBe(false);

    expect(await c.datasets.delete.mutate({ datasetId: ds.id })).toEqual({ id: ds.id, deleted: true });
    const gone = await trpcFailure(c.datasets.get.query({ datasetId: ds.id }));
    expect(gone.data?.code).toBe("NOT_FOUND");
    expect(gone.data?.httpStatus).toBe(404);
  });

  test("0 and 101 entries and bad input are BAD_REQUEST with issues", async () => {
    const c = client(t.project.apiKey, false);
    const ds = await c.datasets.create.mutate({ name: "v" });
    for (const n of [0, 101]) {
      const err = await trpcFailure(c.datasets.addEntries.mutate({ datasetId: ds.id, entries: Array.from({ length: n }, () => userAssistant()) }));
      expect(err.message).toBe("Input validation failed");
      expect(err.data?.code).toBe("VALIDATION");
      expect(err.data?.httpStatus).toBe(400);
      expect(err.data?.issues.length).toBeGreaterThan(0);
    }
    const err = await trpcFailure(c.datasets.create.mutate({ name: 42 as unknown as string }));
    expect(err.data?.httpStatus).toBe(400);
    expect(err.data?.issues[0]?.path).toEqual(["name"]);
  });

  test("malformed JSON over raw HTTP is a 400, not a 500", async () => {
    const res = await fetch(`${server.url}/trpc/datasets.create`, {
      method: "POST",
      headers: { authorization: `Bearer ${t.project.apiKey}`, "content-type": "application/json" },
      body: "{nope",
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as TrpcErrorBody;
    expect(body.error.data.code).toBe("VALIDATION");
    const unknown = await fetch(`${server.url}/trpc/datasets.nothing`, { headers: { authorization: `Bearer ${t.project.apiKey}` } });
    expect(unknown.status).toBe(404);
  });

  test("unknown and other projects' datasets are NOT_FOUND", async () => {
    const other = await t.createProject("other");
    const theirs = await client(other.apiKey).datasets.create.mutate({ name: "theirs" });
    const c = client(t.project.apiKey);
    for (const datasetId of ["ds_nope", theirs.id]) {
      expect((await trpcFailure(c.datasets.get.query({ datasetId }))).data?.httpStatus).toBe(404);
      expect((await trpcFailure(c.datasets.delete.mutate({ datasetId }))).data?.httpStatus).toBe(404);
      expect((await trpcFailure(c.datasets.addEntries.mutate({ datasetId, entries: [userAssistant()] }))).data?.httpStatus).toBe(404);
    }
    expect((await c.datasets.list.query()).some((d) => d.id === theirs.id)).toBe(false);
    expect((await client(other.apiKey).datasets.get.query({ datasetId: theirs.id })).id).toBe(theirs.id);
  });

  test("missing and wrong keys are UNAUTHORIZED (401)", async () => {
    for (const key of [null, "hone_sk_notarealkeynotarealkeynotareal"]) {
      const err = await trpcFailure(client(key).datasets.list.query());
      expect(err.data?.code).toBe("UNAUTHORIZED");
      expect(err.data?.httpStatus).toBe(401);
    }
  });

  test("admin.createProject needs the admin token", async () => {
    const asProject = await trpcFailure(client(t.project.apiKey).admin.createProject.mutate({ name: "x" }));
    expect(asProject.data?.httpStatus).toBe(401);
    const created = await client(ADMIN).admin.createProject.mutate({ name: "made-by-admin" });
    expect(created.apiKey).toMatch(/^hone_sk_/);
    expect(await client(created.apiKey).datasets.list.query()).toEqual([]);
    const adminReads = await trpcFailure(client(ADMIN).datasets.list.query());
    expect(adminReads.data?.httpStatus).toBe(403);
  });
});

describe("tRPC deletes", () => {
  test("every delete answers one shape: {id, deleted: true}", async () => {
    const c = client(t.project.apiKey);
    await c.providerKeys.set.mutate({ provider: "openai", apiKey: "sk-delete-shape-0001" });
    expect(await c.providerKeys.delete.mutate({ provider: "openai" })).toEqual({ id: "openai", deleted: true });
    const crit = await c.criteria.create.mutate({ name: "shape", judgeModel: "openai:gpt-4o-mini", prompt: "PASS if {{output}} is short" });
    expect(await c.criteria.delete.mutate({ criterionId: crit.id })).toEqual({ id: crit.id, deleted: true });
    const ds = await c.datasets.create.mutate({ name: "shape" });
    expect(await c.datasets.delete.mutate({ datasetId: ds.id })).toEqual({ id: ds.id, deleted: true });
  });
});
