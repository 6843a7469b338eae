import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { systemCtx } from "../../src/domain/context";
import { apiKeys } from "../../src/db/schema";
import { createDeps } from "../../src/compose";
import { bootstrapProjects, listApiKeys } from "../../src/domain/projects";
import { createLogger } from "../../src/core/logger";
import { createTestApp, type TestApp, testConfig } from "../helpers/app";
import { createTestDatabase } from "../helpers/db";
import { gql } from "../helpers/gql";
import { trpcClient, trpcFailure } from "../helpers/trpc";

// Renaming an API key (apiKeys.rename, renameApiKey): the same name rules as at creation, only the
// project's own keys, and nothing but the name changes. And the bootstrap key's name.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
}, 60_000);
afterAll(async () => {
  await t.close();
});

const RENAME = `mutation($id: ID!, $name: String!) { renameApiKey(id: $id, name: $name) { id name prefix revokedAt } }`;
const statusWith = async (key: string) =>
  (await t.app.handle(new Request("http://localhost/api/v1/datasets", { headers: { authorization: `Bearer ${key}` } }))).status;

describe("apiKeys.rename (tRPC)", () => {
  test("renames a key (trimmed); the key itself keeps working and the list shows the new name", async () => {
    const created = await trpcClient(t).apiKeys.create.mutate({ name: "laptop" });
    const renamed = await trpcClient(t).apiKeys.rename.mutate({ id: created.key.id, name: "  alice's laptop  " });
    expect(renamed).toMatchObject({ id: created.key.id, name: "alice's laptop", prefix: created.key.prefix, revokedAt: null });
    expect(typeof renamed.createdAt).toBe("string");
    const listed = (await trpcClient(t).apiKeys.list.query()).find((k) => k.id === created.key.id);
    expect(listed?.name).toBe("alice's laptop");
    expect(await statusWith(created.apiKey)).toBe(200);
    // An unnamed key can be named; a key may rename itself.
    const bare = await trpcClient(t).apiKeys.create.mutate();
    expect((await trpcClient(t, bare.apiKey).apiKeys.rename.mutate({ id: bare.key.id, name: "ci" })).name).toBe("ci");
  });

  test("a revoked key can be renamed and stays revoked", async () => {
    const created = await trpcClient(t).apiKeys.create.mutate({ name: "old" });
    await trpcClient(t).apiKeys.revoke.mutate({ id: created.key.id });
    const renamed = await trpcClient(t).apiKeys.rename.mutate({ id: created.key.id, name: "old (lost)" });
    expect(renamed.name).toBe("old (lost)");
    expect(renamed.revokedAt).not.toBeNull();
    expect(await statusWith(created.apiKey)).toBe(401);
  });

  test("bad names are 400 VALIDATION and change nothing", async () => {
    const created = await trpcClient(t).apiKeys.create.mutate({ name: "keep" });
    for (const name of ["x".repeat(101), "", "   ", "line\nbreak", "tab\there", "bell\u0007"]) {
      const err = await trpcFailure(trpcClient(t).apiKeys.rename.mutate({ id: created.key.id, name }));
      expect(err.data).toMatchObject({ code: "VALIDATION", httpStatus: 400 });
    }
    const [row] = await t.deps.database.db.select({ name: apiKeys.name }).from(apiKeys).where(eq(apiKeys.id, created.key.id));
    expect(row?.name).toBe("keep");
    // 100 characters is the limit, not over it.
    expect((await trpcClient(t).apiKeys.rename.mutate({ id: created.key.id, name: "y".repeat(100) })).name).toBe("y".repeat(100));
  });

  test("an unknown key and another project's key are 404; theirs keeps its name", async () => {
    const unknown = await trpcFailure(trpcClient(t).apiKeys.rename.mutate({ id: "key_nope", name: "x" }));
    expect(unknown.data).toMatchObject({ code: "NOT_FOUND", httpStatus: 404 });
    const other = await t.createProject("elsewhere");
    const [theirs] = await trpcClient(t, other.apiKey).apiKeys.list.query();
    const cross = await trpcFailure(trpcClient(t).apiKeys.rename.mutate({ id: theirs!.id, name: "stolen" }));
    expect(cross.data).toMatchObject({ code: "NOT_FOUND", httpStatus: 404 });
    expect(cross.message).not.toContain("elsewhere");
    const [after] = await trpcClient(t, other.apiKey).apiKeys.list.query();
    expect(after!.name).toBe(theirs!.name);
  });

  test("with no key: 401", async () => {
    const res = await t.request("POST", "/trpc/apiKeys.rename", { key: null, body: { id: "key_x", name: "x" } });
    expect(res.status).toBe(401);
  });
});

