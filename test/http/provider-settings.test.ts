import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { TRPCClientError } from "@trpc/client";
import type OpenAI from "openai";
import { createApp } from "../../src/app";
import { createDeps } from "../../src/compose";
import { createLogger } from "../../src/core/logger";
import { createTestApp, serve, type TestApp, openAiClient } from "../helpers/app";
import { startFakeOpenAI, type FakeUpstream } from "../helpers/fake-upstreams";
import { latestLog } from "../helpers/logs";
import { gql } from "../helpers/gql";
import { trpcClient } from "../helpers/trpc";

let t: TestApp;
let gemini: FakeUpstream;
let custom: FakeUpstream;
let azure: FakeUpstream;
let server: { url: string; stop(): Promise<void> };
let client: OpenAI;

beforeAll(async () => {
  gemini = startFakeOpenAI({ apiKey: "gemini-key-abcd" });
  custom = startFakeOpenAI({ apiKey: "custom-key-wxyz" });
  azure = startFakeOpenAI({ apiKey: "azure-key-0000" });
  // The custom providers here are fake upstreams on 127.0.0.1, which an operator must open.
  t = await createTestApp({ env: { GEMINI_BASE_URL: `${gemini.url}/v1beta/openai`, HONE_ALLOW_PRIVATE_UPSTREAMS: "true" } });
  server = serve(t.app);
  client = openAiClient(server.url, t.project.apiKey);
});
afterAll(async () => {
  await server.stop();
  for (const f of [gemini, custom, azure]) await f.stop();
  await t.close();
});

