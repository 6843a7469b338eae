import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { TRPCClientError } from "@trpc/client";
import type { AppRouter } from "../../src/http/trpc/router";
import { createTestApp, type TestApp } from "../helpers/app";
import { startFakeOpenAI, type FakeUpstream } from "../helpers/fake-upstreams";
import { gql } from "../helpers/gql";
import { trpcClient } from "../helpers/trpc";

// customProviders.update / delete (tRPC) and updateCustomProvider / deleteCustomProvider (GraphQL).

let open: TestApp; // HONE_ALLOW_PRIVATE_UPSTREAMS=true: the fake upstreams are on 127.0.0.1
let strict: TestApp; // the default: private addresses refused
let a: FakeUpstream;
let b: FakeUpstream;
beforeAll(async () => {
  a = startFakeOpenAI({ apiKey: "key-of-a-aaaa" });
  b = startFakeOpenAI({ apiKey: "key-of-b-bbbb" });
  open = await createTestApp({ env: { HONE_ALLOW_PRIVATE_UPSTREAMS: "true" } });
  strict = await createTestApp();
});
afterAll(async () => {
  await a.stop();
  await b.stop();
  await open.close();
  await strict.close();
});

async function failure(p: Promise<unknown>) {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(TRPCClientError);
    return err as TRPCClientError<AppRouter>;
  }
  throw new Error("expected the call to fail");
}

const chat = (t: TestApp, model: string) => t.request("POST", "/api/v1/chat/completions", { body: { model, messages: [{ role: "user", content: "hi" }] } });

