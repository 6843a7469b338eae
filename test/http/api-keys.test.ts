import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { TRPCClientError } from "@trpc/client";
import { eq } from "drizzle-orm";
import { z } from "zod";
import { createApp, type App } from "../../src/app";
import { apiKeys } from "../../src/db/schema";
import { createDeps } from "../../src/compose";
import { createLogger } from "../../src/core/logger";
import { createTestApp, testConfig, type TestApp } from "../helpers/app";
import { gql, gqlData } from "../helpers/gql";
import { trpcClient } from "../helpers/trpc";

const OTHER_CACHE_MS = 200;

let t: TestApp;
/** The bound, set low here (its default is 10,000: one key per end user). */
const MAX_ACTIVE_API_KEYS = 20;
/** A second Hone "process" on the same database: its own key cache, a short HONE_API_KEY_CACHE_MS, GraphiQL off. */
let other: App;

beforeAll(async () => {
  // The first app remembers keys for a minute: revocations there must not wait for that.
  t = await createTestApp({ env: { HONE_API_KEY_CACHE_MS: "60000", HONE_MAX_ACTIVE_API_KEYS: String(MAX_ACTIVE_API_KEYS) } });
  other = createApp(
    createDeps({
      config: testConfig({ HONE_API_KEY_CACHE_MS: String(OTHER_CACHE_MS), HONE_GRAPHIQL: "false" }),
      database: t.db.database,
      logger: createLogger("silent"),
      secretKey: crypto.getRandomValues(new Uint8Array(32)),
    }),
  );
}, 60_000);
afterAll(async () => {
  await t.close();
});

/** Status of an ordinary authenticated REST call with `key`, on `app`. */
async function statusWith(key: string, app: App = t.app): Promise<number> {
  const res = await app.handle(new Request("http://localhost/api/v1/datasets", { headers: { authorization: `Bearer ${key}` } }));
  return res.status;
}

const CREATE = `mutation($name: String) { createApiKey(input: {name: $name}) { apiKey key { id name prefix createdAt lastUsedAt revokedAt } } }`;
const LIST = `{ apiKeys { id name prefix createdAt lastUsedAt revokedAt } }`;
const REVOKE = `mutation($id: ID!) { revokeApiKey(id: $id) { id revokedAt } }`;
/** A key as LIST reads it. */
type ListedKey = { id: string; name: string | null; prefix: string; createdAt: string; lastUsedAt: string | null; revokedAt: string | null };
/** The project's keys (those of `key`'s project), through GraphQL. */
const listKeys = async (key?: string) => (await gqlData<{ apiKeys: ListedKey[] }>(t, LIST, {}, { key })).apiKeys;

