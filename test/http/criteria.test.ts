import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type OpenAI from "openai";
import { z } from "zod";
import { systemCtx } from "../../src/domain/context";
import { alignmentStats, importAlignmentSet } from "../../src/domain/criteria";
import { ChatCompletionWire } from "../../src/http/rest/wire-schemas";
import { createTestApp, serve, type TestApp, storeProviderKey, openAiClient } from "../helpers/app";
import { startFakeOpenAI, type FakeUpstream } from "../helpers/fake-upstreams";
import { logsOf } from "../helpers/logs";
import { createCriterion } from "../helpers/factories";
import { gql, gqlData } from "../helpers/gql";
import { rest, type Rest } from "../helpers/rest";
import { trpcClient } from "../helpers/trpc";

let t: TestApp;
let api: Rest;
let fake: FakeUpstream;
let server: { url: string; stop(): Promise<void> };
let client: OpenAI;

beforeAll(async () => {
  fake = startFakeOpenAI();
  t = await createTestApp({ env: { OPENAI_BASE_URL: `${fake.url}/v1`, HONE_JUDGE_TIMEOUT_MS: "800", HONE_JUDGE_CONCURRENCY: "4" } });
  api = rest(t);
  await storeProviderKey(t, "openai", "sk-judge-test-01");
  server = serve(t.app);
  client = openAiClient(server.url, t.project.apiKey);
});
afterAll(async () => {
  await server.stop();
  await fake.stop();
  await t.close();
});

const CREATE = `mutation($name: String!, $model: String!, $prompt: String!) {
  createCriterion(input: {name: $name, judgeModel: $model, prompt: $prompt}) { id name latestVersion } }`;
const newCriterion = (judgeModel = "openai:judge-1", prompt = "Pass if the answer is right.\nInput: {{messages}}\nOutput: {{output}}", key?: string) =>
  createCriterion(t, { name: "correct", judgeModel, prompt, key });
/** The criteria tokens a judged completion adds to its usage, keyed by criterion id (without @vN). */
const JudgedUsage = z.object({ criteria: z.record(z.string(), z.object({ total_tokens: z.number() })) });

describe("criteria and versions", () => {
  test("create, add versions (carrying over what is not given), read, delete", async () => {
    const c = await newCriterion();
    expect(c).toMatchObject({ name: "correct", latestVersion: 1 });
    expect(c.id).toMatch(/^crit_/);
    const v2 = await gql(
      t,
      `mutation($id: ID!) { createCriterionVersion(input: {criterionId: $id, judgeModel: "openai:judge-2"}) { version judgeModel prompt } }`,
      { id: c.id },
    );
    expect(v2.data.createCriterionVersion).toMatchObject({ version: 2, judgeModel: "openai:judge-2" });
    expect(v2.data.createCriterionVersion.prompt).toContain("{{output}}");
    const read = await gqlData<{
      criterion: { id: string; name: string; latestVersion: number; versions: { version: number; judgeModel: string; prompt: string }[] };
    }>(t, `query($id: ID!) { criterion(id: $id) { id name latestVersion versions { version judgeModel prompt } } }`, { id: c.id });
    expect(read.criterion.latestVersion).toBe(2);
    expect(read.criterion.versions.map((v) => v.judgeModel)).toEqual(["openai:judge-1", "openai:judge-2"]);
    expect((await gqlData<{ criteria: { id: string }[] }>(t, `{ criteria { id } }`)).criteria.some((x) => x.id === c.id)).toBe(true);
    expect((await gql(t, `mutation($id: ID!) { deleteCriterion(id: $id) }`, { id: c.id })).data.deleteCriterion).toBe(c.id);
    expect((await gql(t, `query($id: ID!) { criterion(id: $id) { id } }`, { id: c.id })).errors[0].message).toBe(`Criterion ${c.id} not found`);
  });

  test("a prompt without {{output}}, unknown variables and bad judge models are rejected at creation", async () => {
    for (const [model, prompt, text] of [
      ["openai:j", "Is it good?", "{{output}}"],
      ["openai:j", "{{output}} vs {{expected}}", "may only use"],
      ["nowhere:j", "{{output}}", "unknown provider prefix"],
    ]) {
      const r = await gql(t, CREATE, { name: "x", model, prompt });
      expect(r.errors[0].extensions.code).toBe("VALIDATION");
      expect(JSON.stringify(r.errors[0])).toContain(text!);
    }
    const missing = await gql(t, `mutation { createCriterionVersion(input: {criterionId: "crit_nope", prompt: "{{output}}"}) { version } }`);
    expect(missing.errors[0].message).toBe("Criterion crit_nope not found");
  });
});

