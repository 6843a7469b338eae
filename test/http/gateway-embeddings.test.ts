import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type OpenAI from "openai";
import { systemCtx } from "../../src/domain/context";
import { cacheKey } from "../../src/domain/cache";
import { calcPrice } from "@pydantic/genai-prices";
import { createCustomProvider } from "../../src/domain/projects";
import { MAX_EMBEDDING_INPUT_CHARS, MAX_EMBEDDING_INPUTS } from "../../src/core/limits";
import { createTestApp, openAiClient, serve, storeProviderKey, type TestApp } from "../helpers/app";
import { fakeEmbedding, startFakeOpenAI, type FakeUpstream } from "../helpers/fake-upstreams";
import { latestLog, logsOf } from "../helpers/logs";

const OPENAI_KEY = "sk-openai-embed-0001";
let t: TestApp;
let openai: FakeUpstream;
let gemini: FakeUpstream;
let custom: FakeUpstream;
let azure: FakeUpstream;
let server: { url: string; stop(): Promise<void> };
let client: OpenAI;

beforeAll(async () => {
  openai = startFakeOpenAI({ apiKey: OPENAI_KEY });
  gemini = startFakeOpenAI({ apiKey: "gemini-key-emb1" });
  custom = startFakeOpenAI({ apiKey: "custom-key-emb2" });
  azure = startFakeOpenAI({ apiKey: "azure-key-emb3" });
  t = await createTestApp({
    env: {
      OPENAI_BASE_URL: `${openai.url}/v1`,
      GEMINI_BASE_URL: `${gemini.url}/v1beta/openai`,
      // The custom providers are fake upstreams on 127.0.0.1, which the operator must open.
      HONE_ALLOW_PRIVATE_UPSTREAMS: "true",
      HONE_UPSTREAM_TIMEOUT_MS: "1500",
    },
  });
  await storeProviderKey(t, "openai", OPENAI_KEY);
  await storeProviderKey(t, "gemini", "gemini-key-emb1");
  const ctx = { ...systemCtx(t.deps, "test"), projectId: t.project.projectId };
  await createCustomProvider(ctx, { slug: "local", kind: "openai", baseUrl: `${custom.url}/v1`, apiKey: "custom-key-emb2" });
  await createCustomProvider(ctx, { slug: "azure-east", kind: "azure", baseUrl: azure.url, apiKey: "azure-key-emb3", apiVersion: "2024-10-21" });
  server = serve(t.app);
  client = openAiClient(server.url, t.project.apiKey);
});
afterAll(async () => {
  await server.stop();
  for (const f of [openai, gemini, custom, azure]) await f.stop();
  await t.close();
});

const embed = (body: unknown, headers: Record<string, string> = {}) => t.request("POST", "/api/v1/embeddings", { body, headers });
const fromBase64 = (s: string) => Array.from(new Float32Array(new Uint8Array(Buffer.from(s, "base64")).buffer));
const toBase64 = (v: number[]) => Buffer.from(new Float32Array(v).buffer).toString("base64");