describe("API keys through GraphQL", () => {
  test("a named key is created and shown once; lists carry its prefix, never the key or its hash", async () => {
    const r = await gql(t, CREATE, { name: "ci" });
    expect(r.errors).toBeUndefined();
    const { apiKey, key } = r.data.createApiKey;
    expect(apiKey).toMatch(/^hone_sk_[A-Za-z0-9]{40}$/);
    expect(key).toMatchObject({ name: "ci", prefix: `hone_sk_…${apiKey.slice(-4)}`, lastUsedAt: null, revokedAt: null });
    expect(key.id).toMatch(/^key_/);

    const listed = await listKeys();
    expect(listed.map((k) => k.id)).toContain(key.id);
    expect(listed.find((k) => k.id === key.id)).toEqual(key);
    // The first key of the project (from createProject) has no name.
    expect(listed[0]!.name).toBeNull();

    const [row] = await t.deps.database.db.select().from(apiKeys).where(eq(apiKeys.id, key.id));
    expect(row!.keyHash).toBe(new Bun.CryptoHasher("sha256").update(apiKey).digest("hex"));
    expect(JSON.stringify(row)).not.toContain(apiKey);
    for (const text of [JSON.stringify(listed), JSON.stringify(await trpcClient(t).apiKeys.list.query())]) {
      expect(text).not.toContain(apiKey);
      expect(text).not.toContain(row!.keyHash);
    }
    expect(await statusWith(apiKey)).toBe(200);
  });

  test("createApiKey needs no input; bad names are refused", async () => {
    const bare = await gql(t, `mutation { createApiKey { apiKey key { name } } }`);
    expect(bare.data.createApiKey.key.name).toBeNull();
    for (const name of ["x".repeat(101), "   ", "line\nbreak"]) {
      const r = await gql(t, CREATE, { name });
      expect(r.errors[0].extensions.code).toBe("VALIDATION");
    }
    const trimmed = await gql(t, CREATE, { name: "  laptop  " });
    expect(trimmed.data.createApiKey.key.name).toBe("laptop");
  });

  test("a project holds at most HONE_MAX_ACTIVE_API_KEYS active keys; revoking one makes room", async () => {
    const p = await t.createProject("many-keys");
    const made: string[] = [];
    for (let i = 1; i < MAX_ACTIVE_API_KEYS; i++) {
      const r = await gql(t, CREATE, { name: `k${i}` }, { key: p.apiKey });
      made.push(r.data.createApiKey.key.id);
    }
    const over = await gql(t, CREATE, { name: "one too many" }, { key: p.apiKey });
    expect(over.errors[0].extensions.code).toBe("VALIDATION");
    expect(over.errors[0].message).toContain(`at most ${MAX_ACTIVE_API_KEYS} active API keys (HONE_MAX_ACTIVE_API_KEYS)`);
    await gql(t, "mutation($id: ID!) { revokeApiKey(id: $id) { id } }", { id: made[0] }, { key: p.apiKey });
    expect((await gql(t, CREATE, { name: "room again" }, { key: p.apiKey })).data.createApiKey.key.name).toBe("room again");
  });

  test("lastUsedAt is recorded, at most once a minute", async () => {
    const { apiKey, key } = (await gql(t, CREATE, { name: "usage" })).data.createApiKey;
    expect(await statusWith(apiKey)).toBe(200);
    const first = (await listKeys()).find((k) => k.id === key.id)!.lastUsedAt;
    expect(first).not.toBeNull();
    // The other process has not seen the key: it reads the row, and leaves a fresh time alone.
    expect(await statusWith(apiKey, other)).toBe(200);
    expect((await listKeys()).find((k) => k.id === key.id)!.lastUsedAt).toBe(first);
    // A minute later (the stored time made old), the next read by a process records the use again.
    const old = new Date(Date.now() - 120_000);
    await t.deps.database.db.update(apiKeys).set({ lastUsedAt: old }).where(eq(apiKeys.id, key.id));
    await Bun.sleep(OTHER_CACHE_MS + 50);
    expect(await statusWith(apiKey, other)).toBe(200);
    const again = (await listKeys()).find((k) => k.id === key.id)!.lastUsedAt;
    expect(again).not.toBeNull();
    expect(new Date(again!).getTime()).toBeGreaterThan(Date.now() - 10_000);
  });

  test("a revoked key gets 401 at once on the revoking process, and within HONE_API_KEY_CACHE_MS on another", async () => {
    const { apiKey, key } = (await gql(t, CREATE, { name: "doomed" })).data.createApiKey;
    // Both processes have the key in their caches.
    expect(await statusWith(apiKey)).toBe(200);
    expect(await statusWith(apiKey, other)).toBe(200);

    const revoked = await gql(t, REVOKE, { id: key.id });
    expect(revoked.data.revokeApiKey.id).toBe(key.id);
    expect(revoked.data.revokeApiKey.revokedAt).not.toBeNull();
    expect(await statusWith(apiKey)).toBe(401);
    const viaGraphql = await gql(t, LIST, {}, { key: apiKey });
    expect(viaGraphql.errors[0].extensions.code).toBe("UNAUTHORIZED");

    await Bun.sleep(OTHER_CACHE_MS + 50);
    expect(await statusWith(apiKey, other)).toBe(401);

    // Revoking again changes nothing and is not an error; the key stays listed, revoked.
    const twice = await gql(t, REVOKE, { id: key.id });
    expect(twice.data.revokeApiKey).toEqual(revoked.data.revokeApiKey);
    expect((await listKeys()).find((k) => k.id === key.id)!.revokedAt).toBe(revoked.data.revokeApiKey.revokedAt);
  });

  test("a key may revoke itself", async () => {
    const { apiKey, key } = (await gql(t, CREATE, { name: "self" })).data.createApiKey;
    const r = await gql(t, REVOKE, { id: key.id }, { key: apiKey });
    expect(r.data.revokeApiKey.revokedAt).not.toBeNull();
    expect(await statusWith(apiKey)).toBe(401);
  });

  test("unknown ids and other projects' keys are 404; other projects' keys are not listed", async () => {
    const unknown = await gql(t, REVOKE, { id: "key_nope" });
    expect(unknown.errors[0].extensions.code).toBe("NOT_FOUND");
    const otherProject = await t.createProject("elsewhere");
    const theirs = await listKeys(otherProject.apiKey);
    expect(theirs).toHaveLength(1);
    const mine = (await listKeys()).map((k) => k.id);
    expect(mine).not.toContain(theirs[0]!.id);
    const cross = await gql(t, REVOKE, { id: theirs[0]!.id });
    expect(cross.errors[0].extensions.code).toBe("NOT_FOUND");
    expect(await statusWith(otherProject.apiKey)).toBe(200);
  });
});