describe("POST /criteria/judge", () => {
  test("PASS scores 1 and FAIL 0, explanation and usage returned; pinned and latest versions; the judge call is logged", async () => {
    const c = await newCriterion("openai:judge-a");
    await gql(t, `mutation($id: ID!) { createCriterionVersion(input: {criterionId: $id, judgeModel: "openai:judge-b"}) { version } }`, { id: c.id });
    const input = { messages: [{ role: "user" as const, content: "2+2?" }] };
    const pass = await api.ok("POST /criteria/judge", { body: { criterion_id: c.id, input, output: { role: "assistant", content: "4" } } });
    expect(pass).toEqual({ score: 1, explanation: "The output is fine.", usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 } });
    expect(fake.requests.at(-1)!.body.model).toBe("judge-b");
    const sent = fake.requests.at(-1)!.body;
    expect(sent.tool_choice).toEqual({ type: "function", function: { name: "record_verdict" } });
    expect(Object.keys(sent.tools![0]!.function!.parameters!.properties as object)).toEqual(["explanation", "judgement"]);
    expect(sent.messages![1]!.content).toContain('"content": "2+2?"');
    expect(sent.messages![1]!.content).toContain("Output: 4");

    const fail = await api.ok("POST /criteria/judge", { body: { criterion_id: `${c.id}@v1`, input, output: { role: "assistant", content: "that is wrong" } } });
    expect(fail).toMatchObject({ score: 0, explanation: "The output is wrong." });
    expect(fake.requests.at(-1)!.body.model).toBe("judge-a");
    const log = (await logsOf(t)).at(-1)!;
    expect(log).toMatchObject({ model: "openai:judge-a", statusCode: 200, tags: { "hone.criterion": `${c.id}@v1` } });

    const noInput = await api.ok("POST /criteria/judge", {
      body: {
        criterion_id: c.id,
        output: { role: "assistant", content: "ok", tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }] },
      },
    });
    expect(noInput.score).toBe(1);
    expect(fake.requests.at(-1)!.body.messages![1]!.content).toContain('"tool_calls"');
  });

  test("exact not-found messages; other projects' criteria are not found; bad bodies are 400", async () => {
    const c = await newCriterion();
    const missing = await api.fail("POST /criteria/judge", { body: { criterion_id: "crit_missing", output: { role: "assistant", content: "x" } } });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: "Criterion crit_missing not found", code: "NOT_FOUND", issues: [] });
    const v = await api.fail("POST /criteria/judge", { body: { criterion_id: `${c.id}@v9`, output: { role: "assistant", content: "x" } } });
    expect(v.status).toBe(404);
    expect(v.body.message).toBe(`Criterion version 9 not found for criterion ${c.id}`);
    const other = await t.createProject("other");
    const theirs = await api.fail("POST /criteria/judge", { body: { criterion_id: c.id, output: { role: "assistant", content: "x" } }, key: other.apiKey });
    expect(theirs.status).toBe(404);
    expect((await api.fail("POST /criteria/judge", { body: { output: { role: "assistant", content: "x" } } })).status).toBe(400);
    expect((await api.fail("POST /criteria/judge", { body: { criterion_id: c.id, output: { role: "user", content: "x" } } })).status).toBe(400);
  });

  test("a judge that fails or times out is an error with its status", async () => {
    const broken = await newCriterion("openai:error-500");
    const r = await api.fail("POST /criteria/judge", { body: { criterion_id: broken.id, output: { role: "assistant", content: "x" } } });
    expect(r.status).toBe(500);
    expect(r.body.code).toBe("UPSTREAM_ERROR");
    const hanging = await newCriterion("openai:hang");
    const started = performance.now();
    const h = await api.fail("POST /criteria/judge", { body: { criterion_id: hanging.id, output: { role: "assistant", content: "x" } } });
    expect(h.status).toBe(504);
    expect(h.body.message).toContain("did not answer within 800 ms");
    expect(performance.now() - started).toBeLessThan(3000);
  });
});

