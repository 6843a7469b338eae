import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { sql } from "drizzle-orm";
import { createTestApp, serve, storeProviderKey, type TestApp } from "../helpers/app";
import { startFakeOpenAI, type FakeUpstream } from "../helpers/fake-upstreams";
import { gql, gqlData } from "../helpers/gql";
import { trpcClient } from "../helpers/trpc";

// The operator's external analyzer (HONE_MASKING_ANALYZER_URL, Presidio's API) over real HTTP with
// the official SDK: names it finds are masked like the built-in kinds, on every mode; when it is
// away, slow or answers nonsense no call fails: the built-in recognizers mask alone and the log
// says so. The fake below answers as Presidio's analyzer does (POST /analyze, character offsets).

const OPENAI_KEY = "sk-masking-analyzer-0001";
const NAME = "Ada Lovelace";
const PLACE = "Zürich";
const EMAIL = "ada.planted@example.com";
// An emoji before the name: Presidio counts characters, JS strings count UTF-16 units.
const SAY = `🙂 Hi, I am ${NAME} from ${PLACE}, mail me at ${EMAIL}.`;
const DEADLINE_MS = 300;

type Mode = "ok" | "down" | "hang" | "nonsense";
let mode: Mode = "ok";
const asked: { text: string; language: string; entities: string[] }[] = [];
let analyzer: ReturnType<typeof Bun.serve>;
function startFakePresidio() {
  return Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      if (new URL(req.url).pathname !== "/analyze" || req.method !== "POST") return new Response("not found", { status: 404 });
      const body = (await req.json()) as { text: string; language: string; entities: string[]; score_threshold: number };
      asked.push(body);
      if (mode === "down") return new Response("Internal Server Error", { status: 500 });
      if (mode === "hang") {
        await Bun.sleep(DEADLINE_MS * 4);
        return Response.json([]);
      }
      if (mode === "nonsense") return Response.json({ error: "what" });
      // Offsets in code points, as Python counts them.
      const chars = [...body.text];
      const text = chars.join("");
      const out: { entity_type: string; start: number; end: number; score: number }[] = [];
      for (const [word, type, score] of [
        [NAME, "PERSON", 0.85],
        [PLACE, "LOCATION", 0.85],
        ["Grace", "PERSON", 0.3],
      ] as const) {
        for (let at = text.indexOf(word); at >= 0; at = text.indexOf(word, at + 1)) {
          const start = [...text.slice(0, at)].length;
          out.push({ entity_type: type, start, end: start + [...word].length, score });
        }
      }
      return Response.json(out);
    },
  });
}

let t: TestApp;
let server: { url: string; stop(): Promise<void> };
let upstream: FakeUpstream;

beforeAll(async () => {
  analyzer = startFakePresidio();
  upstream = startFakeOpenAI({ apiKey: OPENAI_KEY });
  t = await createTestApp({
    env: {
      OPENAI_BASE_URL: upstream.url,
      HONE_MASKING_ANALYZER_URL: `http://127.0.0.1:${analyzer.port}`,
      HONE_MASKING_ANALYZER_DEADLINE_MS: String(DEADLINE_MS),
      HONE_MASKING_ANALYZER_ENTITIES: "PERSON,LOCATION",
      HONE_METRICS_TOKEN: "metrics-token-analyzer-0001",
    },
  });
  server = serve(t.app);
});
afterAll(async () => {
  await server.stop();
  analyzer.stop(true);
  await upstream.stop();
  await t.close();
});

async function project(name: string, ruleMode: string) {
  const p = await t.createProject(name);
  await storeProviderKey(t, "openai", OPENAI_KEY, p.projectId);
  await gqlData(t, "mutation($mode: String!) { setMaskingRule(mode: $mode) { id } }", { mode: ruleMode }, { key: p.apiKey });
  return p;
}
const openai = (key: string) => new OpenAI({ apiKey: key, baseURL: `${server.url}/api/v1`, maxRetries: 0 });

async function storedText(projectId: string): Promise<string> {
  await t.deps.logWriter.flush();
  const logs = await t.deps.database.db.execute(
    sql`select l.*, b.* from request_logs l left join request_log_bodies b on b.log_id = l.id where l.project_id = ${projectId}`,
  );
  const entries = await t.deps.database.db.execute(sql`select * from dataset_entries where project_id = ${projectId}`);
  return JSON.stringify([logs, entries]);
}
type Listed = { masked: Record<string, number> | null; warning: string | null; statusCode: number };
async function logsOf(key: string): Promise<Listed[]> {
  await t.deps.logWriter.flush();
  return (await trpcClient(t, key).logs.list.query({ first: 100 })).logs as unknown as Listed[];
}

