import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { sql } from "drizzle-orm";
import { createTestApp, serve, storeProviderKey, type TestApp } from "../helpers/app";
import { startFakeAnthropic, startFakeOpenAI, type FakeUpstream } from "../helpers/fake-upstreams";
import { gql, gqlData } from "../helpers/gql";
import { trpcClient } from "../helpers/trpc";
import { startJobs } from "../../src/background";
import { settleResponseSaves } from "../../src/domain/protocols";
import { waitFor } from "../helpers/wait-for";

// Sensitive data masked (docs/masking.md), over real HTTP with the official SDKs: mask_stored keeps
// planted values out of everything stored while the provider gets the call as sent; mask_upstream
// keeps them from the provider too and gives the client its answer with them put back (streamed,
// a placeholder split across chunks); block refuses and stores no text; rules narrow by key.

const OPENAI_KEY = "sk-masking-upstream-0001";
const ANTHROPIC_KEY = "sk-ant-masking-0001";
const EMAIL = "ana.planted@example.com";
const CARD = "4111 1111 1111 1111";
const SECRET = "sk-proj-PlantedKey1234567890AbCdEfGhIjKl";
const PLANTED = [EMAIL, CARD, SECRET];
const SAY = `Hello, I am ${EMAIL}; my card is ${CARD} and my key ${SECRET}.`;

let t: TestApp;
let server: { url: string; stop(): Promise<void> };
let anthropicFake: FakeUpstream;
let openaiFake: FakeUpstream;
/** What the OpenAI-speaking upstream received, as text. */
const received: string[] = [];

// An OpenAI-speaking upstream that echoes the last user text, streamed two characters a chunk (so
// a placeholder is always split across chunks).
let upstream: ReturnType<typeof Bun.serve>;
function startSplittingEcho() {
  return Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const text = await req.text();
      received.push(text);
      const url = new URL(req.url);
      // Responses (and anything else) from the shared fake, as sent.
      if (!url.pathname.endsWith("/chat/completions")) {
        const headers = new Headers(req.headers);
        headers.delete("host");
        headers.delete("content-length");
        const res = await fetch(`${openaiFake.url}${url.pathname}`, { method: req.method, headers, body: text });
        return new Response(res.body, { status: res.status, headers: res.headers });
      }
      const body = JSON.parse(text) as { model: string; stream?: boolean; messages: { role: string; content: string }[] };
      const answer = `echo: ${[...body.messages].reverse().find((m) => m.role === "user")?.content ?? ""}`;
      const base = { id: "chatcmpl-mask", created: 1_700_000_000, model: body.model };
      const usage = { prompt_tokens: 20, completion_tokens: 10, total_tokens: 30 };
      if (!body.stream) {
        return Response.json({
          ...base,
          object: "chat.completion",
          choices: [{ index: 0, message: { role: "assistant", content: answer }, finish_reason: "stop", logprobs: null }],
          usage,
        });
      }
      const chunk = (o: object) => `data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", ...o })}\n\n`;
      let sse = chunk({ choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] });
      for (let i = 0; i < answer.length; i += 2) sse += chunk({ choices: [{ index: 0, delta: { content: answer.slice(i, i + 2) }, finish_reason: null }] });
      sse += chunk({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] });
      sse += chunk({ choices: [], usage });
      sse += "data: [DONE]\n\n";
      return new Response(sse, { headers: { "content-type": "text/event-stream" } });
    },
  });
}

beforeAll(async () => {
  openaiFake = startFakeOpenAI({ apiKey: OPENAI_KEY });
  upstream = startSplittingEcho();
  anthropicFake = startFakeAnthropic({ apiKey: ANTHROPIC_KEY });
  t = await createTestApp({ env: { OPENAI_BASE_URL: `http://127.0.0.1:${upstream.port}/v1`, ANTHROPIC_BASE_URL: anthropicFake.url } });
  server = serve(t.app);
});
afterAll(async () => {
  await server.stop();
  upstream.stop(true);
  await anthropicFake.stop();
  await openaiFake.stop();
  await t.close();
});