describe("best of N with op-criteria", () => {
  test("every choice judged by every criterion, results keyed without @vN, sorted by combined score", async () => {
    const correct = await newCriterion();
    const prefersOne = await newCriterion();
    const savedJudge = fake.judge;
    // The fake answers "echo: <q>", "echo: <q> #1", "echo: <q> #2": #2 is wrong; #1 is the favourite.
    fake.judge = (p) => {
      if (p.includes("#2")) return { judgement: "FAIL", explanation: "wrong" };
      if (p.includes("favourite") && !p.includes("#1")) return { judgement: "FAIL", explanation: "not #1" };
      return { judgement: "PASS", explanation: "good" };
    };
    await gql(t, `mutation($id: ID!) { createCriterionVersion(input: {criterionId: $id, prompt: "favourite? {{output}}"}) { version } }`, {
      id: prefersOne.id,
    });
    try {
      const r = ChatCompletionWire.parse(
        await client.chat.completions.create(
          { model: "gpt-4o-mini", messages: [{ role: "user", content: "pick" }], n: 3 },
          { headers: { "op-criteria": JSON.stringify([`${correct.id}@v1`, prefersOne.id]) } },
        ),
      );
      const choices = r.choices;
      expect(choices.map((c) => c.message.content)).toEqual(["echo: pick #1", "echo: pick", "echo: pick #2"]);
      expect(choices.map((c) => c.index)).toEqual([1, 0, 2]);
      expect(choices[0]!.criteria_results).toEqual({
        [correct.id]: { status: "success", score: 1, explanation: "good" },
        [prefersOne.id]: { status: "success", score: 1, explanation: "good" },
      });
      expect(choices[2]!.criteria_results![correct.id]).toEqual({ status: "success", score: 0, explanation: "wrong" });
      expect(JudgedUsage.parse(r.usage).criteria[correct.id]!.total_tokens).toBe(3 * 18);
      // The application's call (its judges' calls are logged apart, as internal).
      const main = (await logsOf(t)).filter((l) => l.model === "openai:gpt-4o-mini" && l.source === "gateway").at(-1)!;
      expect(main.inputTokens).toBe(11);
    } finally {
      fake.judge = savedJudge;
    }
  });

  test("a failing judge gives an error result; the request still succeeds", async () => {
    const ok = await newCriterion();
    const broken = await newCriterion("openai:error-503");
    const r = ChatCompletionWire.parse(
      await client.chat.completions.create({
        model: "gpt-4o-mini",
        messages: [{ role: "user", content: "x" }],
        n: 2,
        hone: { criteria: [ok.id, broken.id] },
      } as never),
    );
    for (const c of r.choices) {
      expect(c.criteria_results![ok.id]!.status).toBe("success");
      expect(c.criteria_results![broken.id]).toMatchObject({
        status: "error",
        errorCode: "UPSTREAM_ERROR",
        errorMessage: expect.stringContaining("Simulated upstream error 503"),
      });
    }
  });

  test("judges run concurrently: 6 slow judges take about one judge's time", async () => {
    const a = await newCriterion("openai:slow-400");
    const b = await newCriterion("openai:slow-400");
    const started = performance.now();
    const r = ChatCompletionWire.parse(
      await client.chat.completions.create(
        { model: "gpt-4o-mini", messages: [{ role: "user", content: "x" }], n: 3 },
        { headers: { "op-criteria": JSON.stringify([a.id, b.id]) } },
      ),
    );
    const elapsed = performance.now() - started;
    expect(r.choices.every((c) => c.criteria_results![a.id]!.status === "success" && c.criteria_results![b.id]!.status === "success")).toBe(true);
    expect(elapsed).toBeGreaterThan(400);
    expect(elapsed).toBeLessThan(1200); // one by one would take 2,400 ms
  });

  test("a judge that times out is an error result", async () => {
    const hang = await newCriterion("openai:hang");
    const r = ChatCompletionWire.parse(
      await client.chat.completions.create(
        { model: "gpt-4o-mini", messages: [{ role: "user", content: "x" }] },
        { headers: { "op-criteria": JSON.stringify([hang.id]) } },
      ),
    );
    expect(r.choices[0]!.criteria_results![hang.id]).toMatchObject({ status: "error", errorCode: "UPSTREAM_TIMEOUT" });
  });

  test("bad op-criteria, unknown criteria and streaming are refused before any upstream call", async () => {
    const c = await newCriterion();
    const before = fake.requests.length;
    const cases: [Record<string, string>, Record<string, unknown>, number, string][] = [
      [{ "op-criteria": "not json" }, {}, 400, "op-criteria"],
      [{ "op-criteria": '"one"' }, {}, 400, "op-criteria"],
      [{ "op-criteria": '["crit_missing"]' }, {}, 404, "Criterion crit_missing not found"],
      [{ "op-criteria": JSON.stringify([`${c.id}@v7`]) }, {}, 404, `Criterion version 7 not found for criterion ${c.id}`],
      [{ "op-criteria": JSON.stringify([c.id, `${c.id}@v1`]) }, {}, 400, "listed twice"],
      [{ "op-criteria": JSON.stringify([c.id]) }, { stream: true }, 400, "cannot be used with stream"],
    ];
    for (const [headers, extra, status, message] of cases) {
      const res = await api.fail("POST /chat/completions", {
        body: { model: "gpt-4o-mini", messages: [{ role: "user", content: "x" }], ...extra },
        headers,
      });
      expect(res.status).toBe(status);
      expect(res.body.message).toContain(message);
    }
    expect(fake.requests.length).toBe(before);
  });
});

