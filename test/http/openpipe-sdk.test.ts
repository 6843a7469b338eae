import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenPipeOpenAI from "openpipe/openai";
import { z } from "zod";
import { ChatCompletionWire } from "../../src/http/rest/wire-schemas";
import { createTestApp, serve, type TestApp, storeProviderKey } from "../helpers/app";
import { startFakeOpenAI, type FakeUpstream } from "../helpers/fake-upstreams";
import { gql, gqlData } from "../helpers/gql";
import { rest, type Rest } from "../helpers/rest";
import { waitFor } from "../helpers/wait-for";

// The official `openpipe` npm SDK, unchanged, with its OpenPipe base URL pointed at Hone and
// OpenAI's base URL at a fake upstream (the same one Hone calls).
let t: TestApp;
let fake: FakeUpstream;
let server: { url: string; stop(): Promise<void> };
let client: OpenPipeOpenAI;
let api: Rest;

beforeAll(async () => {
  fake = startFakeOpenAI();
  // The custom provider below is the fake upstream on 127.0.0.1: allowed by host:port.
  t = await createTestApp({ env: { OPENAI_BASE_URL: `${fake.url}/v1`, HONE_TESTING_ROUTES: "true", HONE_UPSTREAM_ALLOWLIST: new URL(fake.url).host } });
  await storeProviderKey(t, "openai", "sk-hone-upstream-1");
  api = rest(t);
  // An openpipe:<provider>/<model> name: a custom OpenAI-compatible provider of the project.
  const made = await gql<{ createCustomProvider: { slug: string } }>(
    t,
    `mutation($u: String!) { createCustomProvider(input: {slug: "local", kind: "openai", baseUrl: $u, apiKey: "sk-local-0001"}) { slug } }`,
    { u: `${fake.url}/v1` },
  );
  expect(made.status).toBe(200);
  server = serve(t.app);
  client = new OpenPipeOpenAI({
    apiKey: "sk-direct-openai-1",
    baseURL: `${fake.url}/v1`,
    maxRetries: 0,
    openpipe: { apiKey: t.project.apiKey, baseUrl: `${server.url}/api/v1` },
  });
});
afterAll(async () => {
  await server.stop();
  await fake.stop();
  await t.close();
});

/** The project's newest log, as the testing route answers it. */
async function latest() {
  const log = await api.ok("GET /local-testing-only-get-latest-logged-call");
  if (!log) throw new Error("no log stored");
  return log;
}
/** The content of a logged chat completion's first choice. */
const loggedContent = (respPayload: unknown) => ChatCompletionWire.parse(respPayload).choices[0]!.message.content;

describe("the openpipe SDK against Hone", () => {
  test("openpipe: models go through Hone, tagged with the SDK's tags", async () => {
    const before = fake.requests.length;
    const r = await client.chat.completions.create({
      model: "openpipe:local/llama-3.1-8b",
      messages: [{ role: "user", content: "through hone" }],
      openpipe: { tags: { prompt_id: "sdk-1" } },
    });
    expect(r.choices[0]!.message.content).toBe("echo: through hone");
    // Hone called the upstream with its stored key, not the SDK's direct key.
    expect(fake.requests.at(-1)!.headers.authorization).toBe("Bearer sk-local-0001");
    expect(fake.requests.at(-1)!.body.model).toBe("llama-3.1-8b");
    expect(fake.requests.length).toBe(before + 1);
    const log = await latest();
    expect(log).toMatchObject({ statusCode: 200, cacheHit: false });
    expect(log.metadata).toMatchObject({ prompt_id: "sdk-1", $sdk: "typescript" });
  });

  test("cache: the second identical call is a hit", async () => {
    const body = {
      model: "openpipe:local/llama-3.1-8b",
      messages: [{ role: "user" as const, content: `cache via sdk ${Date.now()}` }],
      openpipe: { cache: "readWrite" as const },
    };
    await client.chat.completions.create(body);
    expect((await latest()).cacheHit).toBe(false);
    const before = fake.requests.length;
    await client.chat.completions.create(body);
    expect(fake.requests.length).toBe(before);
    expect((await latest()).cacheHit).toBe(true);
  });

  test("criteria: every choice comes back judged", async () => {
    const crit = await gqlData<{ createCriterion: { id: string } }>(
      t,
      `mutation { createCriterion(input: {name: "ok", judgeModel: "openai:judge", prompt: "{{output}}"}) { id } }`,
    );
    const id = crit.createCriterion.id;
    const r = await client.chat.completions.create({
      model: "openpipe:local/llama-3.1-8b",
      messages: [{ role: "user", content: "judge me" }],
      n: 2,
      openpipe: { criteria: [id] },
    });
    expect(r.choices).toHaveLength(2);
    for (const c of r.choices) expect(c.criteria_results![id]).toMatchObject({ status: "success", score: 1 });
  });

  test("direct OpenAI calls are reported to Hone's /report afterwards, streams merged", async () => {
    const r = await client.chat.completions.create({
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: "direct call" }],
      openpipe: { tags: { route: "direct" } },
    });
    expect(fake.requests.at(-1)!.headers.authorization).toBe("Bearer sk-direct-openai-1");
    await r.openpipe!.reportingFinished;
    const log = await latest();
    expect(z.looseObject({ model: z.unknown() }).parse(log.reqPayload).model).toBe("gpt-4o-mini");
    expect(loggedContent(log.respPayload)).toBe("echo: direct call");
    expect(log.metadata).toMatchObject({ route: "direct", $sdk: "typescript" });

    const stream = await client.chat.completions.create({
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: "direct stream" }],
      stream: true,
    });
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? "";
    expect(text).toBe("echo: direct stream");
    await stream.openpipe?.reportingFinished;
    await waitFor(latest, { until: (l) => loggedContent(l.respPayload) === "echo: direct stream", message: "the streamed call's log" });
    expect(loggedContent((await latest()).respPayload)).toBe("echo: direct stream");
  });

  test("configured only through OPENPIPE_BASE_URL and OPENPIPE_API_KEY, as an application would be", async () => {
    const proc = Bun.spawn(["bun", `${import.meta.dir}/../helpers/openpipe-env-client.ts`, "openpipe:local/llama-3.1-8b"], {
      env: {
        PATH: process.env.PATH!,
        HOME: process.env.HOME ?? "/tmp",
        OPENPIPE_BASE_URL: `${server.url}/api/v1`,
        OPENPIPE_API_KEY: t.project.apiKey,
        OPENAI_API_KEY: "sk-direct-openai-1",
        OPENAI_BASE_URL: `${fake.url}/v1`,
      },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    expect({ code, err }).toEqual({ code: 0, err: "" });
    expect(ChatCompletionWire.parse(JSON.parse(out)).choices[0]!.message.content).toBe("echo: configured by environment");
    expect((await latest()).metadata).toMatchObject({ via: "env", $sdk: "typescript" });
  });

  test("an unknown fine-tune is a 404 with the SDK's expected message, and is logged", async () => {
    const err = await client.chat.completions.create({ model: "openpipe:not-a-model", messages: [{ role: "user", content: "x" }] }).catch((e) => e);
    expect(err.status).toBe(404);
    expect(err.message).toContain("The model `openpipe:not-a-model` does not exist");
    expect(await latest()).toMatchObject({ statusCode: 404 });
  });
});