async function project(name: string, mode: string, kinds?: string[]) {
  const p = await t.createProject(name);
  await storeProviderKey(t, "openai", OPENAI_KEY, p.projectId);
  await storeProviderKey(t, "anthropic", ANTHROPIC_KEY, p.projectId);
  await gqlData(
    t,
    "mutation($mode: String!, $kinds: [String!]) { setMaskingRule(mode: $mode, kinds: $kinds) { id mode } }",
    { mode, kinds },
    { key: p.apiKey },
  );
  return p;
}
const openai = (key: string) => new OpenAI({ apiKey: key, baseURL: `${server.url}/api/v1`, maxRetries: 0 });
const anthropic = (key: string) => new Anthropic({ apiKey: key, baseURL: `${server.url}/api`, maxRetries: 0 });

/** Every stored row of the project's logs, bodies and stored Responses, as one text. */
async function storedText(projectId: string): Promise<string> {
  await t.deps.logWriter.flush();
  await settleResponseSaves(t.deps);
  const db = t.deps.database.db;
  const logs = await db.execute(sql`select l.*, b.* from request_logs l left join request_log_bodies b on b.log_id = l.id where l.project_id = ${projectId}`);
  const responses = await db.execute(sql`select * from stored_responses where project_id = ${projectId}`);
  const entries = await db.execute(sql`select * from dataset_entries where project_id = ${projectId}`);
  const spans = await db.execute(sql`select * from trace_spans where project_id = ${projectId}`);
  return JSON.stringify([logs, responses, entries, spans]);
}
const planted = (text: string) => PLANTED.filter((v) => text.includes(v) || text.includes(v.replace(/ /g, "")));

type Listed = { id: string; masking: string | null; masked: Record<string, number> | null; refusal: string | null; statusCode: number };
async function logsOf(key: string): Promise<Listed[]> {
  await t.deps.logWriter.flush();
  return (await trpcClient(t, key).logs.list.query({ first: 100 })).logs as unknown as Listed[];
}

describe("rules", () => {
  test("set, list, narrow by key, delete: admins only; bad input is a 400 naming it; testMasking shows what is found", async () => {
    const p = await t.createProject("rules");
    const set = await gqlData(t, `mutation { setMaskingRule(mode: "mask_stored") { id scope subject mode kinds } }`, {}, { key: p.apiKey });
    expect(set.setMaskingRule).toMatchObject({ scope: "project", subject: null, mode: "mask_stored", kinds: null });
    const keyRule = await gqlData(
      t,
      `mutation($s: String) { setMaskingRule(scope: "key", subject: $s, mode: "block", kinds: ["EMAIL"]) { id scope subject mode kinds } }`,
      { s: "key_123" },
      { key: p.apiKey },
    );
    expect(keyRule.setMaskingRule).toMatchObject({ scope: "key", subject: "key_123", mode: "block", kinds: ["EMAIL"] });
    const listed = await gqlData(t, "{ maskingRules { scope mode } }", {}, { key: p.apiKey });
    expect(listed.maskingRules).toEqual([
      { scope: "key", mode: "block" },
      { scope: "project", mode: "mask_stored" },
    ]);
    for (const [args, word] of [
      [`mode: "hide"`, "mode must be one of off, mask_stored, mask_upstream, block"],
      [`mode: "block", kinds: ["NAMES"]`, "NAMES is neither a built-in kind nor one of the project's own recognizers"],
      [`scope: "key", mode: "block"`, "a key rule needs a subject"],
      [`mode: "block", subject: "x"`, "the project's rule takes no subject"],
    ] as const) {
      const r = await gql(t, `mutation { setMaskingRule(${args}) { id } }`, {}, { key: p.apiKey });
      expect(JSON.stringify(r.errors)).toContain(word);
    }
    // Unknown input keys on tRPC: a 400 naming them.
    const bad = await t.request("POST", "/trpc/masking.set", { key: p.apiKey, body: { mode: "off", colour: "red" } });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain("colour");
    // A read-only key and a key without every scope may read and try, not change.
    for (const scopes of [["read"], ["read", "write"]] as const) {
      const k = await trpcClient(t, p.apiKey).apiKeys.create.mutate({ name: scopes.join("-"), scopes: [...scopes] });
      const refused = await gql(t, `mutation { setMaskingRule(mode: "off") { id } }`, {}, { key: (k as { apiKey: string }).apiKey });
      expect(refused.errors?.length).toBe(1);
      const tried = await gqlData(
        t,
        `{ testMasking(text: "mail ana@example.com") { masked counts { kind count } } }`,
        {},
        { key: (k as { apiKey: string }).apiKey },
      );
      expect(tried.testMasking).toEqual({ masked: "mail <EMAIL_1>", counts: [{ kind: "EMAIL", count: 1 }] });
    }
    // Another project's rule is not found.
    const other = await t.createProject("rules-other");
    const gone = await gql(t, "mutation($id: ID!) { deleteMaskingRule(id: $id) }", { id: set.setMaskingRule.id }, { key: other.apiKey });
    expect(JSON.stringify(gone.errors)).toContain("not found");
    expect((await gqlData(t, "mutation($id: ID!) { deleteMaskingRule(id: $id) }", { id: set.setMaskingRule.id }, { key: p.apiKey })).deleteMaskingRule).toBe(
      true,
    );
    const tried = await gqlData(t, `{ testMasking(text: ${JSON.stringify(SAY)}) { masked found { kind start end placeholder } } }`, {}, { key: p.apiKey });
    expect(tried.testMasking.masked).toBe("Hello, I am <EMAIL_1>; my card is <CARD_1> and my key <OPENAI_KEY_1>.");
    expect(tried.testMasking.found.map((f: { kind: string }) => f.kind)).toEqual(["EMAIL", "CARD", "OPENAI_KEY"]);
    expect(SAY.slice(tried.testMasking.found[0].start, tried.testMasking.found[0].end)).toBe(EMAIL);
  });
});