describe("customProviders.update and delete", () => {
  test("an update takes effect on the next call; delete makes the model 404", async () => {
    const trpc = trpcClient(open);
    const p = await trpc.customProviders.create.mutate({ slug: "mine", kind: "openai", baseUrl: `${a.url}/v1`, apiKey: "key-of-a-aaaa" });
    expect((await chat(open, "hone:mine/m")).status).toBe(200);
    expect(a.requests).toHaveLength(1);

    const updated = await trpc.customProviders.update.mutate({ id: p.id, baseUrl: `${b.url}/v1/`, apiKey: "key-of-b-bbbb" });
    expect(updated).toMatchObject({ id: p.id, slug: "mine", kind: "openai", baseUrl: `${b.url}/v1`, keyLast4: "bbbb" });
    expect(JSON.stringify(updated)).not.toContain("key-of-b");
    expect((await chat(open, "hone:mine/m")).status).toBe(200);
    expect(b.requests).toHaveLength(1);
    expect(b.requests[0]!.headers.authorization).toBe("Bearer key-of-b-bbbb");

    // Renaming the slug, removing the key.
    const renamed = await trpc.customProviders.update.mutate({ id: p.id, slug: "renamed", apiKey: null });
    expect(renamed).toMatchObject({ slug: "renamed", keyLast4: null, baseUrl: `${b.url}/v1` });
    expect((await chat(open, "hone:mine/m")).status).toBe(404);
    expect((await chat(open, "hone:renamed/m")).status).toBe(401); // b wants its key, none is sent
    expect(b.requests.at(-1)!.headers.authorization).toBeUndefined();

    // To azure: needs an apiVersion, then works.
    const noVersion = await failure(trpc.customProviders.update.mutate({ id: p.id, kind: "azure" }));
    expect(noVersion.data?.code).toBe("VALIDATION");
    expect(JSON.stringify(noVersion.data?.issues)).toContain("apiVersion is required for azure");
    expect(await trpc.customProviders.update.mutate({ id: p.id, kind: "azure", apiVersion: "2024-10-21" })).toMatchObject({
      kind: "azure",
      apiVersion: "2024-10-21",
    });

    expect(await trpc.customProviders.delete.mutate({ id: p.id })).toEqual({ id: p.id, deleted: true });
    expect(await trpc.customProviders.list.query()).toEqual([]);
    expect((await chat(open, "hone:renamed/m")).status).toBe(404);
    expect((await failure(trpc.customProviders.delete.mutate({ id: p.id }))).data?.httpStatus).toBe(404);
  });

  test("a slug taken by another provider is CONFLICT; bad fields are VALIDATION", async () => {
    const trpc = trpcClient(open);
    const one = await trpc.customProviders.create.mutate({ slug: "one", kind: "openai", baseUrl: "https://one.example/v1" });
    await trpc.customProviders.create.mutate({ slug: "two", kind: "openai", baseUrl: "https://two.example/v1" });
    const dup = await failure(trpc.customProviders.update.mutate({ id: one.id, slug: "two" }));
    expect(dup.data?.code).toBe("CONFLICT");
    for (const bad of [{ slug: "Not A Slug" }, { baseUrl: "ftp://x" }, { kind: "bedrock" }, { apiKey: "" }, { baseUrl: `https://${"x".repeat(2100)}` }]) {
      const err = await failure(trpc.customProviders.update.mutate({ id: one.id, ...bad } as never));
      expect({ bad, code: err.data?.code }).toEqual({ bad, code: "VALIDATION" });
    }
    expect((await failure(trpc.customProviders.update.mutate({ id: "" }))).data?.code).toBe("VALIDATION");
    expect((await trpc.customProviders.list.query()).find((p) => p.id === one.id)).toMatchObject({ slug: "one", baseUrl: "https://one.example/v1" });
  });

  test("the SSRF rules of create: a private URL is refused on update too", async () => {
    const trpc = trpcClient(strict);
    const p = await trpc.customProviders.create.mutate({ slug: "pub", kind: "openai", baseUrl: "https://api.example.com/v1" });
    for (const url of [`${a.url}/v1`, "http://10.0.0.5/v1", "http://[::1]/v1", "http://localhost:8080/v1"]) {
      const err = await failure(trpc.customProviders.update.mutate({ id: p.id, baseUrl: url }));
      expect(err.data?.code).toBe("VALIDATION");
      expect(err.message).toContain("HONE_ALLOW_PRIVATE_UPSTREAMS");
    }
    expect(a.requests).toHaveLength(1); // only the first test's call: nothing was contacted
    expect((await trpc.customProviders.list.query())[0]!.baseUrl).toBe("https://api.example.com/v1");
  });

  test("another project's provider is NOT_FOUND, untouched", async () => {
    const other = await open.createProject("other");
    const theirs = await trpcClient(open, other.apiKey).customProviders.create.mutate({ slug: "theirs", kind: "openai", baseUrl: "https://x.example" });
    const trpc = trpcClient(open);
    expect((await failure(trpc.customProviders.update.mutate({ id: theirs.id, slug: "stolen" }))).data?.httpStatus).toBe(404);
    expect((await failure(trpc.customProviders.delete.mutate({ id: theirs.id }))).data?.httpStatus).toBe(404);
    const g = await gql(open, `mutation($id: ID!) { deleteCustomProvider(id: $id) }`, { id: theirs.id });
    expect(g.errors[0].extensions.code).toBe("NOT_FOUND");
    expect(await trpcClient(open, other.apiKey).customProviders.list.query()).toEqual([expect.objectContaining({ id: theirs.id, slug: "theirs" })]);
  });

  test("GraphQL updateCustomProvider and deleteCustomProvider", async () => {
    const created = await gql(
      open,
      `mutation { createCustomProvider(input: {slug: "gql", kind: "openai", baseUrl: "https://g.example", apiKey: "gql-key-1234"}) { id keyLast4 } }`,
    );
    const id = created.data.createCustomProvider.id;
    const upd = await gql(
      open,
      `mutation($id: ID!) { updateCustomProvider(input: {id: $id, baseUrl: "https://h.example/v2", apiKey: null}) { id slug baseUrl keyLast4 } }`,
      { id },
    );
    expect(upd.data.updateCustomProvider).toEqual({ id, slug: "gql", baseUrl: "https://h.example/v2", keyLast4: null });
    const bad = await gql(open, `mutation($id: ID!) { updateCustomProvider(input: {id: $id, baseUrl: "http://127.0.0.1/v1", kind: "nope"}) { id } }`, { id });
    expect(bad.errors[0].extensions.code).toBe("VALIDATION");
    expect((await gql(open, `mutation($id: ID!) { deleteCustomProvider(id: $id) }`, { id })).data.deleteCustomProvider).toBe(id);
    expect((await gql(open, `mutation($id: ID!) { updateCustomProvider(input: {id: $id, slug: "x"}) { id } }`, { id })).errors[0].extensions.code).toBe(
      "NOT_FOUND",
    );
  });
});