describe("provider keys", () => {
  test("set through GraphQL: only the last 4 characters come back; the stored value is ciphertext", async () => {
    const r = await gql(t, `mutation($k: String!) { setProviderKey(input: {provider: "gemini", apiKey: $k}) { provider last4 } }`, { k: "gemini-key-abcd" });
    expect(r.data.setProviderKey).toEqual({ provider: "gemini", last4: "abcd" });
    const listed = await gql(t, `{ providerKeys { provider last4 } }`);
    expect(listed.data.providerKeys).toEqual([{ provider: "gemini", last4: "abcd" }]);
    const rows = await t.deps.database.db.query.providerKeys.findMany({ where: { projectId: t.project.projectId } });
    expect(rows).toHaveLength(1);
    expect(rows[0]!.keyCiphertext).not.toContain("gemini-key-abcd");
    expect(rows[0]!.keyCiphertext).toMatch(/^v1:/);
    expect(JSON.stringify(await trpcClient(t).providerKeys.list.query())).not.toContain("gemini-key-abcd");
  });

  test("set through tRPC; bad providers and keys are rejected", async () => {
    expect(await trpcClient(t).providerKeys.set.mutate({ provider: "openai", apiKey: "sk-tRPC-key-1234" })).toMatchObject({
      provider: "openai",
      last4: "1234",
    });
    const err = await trpcClient(t)
      .providerKeys.set.mutate({ provider: "mistral" as never, apiKey: "sk-12345678" })
      .catch((e) => e);
    expect(err).toBeInstanceOf(TRPCClientError);
    expect(err.data.httpStatus).toBe(400);
    const gqlErr = await gql(t, `mutation { setProviderKey(input: {provider: "openai", apiKey: "x"}) { last4 } }`);
    expect(gqlErr.errors[0].extensions.code).toBe("VALIDATION");
  });

  test("gemini: routed to GEMINI_BASE_URL with the stored key", async () => {
    const r = await client.chat.completions.create({
      model: "gemini:gemini-2.0-flash",
      messages: [{ role: "user", content: "hi" }],
      metadata: { k: "v" },
      store: true,
    });
    expect(r.choices[0]!.message.content).toBe("echo: hi");
    const sent = gemini.requests.at(-1)!;
    expect(sent.path).toBe("/v1beta/openai/chat/completions");
    expect(sent.headers.authorization).toBe("Bearer gemini-key-abcd");
    expect(sent.body.model).toBe("gemini-2.0-flash");
    expect(sent.body.metadata).toBeUndefined();
    expect(sent.body.store).toBeUndefined();
    const log = await latestLog(t);
    expect(log).toMatchObject({ provider: "gemini", statusCode: 200, tags: { k: "v" } });
    expect(log.costUsd).toBeGreaterThan(0);
  });

  test("a key stored under another HONE_SECRET_KEY fails clearly, not with a decryption stack", async () => {
    const deps = createDeps({
      config: t.deps.config,
      database: t.db.database,
      logger: createLogger("silent"),
      secretKey: crypto.getRandomValues(new Uint8Array(32)),
    });
    const res = await createApp(deps).handle(
      new Request("http://localhost/api/v1/chat/completions", {
        method: "POST",
        headers: { authorization: `Bearer ${t.project.apiKey}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "gemini:gemini-2.0-flash", messages: [{ role: "user", content: "x" }] }),
      }),
    );
    expect(res.status).toBe(500);
    const body = (await res.json()) as { message: string };
    expect(body.message).toContain("cannot be decrypted: HONE_SECRET_KEY is not the key it was stored with");
    // This second app's log of the call is stored now, not on its writer's timer during a later
    // test (whose latest log it would then be).
    await deps.logWriter.close();
  });
});

describe("custom providers", () => {
  test("kind openai takes any OpenAI-compatible base URL, called as hone:<slug>/<model>", async () => {
    const r = await gql(
      t,
      `mutation($u: String!) { createCustomProvider(input: {slug: "local-llm", kind: "openai", baseUrl: $u, apiKey: "custom-key-wxyz"}) { id slug kind baseUrl } }`,
      { u: `${custom.url}/v1/` },
    );
    expect(r.data.createCustomProvider).toMatchObject({ slug: "local-llm", kind: "openai", baseUrl: `${custom.url}/v1` });
    for (const prefix of ["hone", "openpipe"]) {
      const c = await client.chat.completions.create({ model: `${prefix}:local-llm/llama-3.1-8b`, messages: [{ role: "user", content: "yo" }] });
      expect(c.choices[0]!.message.content).toBe("echo: yo");
      const sent = custom.requests.at(-1)!;
      expect(sent.path).toBe("/v1/chat/completions");
      expect(sent.body.model).toBe("llama-3.1-8b");
      expect(sent.headers.authorization).toBe("Bearer custom-key-wxyz");
    }
    const stream = await client.chat.completions.create({ model: "hone:local-llm/llama-3.1-8b", messages: [{ role: "user", content: "s" }], stream: true });
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    expect(text).toBe("echo: s");
    const log = await latestLog(t);
    expect(log).toMatchObject({ provider: "custom", model: "hone:local-llm/llama-3.1-8b", statusCode: 200, costUsd: null });
  });

  test("kind azure: deployment path, api-version and api-key header", async () => {
    const created = await trpcClient(t).customProviders.create.mutate({
      slug: "azure-east",
      kind: "azure",
      baseUrl: azure.url,
      apiKey: "azure-key-0000",
      apiVersion: "2024-10-21",
    });
    expect(created).toMatchObject({ slug: "azure-east", kind: "azure", apiVersion: "2024-10-21", keyLast4: "0000" });
    expect(JSON.stringify(created)).not.toContain("azure-key-0000");
    const c = await client.chat.completions.create({ model: "hone:azure-east/my-gpt4o", messages: [{ role: "user", content: "az" }] });
    expect(c.choices[0]!.message.content).toBe("echo: az");
    const sent = azure.requests.at(-1)!;
    expect(sent.path).toBe("/openai/deployments/my-gpt4o/chat/completions");
    expect(new URL(sent.url).searchParams.get("api-version")).toBe("2024-10-21");
    expect(sent.headers["api-key"]).toBe("azure-key-0000");
    expect(sent.headers.authorization).toBeUndefined();
    const s = await client.chat.completions.create({ model: "hone:azure-east/my-gpt4o", messages: [{ role: "user", content: "az2" }], stream: true });
    let text = "";
    for await (const chunk of s) text += chunk.choices[0]?.delta.content ?? "";
    expect(text).toBe("echo: az2");
  });

  test("validation, conflicts, unknown slugs and isolation", async () => {
    const noVersion = await gql(t, `mutation { createCustomProvider(input: {slug: "az2", kind: "azure", baseUrl: "https://x.openai.azure.com"}) { id } }`);
    expect(noVersion.errors[0].extensions.code).toBe("VALIDATION");
    const badKind = await gql(t, `mutation { createCustomProvider(input: {slug: "k", kind: "bedrock", baseUrl: "https://x"}) { id } }`);
    expect(badKind.errors[0].extensions.code).toBe("VALIDATION");
    const badSlug = await gql(t, `mutation { createCustomProvider(input: {slug: "Has Spaces", kind: "openai", baseUrl: "https://x"}) { id } }`);
    expect(badSlug.errors[0].extensions.code).toBe("VALIDATION");
    const dup = await gql(t, `mutation { createCustomProvider(input: {slug: "local-llm", kind: "openai", baseUrl: "https://x"}) { id } }`);
    expect(dup.errors[0].extensions.code).toBe("CONFLICT");

    const unknown = await client.chat.completions.create({ model: "hone:nope/m", messages: [{ role: "user", content: "x" }] }).catch((e) => e);
    expect(unknown.status).toBe(404);
    expect(unknown.message).toContain("Custom provider nope not found");

    const other = await t.createProject("other");
    const otherClient = openAiClient(server.url, other.apiKey);
    const hidden = await otherClient.chat.completions.create({ model: "hone:local-llm/m", messages: [{ role: "user", content: "x" }] }).catch((e) => e);
    expect(hidden.status).toBe(404);
    expect((await gql(t, `{ customProviders { slug } providerKeys { provider } }`, {}, { key: other.apiKey })).data).toEqual({
      customProviders: [],
      providerKeys: [],
    });
    // Their own slug of the same name is fine.
    const theirs = await gql(
      t,
      `mutation { createCustomProvider(input: {slug: "local-llm", kind: "openai", baseUrl: "https://y"}) { slug } }`,
      {},
      { key: other.apiKey },
    );
    expect(theirs.data.createCustomProvider.slug).toBe("local-llm");
  });
});