describe("mask_stored", () => {
  test("the provider gets the call as sent, the client its answer; nothing stored holds a planted value (chat, streamed, Messages, Responses, /report)", async () => {
    const p = await project("stored", "mask_stored");
    const before = received.length;
    const c = await openai(p.apiKey).chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: SAY }] });
    expect(c.choices[0]!.message.content).toBe(`echo: ${SAY}`);
    let streamed = "";
    for await (const ch of await openai(p.apiKey).chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: SAY }], stream: true })) {
      streamed += ch.choices[0]?.delta?.content ?? "";
    }
    expect(streamed).toBe(`echo: ${SAY}`);
    expect(received.slice(before).every((r) => r.includes(EMAIL))).toBe(true);
    const m = await anthropic(p.apiKey).messages.create({ model: "claude-3-5-haiku-latest", max_tokens: 50, messages: [{ role: "user", content: SAY }] });
    expect(JSON.stringify(m.content)).toContain(EMAIL);
    const r = await openai(p.apiKey).responses.create({ model: "gpt-4o-mini", input: SAY });
    expect(r.output_text).toContain(EMAIL);
    const report = await t.request("POST", "/api/v1/report", {
      key: p.apiKey,
      body: {
        requestedAt: Date.now() - 100,
        receivedAt: Date.now(),
        statusCode: 200,
        reqPayload: { model: "gpt-4o-mini", messages: [{ role: "user", content: SAY }] },
        respPayload: {
          id: "x",
          object: "chat.completion",
          created: 1,
          model: "gpt-4o-mini",
          choices: [{ index: 0, message: { role: "assistant", content: `Noted ${CARD}` }, finish_reason: "stop" }],
        },
      },
    });
    expect(report.status).toBe(200);
    // Entries added by hand, uploaded, and imported from the logs: stored with placeholders too.
    const trpc = trpcClient(t, p.apiKey);
    const ds = await trpc.datasets.create.mutate({ name: "masked" });
    await trpc.datasets.addEntries.mutate({
      datasetId: ds.id,
      entries: [
        {
          messages: [
            { role: "user", content: SAY },
            { role: "assistant", content: `Mail ${EMAIL}` },
          ],
          metadata: { owner: EMAIL },
        },
      ],
    });
    await trpc.datasets.importJsonl.mutate({
      datasetId: ds.id,
      jsonl: JSON.stringify({
        messages: [
          { role: "user", content: `${SAY} again` },
          { role: "assistant", content: "ok" },
        ],
      }),
      firstLine: 1,
    });
    await trpc.datasets.importLogs.mutate({ datasetId: ds.id, filter: {} });
    const stored = await storedText(p.projectId);
    expect(planted(stored)).toEqual([]);
    expect(stored).toContain("<EMAIL_1>");
    const logs = await logsOf(p.apiKey);
    expect(logs).toHaveLength(5);
    const entries = (await trpc.datasets.listEntries.query({ datasetId: ds.id })).entries;
    expect(entries.length).toBeGreaterThanOrEqual(3);
    expect(JSON.stringify(entries[0]!.messages)).toContain("<EMAIL_1>");
    expect(entries[0]!.metadata).toEqual({ owner: "<EMAIL_1>" });
    for (const l of logs) {
      expect(l.masking).toBe("mask_stored");
      expect(l.masked).toMatchObject({ EMAIL: 1, CARD: 1 });
    }
    // The log's masked kinds on GraphQL; search finds the placeholder, not the value.
    const g = await gqlData(t, "{ logs(first: 1) { edges { node { masking masked { kind count } } } } }", {}, { key: p.apiKey });
    expect(g.logs.edges[0].node.masking).toBe("mask_stored");
    expect(g.logs.edges[0].node.masked).toContainEqual({ kind: "EMAIL", count: 1 });
    const found = await trpcClient(t, p.apiKey).logs.list.query({ filter: { search: "ana.planted" }, first: 10 });
    expect(found.logs).toHaveLength(0);
    // Filters: logs in which something was masked, and of a kind.
    expect((await trpcClient(t, p.apiKey).logs.list.query({ filter: { maskedKind: "CARD" }, first: 10 })).logs).toHaveLength(5);
    expect((await trpcClient(t, p.apiKey).logs.list.query({ filter: { maskedKind: "IBAN" }, first: 10 })).logs).toHaveLength(0);
    expect((await trpcClient(t, p.apiKey).logs.list.query({ filter: { masked: false }, first: 10 })).logs).toHaveLength(0);
  });
});