describe("POST /embeddings with the openai SDK", () => {
  test("a string: the SDK's default (base64) is decoded to the right floats; the call is logged without its vectors", async () => {
    const r = await client.embeddings.create({ model: "openai:text-embedding-3-small", input: "hello embedding world" });
    expect(r.object).toBe("list");
    expect(r.data).toHaveLength(1);
    expect(Array.from(r.data[0]!.embedding)).toEqual(fakeEmbedding("hello embedding world"));
    expect(r.usage).toEqual({ prompt_tokens: 3, total_tokens: 3 });

    const sent = openai.requests.at(-1)!;
    expect(sent.path).toBe("/v1/embeddings");
    expect(sent.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
    expect(sent.body).toEqual({ model: "text-embedding-3-small", input: "hello embedding world", encoding_format: "base64" });

    const log = await latestLog(t);
    expect(log).toMatchObject({
      api: "embeddings",
      source: "gateway",
      provider: "openai",
      model: "openai:text-embedding-3-small",
      statusCode: 200,
      errorMessage: null,
      inputTokens: 3,
      outputTokens: null,
      cacheHit: false,
      inputPreview: "hello embedding world",
    });
    const cost = Number(calcPrice({ input_tokens: 3, output_tokens: 0 }, "text-embedding-3-small", { providerId: "openai" })!.total_price);
    expect(cost).toBeGreaterThan(0);
    expect(log.costUsd).toBeCloseTo(cost!, 15);
    // The request as the SDK sent it; the answer with each vector replaced by its size.
    expect(log.body.reqPayload).toEqual({ model: "openai:text-embedding-3-small", input: "hello embedding world", encoding_format: "base64" });
    expect(log.body.respPayload).toEqual({
      object: "list",
      data: [{ object: "embedding", index: 0, dimensions: 8 }],
      model: "text-embedding-3-small",
      usage: { prompt_tokens: 3, total_tokens: 3 },
    });
  });

  test("an array with encoding_format float and dimensions: Hone asks OpenAI for base64 and answers floats", async () => {
    const inputs = ["one", "two words", "three more words"];
    const r = await client.embeddings.create({ model: "text-embedding-3-large", input: inputs, encoding_format: "float", dimensions: 4, user: "u-1" });
    expect(r.data.map((d) => d.index)).toEqual([0, 1, 2]);
    expect(r.data.map((d) => d.embedding)).toEqual(inputs.map((x) => fakeEmbedding(x, 4)));
    expect(r.usage.prompt_tokens).toBe(6);
    const sent = openai.requests.at(-1)!.body;
    expect(sent).toEqual({ model: "text-embedding-3-large", input: inputs, encoding_format: "base64", dimensions: 4, user: "u-1" });
    const log = await latestLog(t);
    expect(log).toMatchObject({ model: "openai:text-embedding-3-large", inputTokens: 6, inputPreview: "one" });
    expect(log.costUsd).toBeCloseTo(
      Number(calcPrice({ input_tokens: 6, output_tokens: 0 }, "text-embedding-3-large", { providerId: "openai" })!.total_price),
      15,
    );
  });

  test("encoding_format base64 asked for explicitly: the SDK hands back base64 of little-endian float32", async () => {
    const r = await client.embeddings.create({ model: "openai:text-embedding-3-small", input: ["a b", "c"], encoding_format: "base64" });
    for (const [i, x] of ["a b", "c"].entries()) {
      const e = r.data[i]!.embedding as unknown as string;
      expect(typeof e).toBe("string");
      expect(fromBase64(e)).toEqual(fakeEmbedding(x));
    }
  });

  test("token ids and token arrays are passed as they are", async () => {
    const one = await embed({ model: "text-embedding-3-small", input: [101, 202, 303] });
    expect(one.status).toBe(200);
    expect((await one.json()).data[0].embedding).toEqual(fakeEmbedding([101, 202, 303]));
    expect(openai.requests.at(-1)!.body.input).toEqual([101, 202, 303]);

    const many = await embed({ model: "text-embedding-3-small", input: [[1, 2], [3]] });
    const body = await many.json();
    expect(body.data.map((d: { embedding: number[] }) => d.embedding)).toEqual([fakeEmbedding([1, 2]), fakeEmbedding([3])]);
    expect(body.usage).toEqual({ prompt_tokens: 3, total_tokens: 3 });
    const log = await latestLog(t);
    expect(log.inputTokens).toBe(3);
    expect(log.inputPreview).toBeNull();
  });
});

describe("validation", () => {
  const cases: [string, unknown, string, string][] = [
    ["no input", { model: "text-embedding-3-small" }, "input", "input must be a string"],
    ["an empty string", { model: "text-embedding-3-small", input: "" }, "input", "must not be empty"],
    ["an empty array", { model: "text-embedding-3-small", input: [] }, "input", "must not be an empty array"],
    ["a mixed array", { model: "text-embedding-3-small", input: ["a", 1] }, "input", "input must be a string"],
    ["an object", { model: "text-embedding-3-small", input: { text: "x" } }, "input", "input must be a string"],
    ["fractional token ids", { model: "text-embedding-3-small", input: [1.5] }, "input", "input must be a string"],
    [
      "too many inputs",
      { model: "text-embedding-3-small", input: Array(MAX_EMBEDDING_INPUTS + 1).fill("x") },
      "input",
      `at most ${MAX_EMBEDDING_INPUTS} inputs`,
    ],
    ["a string too long", { model: "text-embedding-3-small", input: "x".repeat(MAX_EMBEDDING_INPUT_CHARS + 1) }, "input", "at most 100000 characters"],
    ["one long string in an array", { model: "text-embedding-3-small", input: ["ok", "x".repeat(MAX_EMBEDDING_INPUT_CHARS + 1)] }, "input.1", "at most"],
    ["an empty token array", { model: "text-embedding-3-small", input: [[1], []] }, "input.1", "must not be empty"],
    ["a bad encoding", { model: "text-embedding-3-small", input: "x", encoding_format: "hex" }, "encoding_format", "float or base64"],
    ["zero dimensions", { model: "text-embedding-3-small", input: "x", dimensions: 0 }, "dimensions", ""],
    ["no model", { input: "x" }, "model", "model is required"],
    ["an unknown prefix", { model: "mistral:embed", input: "x" }, "model", "unknown provider prefix"],
    ["an unknown hone member", { model: "text-embedding-3-small", input: "x", hone: { criteria: ["crit_1"] } }, "hone", ""],
  ];
  for (const [name, body, path, message] of cases) {
    test(`${name}: 400 in the gateway's error shape, naming ${path}; no upstream call`, async () => {
      const before = openai.requests.length;
      const res = await embed(body);
      expect(res.status).toBe(400);
      const err = await res.json();
      expect(err.code).toBe("VALIDATION");
      expect(err.error).toMatchObject({ type: "validation", code: "VALIDATION" });
      expect(typeof err.error.message).toBe("string");
      const issue = err.issues.find((i: { path?: unknown[] }) => (i.path ?? []).join(".").startsWith(path));
      expect(issue).toBeDefined();
      expect(`${err.message} ${issue.message}`).toContain(message);
      expect(openai.requests.length).toBe(before);
    });
  }

  test("malformed JSON and a bad op-log-vectors header are 400s too", async () => {
    const bad = await embed("{not json");
    expect(bad.status).toBe(400);
    expect((await bad.json()).error).toBeDefined();
    const header = await embed({ model: "text-embedding-3-small", input: "x" }, { "op-log-vectors": "yes" });
    expect(header.status).toBe(400);
    expect((await header.json()).issues[0].path).toEqual(["op-log-vectors"]);
  });

  test("an Anthropic model is a 400 saying Anthropic has no embeddings API", async () => {
    const res = await embed({ model: "anthropic:claude-sonnet-4-5", input: "x" });
    expect(res.status).toBe(400);
    const err = await res.json();
    expect(err.message).toContain("Anthropic has no embeddings API");
    expect(err.error.message).toContain("Anthropic has no embeddings API");
    expect(err.issues[0].path).toEqual(["model"]);
  });

  test("a fine-tune is a 400: fine-tunes are chat models", async () => {
    const res = await embed({ model: "hone:my-fine-tune", input: "x" });
    expect(res.status).toBe(400);
    expect((await res.json()).message).toContain("fine-tuned chat model");
  });
});

describe("upstream failures", () => {
  test("an upstream error keeps its status and OpenAI error object; the SDK raises it; the log records it", async () => {
    const res = await embed({ model: "openai:error-429", input: "x" });
    expect(res.status).toBe(429);
    const err = await res.json();
    expect(err.code).toBe("UPSTREAM_ERROR");
    expect(err.error).toEqual({ message: "Simulated upstream error 429", type: "server_error", code: "simulated_429", param: null });
    const log = await latestLog(t);
    expect(log).toMatchObject({ api: "embeddings", statusCode: 429, errorMessage: "Simulated upstream error 429", provider: "openai", costUsd: null });

    const thrown = await client.embeddings.create({ model: "error-500", input: "x" }).catch((e) => e);
    expect(thrown.status).toBe(500);
    expect(thrown.code).toBe("simulated_500");
  });

  test("a 200 that is not an embedding list is a 502; a silent upstream is a 504", async () => {
    const bad = await embed({ model: "not-a-list", input: "x" });
    expect(bad.status).toBe(502);
    expect((await bad.json()).message).toContain("not an embedding list");
    const slow = await embed({ model: "hang", input: "x" });
    expect(slow.status).toBe(504);
    expect((await latestLog(t)).statusCode).toBe(504);
  });

  test("a project without a provider key is a 400 naming the provider", async () => {
    const other = await t.createProject("no-keys");
    const res = await t.request("POST", "/api/v1/embeddings", { key: other.apiKey, body: { model: "text-embedding-3-small", input: "x" } });
    expect(res.status).toBe(400);
    expect((await res.json()).message).toContain("openai");
  });
});

describe("logging controls", () => {
  test("op-log-vectors: true keeps the vectors in the log (as the client received them)", async () => {
    await embed({ model: "text-embedding-3-small", input: ["keep me"] }, { "op-log-vectors": "true" });
    expect((await latestLog(t)).body.respPayload).toMatchObject({ data: [{ object: "embedding", index: 0, embedding: fakeEmbedding("keep me") }] });

    await embed({ model: "text-embedding-3-small", input: "keep me too", encoding_format: "base64", hone: { logVectors: true } });
    expect((await latestLog(t)).body.respPayload).toMatchObject({ data: [{ index: 0, embedding: toBase64(fakeEmbedding("keep me too")) }] });

    // The header wins over the body member.
    await embed({ model: "text-embedding-3-small", input: "drop", hone: { logVectors: true } }, { "op-log-vectors": "false" });
    expect((await latestLog(t)).body.respPayload).toMatchObject({ data: [{ object: "embedding", index: 0, dimensions: 8 }] });
  });

  test("op-log-request: false stores nothing", async () => {
    const before = (await logsOf(t)).length;
    const res = await embed({ model: "text-embedding-3-small", input: "secret" }, { "op-log-request": "false" });
    expect(res.status).toBe(200);
    await embed({ model: "text-embedding-3-small", input: "secret", hone: { logRequest: false } });
    expect((await logsOf(t)).length).toBe(before);
  });

  test("op-tags, hone.tags and metadata become the log's metadata; metadata is not sent upstream", async () => {
    await embed(
      { model: "text-embedding-3-small", input: "tagged", metadata: { doc: "d-1", page: 3 }, hone: { tags: { team: "search" } } },
      { "op-tags": JSON.stringify({ env: "test" }) },
    );
    expect((await latestLog(t)).tags).toEqual({ doc: "d-1", page: "3", team: "search", env: "test" });
    const sent = openai.requests.at(-1)!.body;
    expect(sent.metadata).toBeUndefined();
    expect(sent.hone).toBeUndefined();
  });
});

describe("caching", () => {
  test("an identical request is answered from the cache without an upstream call, in either encoding", async () => {
    const body = { model: "openai:text-embedding-3-small", input: ["cache me", "and me"] };
    const first = await embed(body, { "op-cache": "readWrite" });
    expect(first.headers.get("x-hone-cache")).toBe("MISS");
    const firstBody = await first.json();
    const calls = openai.requests.length;

    const second = await embed(body, { "op-cache": "readWrite" });
    expect(second.headers.get("x-hone-cache")).toBe("HIT");
    expect(await second.json()).toEqual(firstBody);
    expect(openai.requests.length).toBe(calls);
    const log = await latestLog(t);
    expect(log).toMatchObject({ api: "embeddings", cacheHit: true, costUsd: 0, inputTokens: 4, statusCode: 200 });
    expect(log.body.respPayload).toMatchObject({ data: [{ dimensions: 8 }, { dimensions: 8 }] });

    // The SDK (base64 by default) shares the entry; the bare name is the same model.
    const sdk = await client.embeddings.create({ model: "text-embedding-3-small", input: ["cache me", "and me"] }, { headers: { "op-cache": "readOnly" } });
    expect(sdk.data.map((d) => Array.from(d.embedding))).toEqual([fakeEmbedding("cache me"), fakeEmbedding("and me")]);
    expect(openai.requests.length).toBe(calls);

    // Another member (dimensions) is another entry; no cache mode, no cache header.
    const other = await embed({ ...body, dimensions: 4 }, { "op-cache": "readOnly" });
    expect(other.headers.get("x-hone-cache")).toBe("MISS");
    expect(openai.requests.length).toBe(calls + 1);
    expect((await embed(body)).headers.get("x-hone-cache")).toBeNull();
  });

  test("an embeddings key never equals the chat key of the same body", () => {
    const base = { projectId: "p", target: "openai", upstreamModel: "m", body: { model: "m", input: "x" } };
    expect(cacheKey({ ...base, api: "embeddings" })).not.toBe(cacheKey(base));
  });

  test("a bad op-cache value is a 400", async () => {
    const res = await embed({ model: "text-embedding-3-small", input: "x" }, { "op-cache": "sometimes" });
    expect(res.status).toBe(400);
  });
});

describe("other providers", () => {
  test("gemini: its OpenAI-compatible endpoint with the gemini key, floats asked, base64 made by Hone", async () => {
    const res = await embed({ model: "gemini:text-embedding-004", input: "bonjour", encoding_format: "base64" });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(fromBase64(body.data[0].embedding)).toEqual(fakeEmbedding("bonjour"));
    const sent = gemini.requests.at(-1)!;
    expect(sent.path).toBe("/v1beta/openai/embeddings");
    expect(sent.headers.authorization).toBe("Bearer gemini-key-emb1");
    expect(sent.body).toEqual({ model: "text-embedding-004", input: "bonjour" });
    expect(await latestLog(t)).toMatchObject({ provider: "gemini", model: "gemini:text-embedding-004", api: "embeddings" });
  });

  test("a custom OpenAI-compatible provider: <base>/embeddings with its key; cost unknown (null)", async () => {
    const r = await client.embeddings.create({ model: "hone:local/nomic-embed-text", input: "local text" });
    expect(Array.from(r.data[0]!.embedding)).toEqual(fakeEmbedding("local text"));
    const sent = custom.requests.at(-1)!;
    expect(sent.path).toBe("/v1/embeddings");
    expect(sent.headers.authorization).toBe("Bearer custom-key-emb2");
    expect(sent.body).toEqual({ model: "nomic-embed-text", input: "local text" });
    expect(await latestLog(t)).toMatchObject({ provider: "custom", model: "hone:local/nomic-embed-text", costUsd: null, inputTokens: 2 });
  });

  test("an Azure provider: the deployment's embeddings URL with api-version and api-key", async () => {
    const res = await embed({ model: "openpipe:azure-east/my-embedding", input: "azure text" });
    expect(res.status).toBe(200);
    expect((await res.json()).data[0].embedding).toEqual(fakeEmbedding("azure text"));
    const sent = azure.requests.at(-1)!;
    expect(sent.path).toBe("/openai/deployments/my-embedding/embeddings");
    expect(new URL(sent.url).searchParams.get("api-version")).toBe("2024-10-21");
    expect(sent.headers["api-key"]).toBe("azure-key-emb3");
    expect(sent.body.encoding_format).toBe("base64");
    expect((await latestLog(t)).model).toBe("hone:azure-east/my-embedding");
  });

  test("another project's custom provider is not found", async () => {
    const other = await t.createProject("isolated");
    const res = await t.request("POST", "/api/v1/embeddings", { key: other.apiKey, body: { model: "hone:local/nomic-embed-text", input: "x" } });
    expect(res.status).toBe(404);
  });
});
