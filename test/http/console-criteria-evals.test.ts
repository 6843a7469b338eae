import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { startJobs } from "../../src/background";
import type { Worker } from "../../src/background/worker";
import { datasetEntries } from "../../src/db/schema";
import { createTestApp, storeProviderKey, type TestApp } from "../helpers/app";
import { createDataset, type EntryInput, qa, waitForDatasetTask } from "../helpers/factories";
import { startFakeOpenAI, type FakeUpstream } from "../helpers/fake-upstreams";
import { gql, gqlData } from "../helpers/gql";
import { seedLogs } from "../helpers/logs";
import { trpcClient, trpcFailure } from "../helpers/trpc";
import { waitFor } from "../helpers/wait-for";

// The verbs the judging console needs (commit 6deb10b) through the tRPC handler: background
// alignment runs, alignment rows from logs and entries, the set-size cap, an evaluation read entry
// by entry, accepting a relabelled entry and the review queue. The fake OpenAI judge FAILs a prompt
// containing the word "wrong" and PASSes any other; gpt-4o-mini answers "echo: <question>".
let t: TestApp;
let fake: FakeUpstream;
let worker: Worker;

beforeAll(async () => {
  fake = startFakeOpenAI();
  t = await createTestApp({ env: { OPENAI_BASE_URL: `${fake.url}/v1`, HONE_JOB_POLL_MS: "20", HONE_EVAL_CONCURRENCY: "4", HONE_JUDGE_CONCURRENCY: "8" } });
  await storeProviderKey(t, "openai", "sk-console-0001");
  worker = startJobs(t.deps);
}, 60_000); // migrating the PGlite template is slow on a busy machine
afterAll(async () => {
  await worker.stop();
  await fake.stop();
  await t.close();
});

const trpc = () => trpcClient(t);
const newCriterion = async (name: string, key = t.project.apiKey) =>
  (await trpcClient(t, key).criteria.create.mutate({ name, judgeModel: "openai:judge", prompt: "Good answer? {{output}}" })).id;
const jsonl = (rows: { q: string; a: string; judgement?: "PASS" | "FAIL" }[]) =>
  rows.map((r) => JSON.stringify({ messages: qa(r.q, r.a).messages, judgement: r.judgement })).join("\n");
const waitAlignment = (id: string) =>
  waitFor(() => trpc().criteria.alignmentTask.query({ id }), {
    until: (task) => task.status === "DONE" || task.status === "ERROR",
    timeoutMs: 15_000,
    message: (last) => `alignment task ${id} to end (${JSON.stringify(last?.progress)} ${last?.status})`,
  });
const judgeRequests = () => fake.requests.filter((r) => r.body?.tools?.[0]?.function?.name === "record_verdict");
type EntriesPage = Awaited<ReturnType<ReturnType<typeof trpc>["evaluations"]["entries"]["query"]>>;
const codeOf = async (p: Promise<unknown>) => (await trpcFailure(p)).data?.code;