describe("renameApiKey (GraphQL)", () => {
  test("renames and answers { id name }", async () => {
    const created = await trpcClient(t).apiKeys.create.mutate({ name: "gql" });
    const r = await gql(t, RENAME, { id: created.key.id, name: " support-bot " });
    expect(r.errors).toBeUndefined();
    expect(r.data.renameApiKey).toMatchObject({ id: created.key.id, name: "support-bot", prefix: created.key.prefix, revokedAt: null });
    const listed = await gql(t, `{ apiKeys { id name } }`);
    expect(listed.data.apiKeys.find((k: { id: string }) => k.id === created.key.id).name).toBe("support-bot");
  });

  test("bad names are VALIDATION; unknown and other projects' keys NOT_FOUND", async () => {
    const created = await trpcClient(t).apiKeys.create.mutate({ name: "gql-bad" });
    for (const name of ["x".repeat(101), "  ", "a\nb"]) {
      const r = await gql(t, RENAME, { id: created.key.id, name });
      expect(r.errors?.[0]?.extensions?.code).toBe("VALIDATION");
    }
    const missingName = await gql(t, `mutation($id: ID!) { renameApiKey(id: $id) { id } }`, { id: created.key.id });
    expect(missingName.errors?.length).toBeGreaterThan(0);
    expect((await gql(t, RENAME, { id: "key_nope", name: "x" })).errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
    const other = await t.createProject("elsewhere-gql");
    const theirs = (await gql(t, `{ apiKeys { id name } }`, {}, { key: other.apiKey })).data.apiKeys[0];
    const cross = await gql(t, RENAME, { id: theirs.id, name: "stolen" });
    expect(cross.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
    expect((await gql(t, `{ apiKeys { id name } }`, {}, { key: other.apiKey })).data.apiKeys[0].name).toBe(theirs.name);
  });
});

describe("the bootstrap key's name", () => {
  test("a configured bootstrap key is named bootstrap; a rename is kept on the next start; an unnamed one gets the name", async () => {
    const key = "hone_sk_renametestbootstrapkey000000000001";
    const ctx = systemCtx(t.deps, "bootstrap");
    await bootstrapProjects(ctx, { bootstrapApiKey: key });
    const [first] = await trpcClient(t, key).apiKeys.list.query();
    expect(first!.name).toBe("bootstrap");
    // Renamed by a person, then the server starts again: the name stays.
    await trpcClient(t, key).apiKeys.rename.mutate({ id: first!.id, name: "operators" });
    await bootstrapProjects(ctx, { bootstrapApiKey: key });
    expect((await trpcClient(t, key).apiKeys.list.query())[0]!.name).toBe("operators");
    // Registered without a name (by an older version): the next start names it.
    await t.deps.database.db.update(apiKeys).set({ name: null }).where(eq(apiKeys.id, first!.id));
    await bootstrapProjects(ctx, { bootstrapApiKey: key });
    expect((await trpcClient(t, key).apiKeys.list.query())[0]!.name).toBe("bootstrap");
  });

  test("the key generated at the first start of an empty database is named bootstrap", async () => {
    const db = await createTestDatabase();
    try {
      const deps = createDeps({
        config: testConfig(),
        database: db.database,
        logger: createLogger("silent"),
        secretKey: crypto.getRandomValues(new Uint8Array(32)),
      });
      const boot = await bootstrapProjects(systemCtx(deps, "bootstrap"), {});
      expect(boot.newApiKey).toMatch(/^hone_sk_/);
      const keys = await listApiKeys({ ...systemCtx(deps, "test"), projectId: boot.createdProjectId! });
      expect(keys.map((k) => k.name)).toEqual(["bootstrap"]);
    } finally {
      await db.drop();
    }
  });
});