describe("alignment sets", () => {
  // Outputs containing "wrong" are judged FAIL by the fake, others PASS. Human labels are chosen
  // for TP 3, FP 1, FN 2, TN 4 (FAIL is the positive class), plus one unlabelled row.
  const row = (output: string, judgement?: "PASS" | "FAIL") =>
    JSON.stringify({
      messages: [
        { role: "user", content: "q" },
        { role: "assistant", content: output },
      ],
      ...(judgement ? { judgement } : {}),
    });
  const jsonl = [
    row("wrong 1", "FAIL"),
    row("wrong 2", "FAIL"),
    row("wrong 3", "FAIL"),
    row("wrong 4", "PASS"),
    row("fine 1", "FAIL"),
    row("fine 2", "FAIL"),
    row("fine 3", "PASS"),
    row("fine 4", "PASS"),
    row("fine 5", "PASS"),
    row("fine 6", "PASS"),
    row("fine 7"),
    "{not json",
    JSON.stringify({ messages: [{ role: "user", content: "no output" }] }),
    JSON.stringify({ messages: [{ role: "assistant", content: "x" }], judgement: "MAYBE" }),
    "",
  ].join("\n");

  test("statistics by hand: precision 3/4, recall 3/5, F1 2/3", () => {
    const s = alignmentStats(
      1,
      [
        ...Array(3).fill({ human: "FAIL", judge: "FAIL" }),
        { human: "PASS", judge: "FAIL" },
        ...Array(2).fill({ human: "FAIL", judge: "PASS" }),
        ...Array(4).fill({ human: "PASS", judge: "PASS" }),
        { human: null, judge: "PASS" },
      ],
      0,
    );
    expect(s).toMatchObject({ rows: 10, truePositives: 3, falsePositives: 1, falseNegatives: 2, trueNegatives: 4 });
    expect(s.precision).toBeCloseTo(0.75, 10);
    expect(s.recall).toBeCloseTo(0.6, 10);
    expect(s.f1).toBeCloseTo(2 / 3, 10);
    expect(s.warning).toContain("at least 30");
    expect(alignmentStats(1, Array(30).fill({ human: "PASS", judge: "PASS" }), 0)).toMatchObject({ precision: null, recall: null, f1: null, warning: null });
  });

  test("import, run, relabel, run again, compare versions (GraphQL), per-line errors", async () => {
    const c = await newCriterion();
    const imported = await gqlData<{ importAlignmentSet: { rowsImported: number; errors: { line: number; message: string }[] } }>(
      t,
      `mutation($id: ID!, $jsonl: String!) { importAlignmentSet(input: {criterionId: $id, jsonl: $jsonl}) { rowsImported errors { line message } } }`,
      { id: c.id, jsonl },
    );
    expect(imported.importAlignmentSet.rowsImported).toBe(11);
    expect(imported.importAlignmentSet.errors.map((e) => e.line)).toEqual([12, 13, 14]);
    expect(imported.importAlignmentSet.errors[0]!.message).toBe("not valid JSON");

    const RUN = `mutation($id: ID!, $v: Int) { runAlignment(input: {criterionId: $id, version: $v}) {
      version rows precision recall f1 truePositives falsePositives falseNegatives trueNegatives judgeErrors warning } }`;
    const run1 = (await gql(t, RUN, { id: c.id })).data.runAlignment;
    expect(run1).toMatchObject({ version: 1, rows: 10, truePositives: 3, falsePositives: 1, falseNegatives: 2, trueNegatives: 4, judgeErrors: 0 });
    expect(run1.precision).toBeCloseTo(0.75, 10);
    expect(run1.recall).toBeCloseTo(0.6, 10);
    expect(run1.f1).toBeCloseTo(2 / 3, 10);
    expect(run1.warning).toContain("at least 30");

    // Relabel "wrong 4" (a false positive) as FAIL: it becomes a true positive.
    type AlignmentRow = { id: string; output: { content: unknown }; judgement: string | null };
    const rows = (
      await gqlData<{ criterion: { alignmentRows: AlignmentRow[] } }>(t, `query($id: ID!) { criterion(id: $id) { alignmentRows { id output judgement } } }`, {
        id: c.id,
      })
    ).criterion.alignmentRows;
    const wrong4 = rows.find((r) => r.output.content === "wrong 4");
    const relabel = await gql(t, `mutation($id: ID!) { labelAlignmentRow(rowId: $id, judgement: "FAIL") { id judgement } }`, { id: wrong4!.id });
    expect(relabel.data.labelAlignmentRow.judgement).toBe("FAIL");
    const run1b = (await gql(t, RUN, { id: c.id, v: 1 })).data.runAlignment;
    expect(run1b).toMatchObject({ truePositives: 4, falsePositives: 0, precision: 1 });

    // Version 2 judges everything PASS: no positives found.
    await gql(t, `mutation($id: ID!) { createCriterionVersion(input: {criterionId: $id, prompt: "Always fine: {{output}}"}) { version } }`, { id: c.id });
    const saved = fake.judge;
    fake.judge = () => ({ judgement: "PASS", explanation: "ok" });
    try {
      const run2 = (await gql(t, RUN, { id: c.id })).data.runAlignment;
      expect(run2).toMatchObject({ version: 2, truePositives: 0, falseNegatives: 6, precision: null, recall: 0, f1: 0 });
    } finally {
      fake.judge = saved;
    }
    const runs = (await gql(t, `query($id: ID!) { criterion(id: $id) { alignmentRuns { version truePositives } } }`, { id: c.id })).data.criterion
      .alignmentRuns;
    expect(runs).toEqual([
      { version: 1, truePositives: 4 },
      { version: 2, truePositives: 0 },
    ]);
  });

  test("more than 10 MB is refused; other projects cannot touch the set; tRPC does the same", async () => {
    const c = await newCriterion();
    const big = await gql(t, `mutation($id: ID!, $jsonl: String!) { importAlignmentSet(input: {criterionId: $id, jsonl: $jsonl}) { rowsImported } }`, {
      id: c.id,
      jsonl: row("x".repeat(10 * 1024 * 1024 + 10)),
    });
    expect(big.errors?.[0]?.extensions.code ?? big.code).toBe("PAYLOAD_TOO_LARGE");

    // The verb's own limit, for callers that are not bound by the HTTP body limit (tRPC, scripts).
    const direct = await importAlignmentSet(
      { ...systemCtx(t.deps, "test"), projectId: t.project.projectId },
      { criterionId: c.id, jsonl: "x".repeat(10 * 1024 * 1024 + 1) },
    ).catch((e) => e);
    expect(direct.code).toBe("PAYLOAD_TOO_LARGE");

    const other = await t.createProject("other-align");
    const theirs = await gql(
      t,
      `mutation($id: ID!) { importAlignmentSet(input: {criterionId: $id, jsonl: "{}"}) { rowsImported } }`,
      { id: c.id },
      { key: other.apiKey },
    );
    expect(theirs.errors[0].extensions.code).toBe("NOT_FOUND");

    const trpc = trpcClient(t);
    const made = await trpc.criteria.create.mutate({ name: "t", judgeModel: "openai:j", prompt: "{{output}}" });
    await trpc.criteria.importAlignmentSet.mutate({ criterionId: made.id, jsonl: [row("wrong", "FAIL"), row("fine", "PASS")].join("\n") });
    const stats = await trpc.criteria.runAlignment.mutate({ criterionId: made.id });
    expect(stats).toMatchObject({ rows: 2, truePositives: 1, trueNegatives: 1, precision: 1, recall: 1, f1: 1 });
    expect((await trpc.criteria.judge.mutate({ criterion_id: made.id, output: { role: "assistant", content: "wrong" } })).score).toBe(0);
    expect((await trpc.criteria.alignmentRuns.query({ criterionId: made.id })).map((r) => r.version)).toEqual([1]);
  });
});