describe("background alignment runs", () => {
  test("60 labelled rows judged in steps of 50: progress, stats as runAlignment and by hand, last alignment, verdicts per version", async () => {
    const crit = await newCriterion("aligned");
    // Row i: the judge FAILs it when i % 3 == 0 (20 rows); the human label is FAIL when i % 4 == 0 (15 rows).
    const rows = Array.from({ length: 60 }, (_, i) => ({
      q: `question ${i}`,
      a: i % 3 === 0 ? `answer #${i}# is wrong` : `answer #${i}# is fine`,
      judgement: (i % 4 === 0 ? "FAIL" : "PASS") as "PASS" | "FAIL",
    }));
    expect(await trpc().criteria.importAlignmentSet.mutate({ criterionId: crit, jsonl: jsonl(rows) })).toEqual({ rowsImported: 60, errors: [] });

    const judgedBefore = judgeRequests().length;
    const started = await trpc().criteria.startAlignmentRun.mutate({ criterionId: crit });
    expect(started.id).toMatch(/^atask_/);
    expect(started).toMatchObject({ criterionId: crit, version: 1, status: "QUEUED", progress: { done: 0, total: 60 } });
    expect(started.stats).toBeNull();
    const done = await waitAlignment(started.id);
    expect(done).toMatchObject({ status: "DONE", progress: { done: 60, total: 60 }, errorMessage: null, version: 1 });
    // Every row judged exactly once over the steps.
    const prompts = judgeRequests()
      .slice(judgedBefore)
      .map((r) => r.body.messages!.at(-1)!.content as string);
    expect(prompts).toHaveLength(60);
    for (let i = 0; i < 60; i++) expect(prompts.filter((p) => p.includes(`#${i}#`))).toHaveLength(1);

    // By hand, FAIL positive: TP = i%12==0 (5), FP = 20-5, FN = 15-5, TN = 30.
    const precision = 5 / 20;
    const recall = 5 / 15;
    expect(done.stats).toEqual({
      version: 1,
      rows: 60,
      precision,
      recall,
      f1: expect.closeTo((2 * precision * recall) / (precision + recall), 10),
      truePositives: 5,
      falsePositives: 15,
      falseNegatives: 10,
      trueNegatives: 30,
      judgeErrors: 0,
      warning: null,
    });
    expect(done.stats!.f1).toBeCloseTo(2 / 7, 10);
    const listed = (await trpc().criteria.list.query()).find((c) => c.id === crit)!;
    expect(listed.lastAlignment).toMatchObject({ version: 1, f1: done.stats!.f1, rows: 60, createdAt: expect.any(String) });
    // The synchronous run of the same version answers the same statistics.
    expect(await trpc().criteria.runAlignment.mutate({ criterionId: crit, version: 1 })).toEqual(done.stats!);

    // A stricter version 2 FAILs everything; its run is now the criterion's last alignment.
    await trpc().criteria.createVersion.mutate({ criterionId: crit, prompt: "Strict: {{output}}" });
    const defaultJudge = fake.judge;
    fake.judge = (prompt) => (prompt.startsWith("Strict") ? { judgement: "FAIL", explanation: "Strictly failed." } : defaultJudge(prompt));
    try {
      const v2 = await trpc().criteria.startAlignmentRun.mutate({ criterionId: crit, version: 2 });
      expect(await waitAlignment(v2.id)).toMatchObject({
        status: "DONE",
        version: 2,
        progress: { done: 60, total: 60 },
        stats: { truePositives: 15, falsePositives: 45, falseNegatives: 0, trueNegatives: 0, precision: 0.25, recall: 1, f1: expect.closeTo(0.4, 10) },
      });
      expect((await trpc().criteria.alignmentTasks.query({ criterionId: crit })).map((x) => [x.id, x.version, x.status])).toEqual([
        [v2.id, 2, "DONE"],
        [started.id, 1, "DONE"],
      ]);
    } finally {
      fake.judge = defaultJudge;
    }
    expect((await trpc().criteria.list.query()).find((c) => c.id === crit)!.lastAlignment).toMatchObject({ version: 2, f1: expect.closeTo(0.4, 10) });

    // Each row carries every version's verdict, oldest version first.
    const stored = await trpc().criteria.alignmentRows.query({ criterionId: crit });
    expect(stored).toHaveLength(60);
    for (const row of stored) {
      const i = Number(/#(\d+)#/.exec(JSON.stringify(row.output))![1]);
      const wrong = i % 3 === 0;
      expect(row.judgement).toBe(i % 4 === 0 ? "FAIL" : "PASS");
      expect(row.verdicts).toEqual([
        {
          version: 1,
          verdict: wrong ? "FAIL" : "PASS",
          explanation: wrong ? "The output is wrong." : "The output is fine.",
          error: null,
          judgedAt: expect.any(String),
        },
        { version: 2, verdict: "FAIL", explanation: "Strictly failed.", error: null, judgedAt: expect.any(String) },
      ]);
    }

    // Another project finds neither the criterion nor its runs.
    const other = await t.createProject("alignment-other");
    const theirs = trpcClient(t, other.apiKey);
    expect(await codeOf(theirs.criteria.alignmentTask.query({ id: started.id }))).toBe("NOT_FOUND");
    expect(await codeOf(theirs.criteria.startAlignmentRun.mutate({ criterionId: crit }))).toBe("NOT_FOUND");
    expect(await codeOf(theirs.criteria.alignmentTasks.query({ criterionId: crit }))).toBe("NOT_FOUND");
    expect(await codeOf(trpc().criteria.alignmentTask.query({ id: "atask_nope" }))).toBe("NOT_FOUND");
  }, 30_000);
});

describe("alignment rows from logs and entries", () => {
  const answer = (content: string) => ({ choices: [{ index: 0, message: { role: "assistant", content } }] });

  test("import from logs and entries (others' ids and entries without a final answer skipped, one label for all), delete", async () => {
    const crit = await newCriterion("imported");
    const other = await t.createProject("rows-other");
    const [log1, noMessages] = await seedLogs(t, [
      {
        reqPayload: {
          messages: [
            { role: "system", content: "be brief" },
            { role: "user", content: "log question" },
          ],
        },
        respPayload: answer("log answer"),
      },
      { reqPayload: { nothing: true }, respPayload: answer("x") },
    ]);
    const [theirLog] = await seedLogs(
      t,
      [{ reqPayload: { messages: [{ role: "user", content: "their log" }] }, respPayload: answer("secret") }],
      other.projectId,
    );

    const ds = await createDataset(t, { name: "rows", entries: [qa("entry question", "entry answer"), qa("to be truncated", "gone")] });
    const entries = (await trpc().datasets.listEntries.query({ datasetId: ds })).entries;
    const good = entries.find((e) => JSON.stringify(e.messages).includes("entry question"))!;
    const truncated = entries.find((e) => JSON.stringify(e.messages).includes("to be truncated"))!;
    // No API stores an entry without a final assistant turn (older data may): written directly.
    await t.deps.database.db
      .update(datasetEntries)
      .set({ messages: [{ role: "user", content: "to be truncated" }] })
      .where(eq(datasetEntries.id, truncated.id));
    const theirDs = await createDataset(t, { name: "theirs", entries: [qa("their entry", "secret")], key: other.apiKey });
    const theirEntry = (await trpcClient(t, other.apiKey).datasets.listEntries.query({ datasetId: theirDs })).entries[0]!;

    const r = await trpc().criteria.importAlignmentRows.mutate({
      criterionId: crit,
      logIds: [log1!.id, noMessages!.id, theirLog!.id, log1!.id],
      entryIds: [good.id, truncated.id, theirEntry.id],
      judgement: "FAIL",
    });
    expect(r.rowsImported).toBe(2);
    expect(r.skipped).toEqual([
      { id: noMessages!.id, message: expect.stringContaining("no messages") },
      { id: theirLog!.id, message: `Log ${theirLog!.id} not found` },
      { id: truncated.id, message: expect.stringContaining("no final assistant turn") },
      { id: theirEntry.id, message: `Dataset entry ${theirEntry.id} not found` },
    ]);
    const rows = await trpc().criteria.alignmentRows.query({ criterionId: crit });
    expect(rows.map((x) => ({ messages: x.messages, output: x.output, judgement: x.judgement, verdicts: x.verdicts }))).toEqual([
      {
        messages: [
          { role: "system", content: "be brief" },
          { role: "user", content: "log question" },
        ],
        output: { role: "assistant", content: "log answer" },
        judgement: "FAIL",
        verdicts: [],
      },
      { messages: [{ role: "user", content: "entry question" }], output: { role: "assistant", content: "entry answer" }, judgement: "FAIL", verdicts: [] },
    ]);
    expect(JSON.stringify(rows)).not.toContain("secret");
    // Without a label the rows are unlabelled.
    expect((await trpc().criteria.importAlignmentRows.mutate({ criterionId: crit, entryIds: [good.id] })).rowsImported).toBe(1);
    expect((await trpc().criteria.alignmentRows.query({ criterionId: crit })).at(-1)!.judgement).toBeNull();
    expect(await codeOf(trpc().criteria.importAlignmentRows.mutate({ criterionId: crit }))).toBe("VALIDATION");
    expect(await codeOf(trpcClient(t, other.apiKey).criteria.importAlignmentRows.mutate({ criterionId: crit, logIds: [theirLog!.id] }))).toBe("NOT_FOUND");

    // Delete: ids the set does not hold are ignored; another project cannot delete.
    expect(await codeOf(trpcClient(t, other.apiKey).criteria.deleteAlignmentRows.mutate({ criterionId: crit, rowIds: [rows[0]!.id] }))).toBe("NOT_FOUND");
    expect(await trpc().criteria.deleteAlignmentRows.mutate({ criterionId: crit, rowIds: [rows[0]!.id, rows[0]!.id, "arow_unknown"] })).toEqual({ deleted: 1 });
    const left = await trpc().criteria.alignmentRows.query({ criterionId: crit });
    expect(left).toHaveLength(2);
    expect(left.map((x) => x.id)).not.toContain(rows[0]!.id);
  }, 30_000);

  test("a set holds at most 10,000 rows in total, whichever way they come", async () => {
    const crit = await newCriterion("capped");
    const tiny = (n: number, from: number) => Array.from({ length: n }, (_, i) => `{"messages":[{"role":"assistant","content":"r${from + i}"}]}`).join("\n");
    const importSet = (jsonlText: string) => trpc().criteria.importAlignmentSet.mutate({ criterionId: crit, jsonl: jsonlText });
    expect((await importSet(tiny(6_000, 0))).rowsImported).toBe(6_000);
    const over = await trpcFailure(importSet(tiny(5_000, 6_000)));
    expect(over.data?.code).toBe("VALIDATION");
    expect(over.message).toContain("at most 10000 rows; it has 6000 and 5000 more");
    expect((await importSet(tiny(4_000, 6_000))).rowsImported).toBe(4_000); // exactly 10,000
    expect(await codeOf(importSet(tiny(1, 10_000)))).toBe("VALIDATION");
    const ds = await createDataset(t, { name: "cap", entries: [qa("one more", "row")] });
    const entry = (await trpc().datasets.listEntries.query({ datasetId: ds })).entries[0]!;
    expect(await codeOf(trpc().criteria.importAlignmentRows.mutate({ criterionId: crit, entryIds: [entry.id] }))).toBe("VALIDATION");
    // Read a page at a time (HONE_MAX_PAGE_SIZE, 200 here): 50 pages hold the 10,000, in order, each once.
    const seen: string[] = [];
    let after: string | null = null;
    for (;;) {
      const page: { id: string }[] = await trpc().criteria.alignmentRows.query({ criterionId: crit, after });
      expect(page.length).toBeLessThanOrEqual(200);
      if (!page.length) break;
      seen.push(...page.map((r) => r.id));
      after = page.at(-1)!.id;
    }
    expect(seen.length).toBe(10_000);
    expect(new Set(seen).size).toBe(10_000);
    expect([...seen].sort()).toEqual(seen);
    expect(await codeOf(trpc().criteria.alignmentRows.query({ criterionId: crit, first: 201 }))).toBe("VALIDATION");
  }, 30_000);
});

describe("an evaluation entry by entry", () => {
  test("pages of entries with their input, reference and one result per model; onlyDifferent", async () => {
    const entries: EntryInput[] = [
      qa("capital of France", "Paris", "TEST"),
      qa("capital of Spain", "this is wrong", "TEST"), // the reference FAILs, gpt-4o-mini PASSes
      qa("wrong question", "Rome", "TEST"), // gpt-4o-mini FAILs, the reference PASSes
      qa("capital of Peru", "Lima", "TEST"),
      qa("wrong again", "also wrong", "TEST"), // both FAIL
      {
        messages: [
          { role: "system", content: "geography" },
          { role: "user", content: "capital of Chile" },
          { role: "assistant", content: "Santiago" },
          { role: "user", content: "and of Italy" },
          { role: "assistant", content: "Rome" },
        ],
        split: "TEST",
      },
      qa("train only", "x", "TRAIN"),
    ];
    const ds = await createDataset(t, { name: "eval-entries", entries });
    const crit = await newCriterion("eval");
    const created = await trpc().evaluations.create.mutate({ datasetId: ds, models: ["gpt-4o-mini", "dataset"], criterionIds: [crit] });
    await waitFor(() => trpc().evaluations.get.query({ id: created.id }), {
      until: (e) => e.status === "DONE",
      timeoutMs: 15_000,
      message: (e) => `evaluation stuck in ${e?.status}`,
    });
    const testEntries = (await trpc().datasets.listEntries.query({ datasetId: ds, split: "TEST" })).entries;
    expect(testEntries).toHaveLength(6);
    const byId = new Map(testEntries.map((e) => [e.id, e.messages as { role: string; content: string }[]]));

    const seen: EntriesPage["entries"] = [];
    const pages: EntriesPage[] = [];
    do {
      const page: EntriesPage = await trpc().evaluations.entries.query({ id: created.id, first: 2, after: pages.at(-1)?.endCursor });
      pages.push(page);
      seen.push(...page.entries);
    } while (pages.at(-1)!.hasNextPage && pages.length < 10);
    expect(pages.map((p) => [p.entries.length, p.hasNextPage, p.endCursor === null])).toEqual([
      [2, true, false],
      [2, true, false],
      [2, false, true],
    ]);
    expect(seen.map((e) => e.entryId)).toEqual([...byId.keys()].sort());
    for (const e of seen) {
      const messages = byId.get(e.entryId)!;
      expect(e.input).toEqual(messages.slice(0, -1));
      expect(e.reference).toEqual(messages.at(-1)!);
      expect(e.results.map((r) => r.model)).toEqual(["gpt-4o-mini", "dataset"]);
      expect(e.results.every((r) => r.entryId === e.entryId && r.error === null)).toBe(true);
      expect(e.results[1]!.output).toEqual(messages.at(-1)!);
    }

    const question = (e: { input: unknown }) => (e.input as { content: string }[]).at(-1)!.content;
    const different = await trpc().evaluations.entries.query({ id: created.id, onlyDifferent: true });
    expect(different.entries.map(question).sort()).toEqual(["capital of Spain", "wrong question"]);
    expect(different.hasNextPage).toBe(false);
    for (const e of different.entries) {
      const scores = e.results.map((r) => (r.verdicts[crit] as { score?: number }).score);
      expect(new Set(scores).size).toBe(2);
    }
    // One at a time, the differing entries come exactly once.
    const oneByOne: string[] = [];
    let after: string | null = null;
    for (let i = 0; i < 10; i++) {
      const page = await trpc().evaluations.entries.query({ id: created.id, first: 1, after, onlyDifferent: true });
      oneByOne.push(...page.entries.map(question));
      if (!page.hasNextPage) break;
      after = page.endCursor;
    }
    expect(oneByOne.sort()).toEqual(["capital of Spain", "wrong question"]);

    expect(await codeOf(trpc().evaluations.entries.query({ id: created.id, after: "not-a-cursor" }))).toBe("VALIDATION");
    const other = await t.createProject("eval-other");
    expect(await codeOf(trpcClient(t, other.apiKey).evaluations.entries.query({ id: created.id }))).toBe("NOT_FOUND");
  }, 30_000);
});

describe("accepting relabelled entries", () => {
  test("the review queue (pendingReview), accept, CONFLICT when nothing awaits review, recent tasks; GraphQL counterparts", async () => {
    const ds = await createDataset(t, {
      name: "review",
      entries: [qa("capital of France", "Paris"), qa("capital of Spain", "this is wrong"), qa("capital of Peru", "wrong: Lima")],
    });
    const crit = await newCriterion("review");
    const judged = await trpc().datasets.judgeEntries.mutate({ datasetId: ds, criterionId: crit });
    expect((await waitForDatasetTask(t, judged.id)).status).toBe("DONE");
    const relabel = await trpc().datasets.relabelEntries.mutate({ datasetId: ds, criterionId: crit, model: "gpt-4o-mini" });
    expect(await waitForDatasetTask(t, relabel.id)).toMatchObject({ status: "DONE", progress: { done: 2, total: 2 } });
    expect((await trpc().datasets.tasks.query({ datasetId: ds })).map((x) => [x.id, x.kind, x.status])).toEqual([
      [relabel.id, "relabel", "DONE"],
      [judged.id, "judge", "DONE"],
    ]);

    const questionOf = (e: { messages: unknown[] }) => (e.messages[0] as { content: string }).content;
    const pending = async (pendingReview: boolean) =>
      (await trpc().datasets.listEntries.query({ datasetId: ds, pendingReview })).entries.map(questionOf).sort();
    const count = async (pendingReview: boolean) => (await trpc().datasets.countEntries.query({ datasetId: ds, filter: { pendingReview } })).count;
    expect(await pending(true)).toEqual(["capital of Peru", "capital of Spain"]);
    expect(await pending(false)).toEqual(["capital of France"]);
    expect([await count(true), await count(false)]).toEqual([2, 1]);

    const all = (await trpc().datasets.listEntries.query({ datasetId: ds })).entries;
    const find = (q: string) => all.find((e) => questionOf(e) === q)!;
    const spain = find("capital of Spain");
    const accepted = await trpc().datasets.acceptRelabel.mutate({ entryId: spain.id });
    expect(accepted).toMatchObject({ id: spain.id, originalMessages: null, relabeledBy: "gpt-4o-mini", messages: spain.messages });
    expect((accepted.messages.at(-1) as { content: string }).content).toBe("echo: capital of Spain");
    expect(accepted.verdicts).toEqual(spain.verdicts);
    expect(await pending(true)).toEqual(["capital of Peru"]);
    expect([await count(true), await count(false)]).toEqual([1, 2]);
    // Nothing awaits review: accepted already, or never relabelled; an accepted entry cannot be reverted.
    expect(await codeOf(trpc().datasets.acceptRelabel.mutate({ entryId: spain.id }))).toBe("CONFLICT");
    expect(await codeOf(trpc().datasets.acceptRelabel.mutate({ entryId: find("capital of France").id }))).toBe("CONFLICT");
    expect(await codeOf(trpc().datasets.revertEntry.mutate({ entryId: spain.id }))).toBe("CONFLICT");
    const other = await t.createProject("review-other");
    const peru = find("capital of Peru");
    expect(await codeOf(trpcClient(t, other.apiKey).datasets.acceptRelabel.mutate({ entryId: peru.id }))).toBe("NOT_FOUND");
    expect(await codeOf(trpcClient(t, other.apiKey).datasets.tasks.query({ datasetId: ds }))).toBe("NOT_FOUND");

    // GraphQL: the pendingReview filter and argument, and accepting.
    const countQ = `query($ds: ID!, $p: Boolean) { datasetEntryCount(datasetId: $ds, filter: {pendingReview: $p}) }`;
    expect((await gqlData(t, countQ, { ds, p: true })).datasetEntryCount).toBe(1);
    const listed = await gqlData(t, `query($ds: ID!) { dataset(id: $ds) { entries(first: 10, pendingReview: true) { edges { node { id } } } } }`, { ds });
    expect(listed.dataset.entries.edges).toEqual([{ node: { id: peru.id } }]);
    const viaGql = await gqlData(t, `mutation($id: ID!) { acceptDatasetEntryRelabel(id: $id) { id originalMessages relabeledBy } }`, { id: peru.id });
    expect(viaGql.acceptDatasetEntryRelabel).toEqual({ id: peru.id, originalMessages: null, relabeledBy: "gpt-4o-mini" });
    expect((await gqlData(t, countQ, { ds, p: true })).datasetEntryCount).toBe(0);
    const again = await gql(t, `mutation($id: ID!) { acceptDatasetEntryRelabel(id: $id) { id } }`, { id: peru.id });
    expect(again.errors[0].extensions.code).toBe("CONFLICT");
  }, 30_000);

  test("GraphQL startAlignmentRun and alignmentTask", async () => {
    const crit = await newCriterion("gql-alignment");
    await trpc().criteria.importAlignmentSet.mutate({
      criterionId: crit,
      jsonl: jsonl([
        { q: "a", a: "fine", judgement: "PASS" },
        { q: "b", a: "wrong", judgement: "FAIL" },
        { q: "c", a: "wrong too", judgement: "PASS" },
      ]),
    });
    const started = (
      await gqlData(
        t,
        `mutation($c: ID!) { startAlignmentRun(input: {criterionId: $c, version: 1}) { id criterionId version status done total stats { f1 } } }`,
        {
          c: crit,
        },
      )
    ).startAlignmentRun;
    expect(started).toMatchObject({ criterionId: crit, version: 1, status: "QUEUED", done: 0, total: 3, stats: null });
    const TASK = `query($id: ID!) { alignmentTask(id: $id) { status done total errorMessage stats { rows truePositives falsePositives trueNegatives precision recall f1 } } }`;
    const done = await waitFor(async () => (await gqlData(t, TASK, { id: started.id })).alignmentTask, {
      until: (x) => x.status === "DONE" || x.status === "ERROR",
      message: "the GraphQL alignment task to end",
    });
    expect(done).toEqual({
      status: "DONE",
      done: 3,
      total: 3,
      errorMessage: null,
      stats: { rows: 3, truePositives: 1, falsePositives: 1, trueNegatives: 1, precision: 0.5, recall: 1, f1: expect.closeTo(2 / 3, 10) },
    });
    const other = await t.createProject("gql-alignment-other");
    expect((await gql(t, TASK, { id: started.id }, { key: other.apiKey })).errors[0].extensions.code).toBe("NOT_FOUND");
  }, 30_000);
});