describe("an external analyzer", () => {
  test("mask_stored: names and places it finds are placeholders in what is stored (logs, search, entries); the provider and client get the text as sent", async () => {
    mode = "ok";
    const p = await project("analyzer-stored", "mask_stored");
    const c = openai(p.apiKey);
    const r = await c.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: SAY }] });
    expect(r.choices[0]!.message.content).toBe(`echo: ${SAY}`);
    expect(upstream.requests.at(-1)!.text).toContain(NAME);
    // Streamed too.
    const s = await c.chat.completions.create({ model: "gpt-4o-mini", stream: true, messages: [{ role: "user", content: SAY }] });
    let streamed = "";
    for await (const ch of s) streamed += ch.choices[0]?.delta?.content ?? "";
    expect(streamed).toBe(`echo: ${SAY}`);
    // /report, and an entry made by hand.
    const reported = await t.request("POST", "/api/v1/report", {
      key: p.apiKey,
      body: {
        reqPayload: { model: "gpt-4o-mini", messages: [{ role: "user", content: SAY }] },
        respPayload: { choices: [{ message: { role: "assistant", content: `Hello ${NAME}` } }] },
      },
    });
    expect(reported.status).toBe(200);
    const ds = await trpcClient(t, p.apiKey).datasets.create.mutate({ name: "analyzer" });
    await trpcClient(t, p.apiKey).datasets.addEntries.mutate({
      datasetId: (ds as { id: string }).id,
      entries: [
        {
          messages: [
            { role: "user", content: SAY },
            { role: "assistant", content: `Hello ${NAME}` },
          ],
        },
      ],
    });
    const stored = await storedText(p.projectId);
    for (const v of [NAME, PLACE, EMAIL]) expect(stored).not.toContain(v);
    expect(stored).toContain("<PERSON_1>");
    expect(stored).toContain("<LOCATION_1>");
    // Offsets held across the emoji: the placeholder replaced the name exactly.
    expect(stored).toContain("🙂 Hi, I am <PERSON_1> from <LOCATION_1>, mail me at <EMAIL_1>.");
    // A finding scored under the threshold was asked for but not masked.
    expect(asked.at(-1)!.entities).toEqual(["PERSON", "LOCATION"]);
    const logs = await logsOf(p.apiKey);
    expect(logs).toHaveLength(3);
    for (const l of logs) {
      expect(l.masked).toMatchObject({ PERSON: 1 });
      expect(l.warning ?? "").not.toContain("analyzer");
    }
    // The usage split by kind: logs holding each kind, values masked (GraphQL and tRPC alike).
    const usage = await gqlData(t, "{ maskedUsage { kind logs values } }", {}, { key: p.apiKey });
    expect(usage.maskedUsage).toContainEqual({ kind: "PERSON", logs: 3, values: 3 });
    expect(usage.maskedUsage).toContainEqual({ kind: "EMAIL", logs: 3, values: 3 });
    expect(await trpcClient(t, p.apiKey).masking.usage.query({})).toEqual(usage.maskedUsage);
    const old = await gqlData(t, `{ maskedUsage(from: "2020-01-01", to: "2020-01-02") { kind } }`, {}, { key: p.apiKey });
    expect(old.maskedUsage).toEqual([]);
    const wide = await gql(t, `{ maskedUsage(from: "2020-01-01", to: "2020-06-01") { kind } }`, {}, { key: p.apiKey });
    expect(JSON.stringify(wide.errors)).toContain("at most 31 days");
    // The try-it box shows what the analyzer finds, and that it answered.
    const tried = await gqlData(
      t,
      `{ testMasking(text: ${JSON.stringify(`${SAY} Grace`)}) { masked found { kind placeholder } analyzer } }`,
      {},
      { key: p.apiKey },
    );
    expect(tried.testMasking.masked).toBe("🙂 Hi, I am <PERSON_1> from <LOCATION_1>, mail me at <EMAIL_1>. Grace");
    expect(tried.testMasking.found).toEqual([
      { kind: "PERSON", placeholder: "<PERSON_1>" },
      { kind: "LOCATION", placeholder: "<LOCATION_1>" },
      { kind: "EMAIL", placeholder: "<EMAIL_1>" },
    ]);
    expect(tried.testMasking.analyzer).toBe("ok");
    // Its kinds can be named in a rule; others still cannot.
    const kinds = await gql(t, `mutation { setMaskingRule(mode: "mask_stored", kinds: ["PERSON", "NAMES"]) { id } }`, {}, { key: p.apiKey });
    expect(JSON.stringify(kinds.errors)).toContain("NAMES is neither a built-in kind nor one of the project's own recognizers (nor one the analyzer finds)");
  });

  test("mask_upstream: the provider gets <PERSON_1>, the client its answer with the name back (whole, streamed, in tool arguments as JSON); block names PERSON", async () => {
    mode = "ok";
    const p = await project("analyzer-upstream", "mask_upstream");
    const c = openai(p.apiKey);
    const r = await c.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: SAY }] });
    expect(r.choices[0]!.message.content).toBe(`echo: ${SAY}`);
    const sent = upstream.requests.at(-1)!.text;
    for (const v of [NAME, PLACE, EMAIL]) expect(sent).not.toContain(v);
    expect(sent).toContain("<PERSON_1>");
    const s = await c.chat.completions.create({ model: "gpt-4o-mini", stream: true, messages: [{ role: "user", content: SAY }] });
    let streamed = "";
    for await (const ch of s) streamed += ch.choices[0]?.delta?.content ?? "";
    expect(streamed).toBe(`echo: ${SAY}`);
    expect(upstream.requests.at(-1)!.text).not.toContain(NAME);
    // A tool call's arguments (JSON) get the values back escaped: a private key's line breaks too.
    const PEM = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----";
    const asked = `${NAME} pasted "${PEM}"`;
    const tools = [{ type: "function" as const, function: { name: "lookup", parameters: { type: "object", properties: { q: { type: "string" } } } } }];
    const tc = await c.chat.completions.create({ model: "gpt-4o-mini", tools, messages: [{ role: "user", content: asked }] });
    const call = tc.choices[0]!.message.tool_calls![0] as { function: { arguments: string } };
    expect(JSON.parse(call.function.arguments)).toEqual({ q: asked });
    expect(upstream.requests.at(-1)!.text).not.toContain("MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7");
    const ts = await c.chat.completions.create({ model: "gpt-4o-mini", tools, stream: true, messages: [{ role: "user", content: asked }] });
    let args = "";
    for await (const ch of ts) for (const d of ch.choices[0]?.delta?.tool_calls ?? []) args += d.function?.arguments ?? "";
    expect(JSON.parse(args)).toEqual({ q: asked });
    const stored = await storedText(p.projectId);
    for (const v of [NAME, PLACE, EMAIL, "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7"]) expect(stored).not.toContain(v);

    const b = await project("analyzer-block", "block");
    const before = upstream.requests.length;
    const refused = await openai(b.apiKey)
      .chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: `I am ${NAME}` }] })
      .catch((e: unknown) => e as { status: number; message: string });
    expect((refused as { status: number }).status).toBe(400);
    expect((refused as { message: string }).message).toContain("PERSON (1)");
    expect(upstream.requests.length).toBe(before);
    expect(await storedText(b.projectId)).not.toContain(NAME);
  });

  test("away, slow past its deadline, or answering nonsense: no call fails; the built-in recognizers mask and the log says the analyzer was not heard", async () => {
    const p = await project("analyzer-outage", "mask_upstream");
    const q = await project("analyzer-outage-stored", "mask_stored");
    const expected: Record<Exclude<Mode, "ok">, string> = {
      down: "the masking analyzer was unavailable",
      nonsense: "the masking analyzer was unavailable",
      hang: "the masking analyzer did not answer in time",
    };
    for (const m of ["down", "hang", "nonsense"] as const) {
      mode = m;
      for (const key of [p.apiKey, q.apiKey]) {
        const started = performance.now();
        const r = await openai(key).chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: SAY }] });
        // The answer waits no longer than the deadline (and the call itself) for the analyzer.
        expect(performance.now() - started).toBeLessThan(DEADLINE_MS + 2_000);
        expect(r.choices[0]!.message.content).toBe(`echo: ${SAY}`);
      }
      // mask_upstream: the e-mail still never reached the provider.
      const sent = upstream.requests.filter((x) => x.headers.authorization === `Bearer ${OPENAI_KEY}`).at(-2)!.text;
      expect(sent).not.toContain(EMAIL);
      for (const key of [p.apiKey, q.apiKey]) {
        const [last] = await logsOf(key);
        expect(last!.statusCode).toBe(200);
        expect(last!.warning).toContain(expected[m]);
        expect(last!.masked).toMatchObject({ EMAIL: 1 });
      }
      const tried = await gqlData(t, `{ testMasking(text: ${JSON.stringify(SAY)}) { masked analyzer } }`, {}, { key: q.apiKey });
      expect(tried.testMasking.masked).toContain("<EMAIL_1>");
      expect(tried.testMasking.analyzer).toContain(expected[m]);
    }
    // The metric counts each outcome.
    const metrics = await (await fetch(`${server.url}/metrics`, { headers: { authorization: "Bearer metrics-token-analyzer-0001" } })).text();
    for (const o of ["ok", "unavailable", "timeout"]) expect(metrics).toMatch(new RegExp(`hone_masking_analyzer_total\\{outcome="${o}"\\} [1-9]`));
    mode = "ok";
  });
});