describe("mask_upstream", () => {
  test("the provider never sees a planted value; the client's answer has them back, whole and streamed in 2-character chunks", async () => {
    const p = await project("upstream", "mask_upstream");
    const before = received.length;
    const c = await openai(p.apiKey).chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: SAY }] });
    expect(c.choices[0]!.message.content).toBe(`echo: ${SAY}`);
    let streamed = "";
    let chunks = 0;
    for await (const ch of await openai(p.apiKey).chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: SAY }], stream: true })) {
      streamed += ch.choices[0]?.delta?.content ?? "";
      chunks++;
    }
    expect(chunks).toBeGreaterThan(20);
    expect(streamed).toBe(`echo: ${SAY}`);
    // Messages to an Anthropic model go through the chat form here (masked there), as do Responses.
    const m = await anthropic(p.apiKey).messages.create({ model: "claude-3-5-haiku-latest", max_tokens: 50, messages: [{ role: "user", content: SAY }] });
    expect(JSON.stringify(m.content)).toContain(EMAIL);
    const r = await openai(p.apiKey).responses.create({ model: "gpt-4o-mini", input: SAY });
    expect(r.output_text).toContain(EMAIL);
    const sent = received.slice(before).join("\n") + JSON.stringify(anthropicFake.requests.slice(-1));
    expect(planted(sent)).toEqual([]);
    expect(sent).toContain("<EMAIL_1>");
    expect(planted(await storedText(p.projectId))).toEqual([]);
    const logs = await logsOf(p.apiKey);
    expect(logs.map((l) => l.masking)).toEqual(["mask_upstream", "mask_upstream", "mask_upstream", "mask_upstream"]);
  });
});