describe("API keys through tRPC", () => {
  test("apiKeys.create, list and revoke", async () => {
    const created = await trpcClient(t).apiKeys.create.mutate({ name: "trpc" });
    expect(created.apiKey).toMatch(/^hone_sk_/);
    expect(created.key).toMatchObject({ name: "trpc", prefix: `hone_sk_…${created.apiKey.slice(-4)}`, revokedAt: null });
    expect(typeof created.key.createdAt).toBe("string");
    expect((await trpcClient(t).apiKeys.list.query()).map((k) => k.id)).toContain(created.key.id);
    expect((await trpcClient(t).apiKeys.create.mutate()).key.name).toBeNull();

    const revoked = await trpcClient(t).apiKeys.revoke.mutate({ id: created.key.id });
    expect(revoked.revokedAt).not.toBeNull();
    const refused = await trpcClient(t, created.apiKey)
      .apiKeys.list.query()
      .catch((e) => e);
    expect(refused).toBeInstanceOf(TRPCClientError);
    expect(refused.data.httpStatus).toBe(401);

    const missing = await trpcClient(t)
      .apiKeys.revoke.mutate({ id: "key_nope" })
      .catch((e) => e);
    expect(missing.data).toMatchObject({ code: "NOT_FOUND", httpStatus: 404 });
    const bad = await trpcClient(t)
      .apiKeys.create.mutate({ name: "x".repeat(101) })
      .catch((e) => e);
    expect(bad.data).toMatchObject({ code: "VALIDATION", httpStatus: 400 });
  });
});

describe("GET /graphql", () => {
  const url = `/graphql?query=${encodeURIComponent("{ apiKeys { id } }")}`;

  test("with Accept: text/html serves the GraphiQL page only, never the query", async () => {
    const res = await t.request("GET", url, { key: null, headers: { accept: "text/html" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    const html = await res.text();
    expect(html).toContain("<html");
    const ids = (await listKeys()).map((k) => k.id);
    for (const id of ids) expect(html).not.toContain(id);
  });

  test("with GraphiQL off, a browser's GET needs a key like any other", async () => {
    for (const accept of ["text/html", "text/html, application/json"]) {
      const res = await other.handle(new Request(`http://localhost${url}`, { headers: { accept } }));
      expect(res.status).toBe(401);
      expect(await res.text()).not.toContain('"data"');
    }
  });

  test("with Accept: application/json and no key: 401", async () => {
    const res = await t.request("GET", url, { key: null, headers: { accept: "application/json" } });
    expect(res.status).toBe(401);
    const withKey = await t.request("GET", url, { headers: { accept: "application/json" } });
    const answer = z.object({ data: z.object({ apiKeys: z.array(z.unknown()) }) }).parse(await withKey.json());
    expect(answer.data.apiKeys.length).toBeGreaterThan(0);
  });
});