describe("block", () => {
  test("a call holding a sensitive value is a 400 in its protocol's shape naming the kinds; nothing is sent; the refusal is logged without text", async () => {
    const p = await project("block", "block", ["EMAIL", "CARD"]);
    const before = received.length;
    const err = await openai(p.apiKey)
      .chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: SAY }] })
      .catch((e: unknown) => e as { status: number; message: string });
    expect((err as { status: number }).status).toBe(400);
    expect((err as { message: string }).message).toContain("EMAIL (1), CARD (1)");
    const aerr = await anthropic(p.apiKey)
      .messages.create({ model: "claude-3-5-haiku-latest", max_tokens: 50, messages: [{ role: "user", content: SAY }] })
      .catch((e: unknown) => e as { status: number; error: { type: string; error: { type: string } } });
    expect((aerr as { status: number }).status).toBe(400);
    expect((aerr as { error: { type: string } }).error.type).toBe("error");
    // A kind the rule does not name passes: the key alone is not blocked here.
    const ok = await openai(p.apiKey).chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: `key ${SECRET}` }] });
    expect(ok.choices[0]!.message.content).toContain(SECRET);
    expect(received.slice(before).join("")).not.toContain(EMAIL);
    const logs = await logsOf(p.apiKey);
    const refused = logs.filter((l) => l.refusal === "masking");
    expect(refused).toHaveLength(2);
    expect(refused.every((l) => l.statusCode === 400)).toBe(true);
    expect(planted(await storedText(p.projectId)).filter((v) => v !== SECRET)).toEqual([]);
    // A report holding one: a 400, nothing stored.
    const report = await t.request("POST", "/api/v1/report", {
      key: p.apiKey,
      body: { statusCode: 200, reqPayload: { model: "gpt-4o-mini", messages: [{ role: "user", content: SAY }] }, respPayload: null },
    });
    expect(report.status).toBe(400);
    expect(await report.text()).toContain("EMAIL (1)");
  });

  test("a key's rule narrows the project's: the project masks what it stores, one key is blocked", async () => {
    const p = await project("narrow", "mask_stored");
    const k = (await trpcClient(t, p.apiKey).apiKeys.create.mutate({ name: "kiosk" })) as { apiKey: string; key: { id: string } };
    await gqlData(t, `mutation($s: String) { setMaskingRule(scope: "key", subject: $s, mode: "block") { id } }`, { s: k.key.id }, { key: p.apiKey });
    const blocked = await openai(k.apiKey)
      .chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: SAY }] })
      .catch((e: unknown) => e as { status: number });
    expect((blocked as { status: number }).status).toBe(400);
    const fine = await openai(p.apiKey).chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: SAY }] });
    expect(fine.choices[0]!.message.content).toContain(EMAIL);
    expect(planted(await storedText(p.projectId))).toEqual([]);
  });
});

describe("what was stored before the rule", () => {
  test("a backfill masks the logs, entries, stored Responses and trace spans already there, with progress; SQL over every row finds no planted value", async () => {
    const p = await project("backfill", "off");
    await openai(p.apiKey).chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: SAY }] });
    // A tool's span whose arguments hold the planted values (OTLP JSON, as an exporter sends it).
    const hex = (n: number) => Buffer.from(crypto.getRandomValues(new Uint8Array(n))).toString("hex");
    const span = {
      traceId: hex(16),
      spanId: hex(8),
      name: "execute_tool lookup",
      startTimeUnixNano: String(BigInt(Date.now()) * 1_000_000n),
      endTimeUnixNano: String(BigInt(Date.now() + 5) * 1_000_000n),
      attributes: [
        { key: "gen_ai.operation.name", value: { stringValue: "execute_tool" } },
        { key: "gen_ai.tool.call.arguments", value: { stringValue: SAY } },
      ],
    };
    const exported = await fetch(`${server.url}/api/v1/otel/v1/traces`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-hone-key": p.apiKey },
      body: JSON.stringify({ resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: "t" }, spans: [span] }] }] }),
    });
    expect(exported.status).toBe(200);
    await openai(p.apiKey).responses.create({ model: "gpt-4o-mini", input: SAY });
    const trpc = trpcClient(t, p.apiKey);
    const ds = await trpc.datasets.create.mutate({ name: "before" });
    await trpc.datasets.addEntries.mutate({
      datasetId: ds.id,
      entries: [
        {
          messages: [
            { role: "user", content: SAY },
            { role: "assistant", content: "ok" },
          ],
        },
      ],
    });
    expect(planted(await storedText(p.projectId))).toEqual(PLANTED);
    await gqlData(t, `mutation { setMaskingRule(mode: "mask_stored") { id } }`, {}, { key: p.apiKey });
    const started = await gqlData(t, "mutation { startMaskingBackfill { id status phase total } }", {}, { key: p.apiKey });
    expect(started.startMaskingBackfill).toMatchObject({ status: "QUEUED", phase: "logs", total: 5 });
    // A second while it runs: a 409 saying so.
    const twice = await gql(t, "mutation { startMaskingBackfill { id } }", {}, { key: p.apiKey });
    expect(JSON.stringify(twice.errors)).toContain("being masked already");
    const worker = startJobs(t.deps);
    try {
      const id = started.startMaskingBackfill.id;
      const done = await waitFor(
        async () => (await gqlData(t, "query($id: ID!) { maskingBackfill(id: $id) { status done changed } }", { id }, { key: p.apiKey })).maskingBackfill,
        {
          until: (b: { status: string; done: number; changed: number }) => b.status === "DONE",
          timeoutMs: 20_000,
        },
      );
      expect(done).toEqual({ status: "DONE", done: 5, changed: 5 });
    } finally {
      await worker.stop();
    }
    expect(planted(await storedText(p.projectId))).toEqual([]);
    const logs = await logsOf(p.apiKey);
    expect(logs.every((l) => (l.masked?.EMAIL ?? 0) >= 1)).toBe(true);
    // Audited: who started it, and each rule change.
    const audited = await t.deps.database.db.execute(
      sql`select verb, actor_type from audit_events where project_id = ${p.projectId} and verb in ('startMaskingBackfill', 'setMaskingRule') order by at`,
    );
    expect(JSON.stringify(audited)).toContain("startMaskingBackfill");
    expect(JSON.stringify(audited)).toContain("setMaskingRule");
  });
});

describe("the project's own recognizers", () => {
  test("a pattern is admitted when shown safe, non-empty and finding its sample; then it masks calls like the built-in ones", async () => {
    const p = await project("own", "mask_stored");
    const set = (kind: string, pattern: string, sample: string) =>
      gql(
        t,
        "mutation($k: String!, $p: String!, $s: String!) { setMaskingRecognizer(kind: $k, pattern: $p, sample: $s) { id kind pattern found } }",
        { k: kind, p: pattern, s: sample },
        { key: p.apiKey },
      );
    for (const [kind, pattern, sample, word] of [
      ["NESTED", "(a+)+$", "aaaa", "can take exponential time"],
      ["OVERLAP", "(\\w|\\d)*x", "12x", "time on some texts"],
      ["EMPTY", "\\d*", "123", "matches the empty text"],
      ["BROKEN", "(CUS-", "CUS-1", "not a regular expression"],
      ["NOWHERE", "CUS-\\d{8}", "nothing here", "finds nothing in the sample"],
      ["EMAIL", "x+", "xx", "built-in kind"],
      ["lower", "x+", "xx", "kind is a name in capitals"],
    ] as const) {
      const r = await set(kind, pattern, sample);
      expect({ kind, error: JSON.stringify(r.errors) }).toEqual({ kind, error: expect.stringContaining(word) });
    }
    const ok = await set("CUSTOMER_ID", "CUS-\\d{8}", "customer CUS-12345678 wrote");
    expect(ok.data.setMaskingRecognizer).toMatchObject({ kind: "CUSTOMER_ID", pattern: "CUS-\\d{8}", found: ["CUS-12345678"] });
    // A rule may name it; the try box finds it; a call holding one is stored with its placeholder.
    await gqlData(t, `mutation { setMaskingRule(mode: "mask_stored", kinds: ["CUSTOMER_ID", "EMAIL"]) { id } }`, {}, { key: p.apiKey });
    const tried = await gqlData(t, `{ testMasking(text: "CUS-87654321 and ${EMAIL}") { masked } }`, {}, { key: p.apiKey });
    expect(tried.testMasking.masked).toBe("<CUSTOMER_ID_1> and <EMAIL_1>");
    await openai(p.apiKey).chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: `My number is CUS-87654321, card ${CARD}` }] });
    const stored = await storedText(p.projectId);
    expect(stored).not.toContain("CUS-87654321");
    expect(stored).toContain("<CUSTOMER_ID_1>");
    // The rule names CUSTOMER_ID and EMAIL only: the card is stored as sent.
    expect(stored).toContain(CARD);
    // Another project neither sees nor may name it.
    const other = await project("own-other", "off");
    expect((await gqlData(t, "{ maskingRecognizers { kind } }", {}, { key: other.apiKey })).maskingRecognizers).toEqual([]);
    const named = await gql(t, `mutation { setMaskingRule(mode: "mask_stored", kinds: ["CUSTOMER_ID"]) { id } }`, {}, { key: other.apiKey });
    expect(JSON.stringify(named.errors)).toContain("neither a built-in kind");
    const gone = await gql(t, "mutation($id: ID!) { deleteMaskingRecognizer(id: $id) }", { id: ok.data.setMaskingRecognizer.id }, { key: other.apiKey });
    expect(JSON.stringify(gone.errors)).toContain("not found");
  });
});
