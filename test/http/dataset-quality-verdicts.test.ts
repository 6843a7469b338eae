import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { TRPCClientError } from "@trpc/client";
import { loadEntryVerdicts } from "../../src/domain/datasets";
import type { TestApp } from "../helpers/app";
import type { FakeUpstream } from "../helpers/fake-upstreams";
import { type JobApp, startJobApp } from "../helpers/job-app";
import { captureQueries } from "../helpers/queries";
import { addEntries as addDatasetEntries, createDataset, type EntryInput, qa, waitForDatasetTask } from "../helpers/factories";
import { gql } from "../helpers/gql";
import { trpcClient } from "../helpers/trpc";

// Dataset quality you can read: verdicts on entries (GraphQL, tRPC, export), one relabel call that
// judges, relabels and judges again, originals, revert. The fake OpenAI upstream's judge fails an
// output containing "wrong" and passes any other; gpt-4o-mini answers "echo: <question>".
let app: JobApp;
let t: TestApp;
let fake: FakeUpstream;
let server: JobApp["server"];

beforeAll(async () => {
  app = await startJobApp({ providerKey: "sk-quality-0001" });
  ({ t, fake, server } = app);
});
afterAll(() => app.close());

const json = async (res: Response): Promise<unknown> => res.json();
const pair = (q: string, a: string) => qa(q, a);
const addEntries = (ds: string, entries: EntryInput[]) => addDatasetEntries(t, ds, entries);
const waitTask = (id: string) => waitForDatasetTask(t, id);

type Msg = { role: string; content: string };
/** An entry as ENTRIES reads it. */
type Entry = {
  id: string;
  messages: Msg[];
  originalMessages: Msg[] | null;
  relabeledBy: string | null;
  verdicts: {
    criterionId: string;
    version: number;
    judgement: "PASS" | "FAIL" | null;
    score: number | null;
    explanation: string | null;
    error: string | null;
    judgedAt: string;
  }[];
};
/** The entries' questions (their first message). */
type Question = "capital of France" | "capital of Spain" | "capital of Peru" | "capital of Italy" | "wrong question" | "secret";
const ENTRIES = `query($id: ID!, $n: Int) { dataset(id: $id) { entries(first: $n) { edges { node { id messages originalMessages relabeledBy
  verdicts { criterionId version judgement score explanation error judgedAt } } } } } }`;
/** Entries keyed by their question. */
async function entriesByQuestion(ds: string): Promise<Record<Question, Entry>> {
  const r = await gql<{ dataset: { entries: { edges: { node: Entry }[] } } }>(t, ENTRIES, { id: ds, n: 200 });
  expect(r.errors).toBeUndefined();
  return Object.fromEntries(r.data!.dataset.entries.edges.map((e) => [e.node.messages[0]!.content, e.node])) as Record<Question, Entry>;
}
const answer = (e: { messages: readonly unknown[] | null }) => (e.messages!.at(-1) as { content?: unknown }).content;
/** Generation (not judge) calls the upstream got for this question. */
const generations = (q: string) => fake.requests.filter((r) => r.body.model === "gpt-4o-mini" && !r.body.tools && r.body.messages!.at(-1)!.content === q);

describe("dataset quality you can read", () => {
  test("judge, read verdicts, relabel in one call (unjudged judged first, FAIL relabelled and judged again), originals, export, revert", async () => {
    const started = Date.now();
    const ds = await createDataset(t, { name: "quality" });
    await addEntries(ds, [pair("capital of France", "Paris"), pair("capital of Spain", "this is wrong"), pair("wrong question", "a wrong answer")]);
    const crit = (await gql(t, `mutation { createCriterion(input: {name: "correct", judgeModel: "openai:judge", prompt: "Good answer? {{output}}"}) { id } }`))
      .data.createCriterion.id as string;

    const judged = (
      await gql(t, `mutation($ds: ID!, $c: String!) { judgeDatasetEntries(input: {datasetId: $ds, criterionId: $c}) { id status } }`, { ds, c: crit })
    ).data.judgeDatasetEntries;
    expect(await waitTask(judged.id)).toMatchObject({ status: "DONE", progress: { done: 3, total: 3 } });

    // GraphQL: the latest verdict per criterion, with score, explanation, version and time.
    const first = await entriesByQuestion(ds);
    expect(first["capital of France"].verdicts).toEqual([
      { criterionId: crit, version: 1, judgement: "PASS", score: 1, explanation: "The output is fine.", error: null, judgedAt: expect.any(String) },
    ]);
    expect(first["capital of Spain"].verdicts).toEqual([
      { criterionId: crit, version: 1, judgement: "FAIL", score: 0, explanation: "The output is wrong.", error: null, judgedAt: expect.any(String) },
    ]);
    const judgedAt = Date.parse(first["capital of France"].verdicts[0]!.judgedAt);
    expect(judgedAt).toBeGreaterThanOrEqual(started - 1000);
    expect(judgedAt).toBeLessThanOrEqual(Date.now() + 1000);

    // tRPC: the same verdicts on the entries listing.
    const listed = await trpcClient(t).datasets.listEntries.query({ datasetId: ds });
    const spain = listed.entries.find((e) => (e.messages[0] as { content?: unknown }).content === "capital of Spain")!;
    expect(spain.verdicts).toEqual([
      {
        criterionId: crit,
        version: 1,
        judgement: "FAIL",
        score: 0,
        explanation: "The output is wrong.",
        error: null,
        judgedAt: first["capital of Spain"].verdicts[0]!.judgedAt,
      },
    ]);
    expect(spain.originalMessages).toBeNull();

    // Two entries nobody judged yet, and a new criterion version: what relabelling judges uses it.
    await addEntries(ds, [pair("capital of Peru", "wrong: Lima"), pair("capital of Italy", "Rome")]);
    expect(
      (await gql(t, `mutation($id: ID!) { createCriterionVersion(input: {criterionId: $id, judgeModel: "openai:judge"}) { version } }`, { id: crit })).data
        .createCriterionVersion.version,
    ).toBe(2);

    const relabel = (
      await gql(t, `mutation($ds: ID!, $c: String!) { relabelDatasetEntries(input: {datasetId: $ds, criterionId: $c, model: "gpt-4o-mini"}) { id status } }`, {
        ds,
        c: crit,
      })
    ).data.relabelDatasetEntries;
    // Every entry whose latest verdict was not PASS: two FAIL, two unjudged.
    expect(await waitTask(relabel.id)).toMatchObject({ status: "DONE", progress: { done: 4, total: 4 }, errorMessage: null });

    const after = await entriesByQuestion(ds);
    // Passing before: untouched, verdict unchanged.
    expect(after["capital of France"]).toMatchObject({ relabeledBy: null, originalMessages: null, verdicts: first["capital of France"].verdicts });
    // Failing before: relabelled, judged again (now PASS, by version 2), original readable.
    expect(answer(after["capital of Spain"])).toBe("echo: capital of Spain");
    expect(after["capital of Spain"].originalMessages).toEqual([
      { role: "user", content: "capital of Spain" },
      { role: "assistant", content: "this is wrong" },
    ]);
    expect(after["capital of Spain"].relabeledBy).toBe("gpt-4o-mini");
    expect(after["capital of Spain"].verdicts).toEqual([
      { criterionId: crit, version: 2, judgement: "PASS", score: 1, explanation: "The output is fine.", error: null, judgedAt: expect.any(String) },
    ]);
    // Unjudged and failing: judged first, then relabelled and judged again.
    expect(answer(after["capital of Peru"])).toBe("echo: capital of Peru");
    expect(answer({ messages: after["capital of Peru"].originalMessages })).toBe("wrong: Lima");
    expect(after["capital of Peru"].verdicts).toMatchObject([{ version: 2, judgement: "PASS", score: 1 }]);
    // Unjudged and passing: judged, not relabelled.
    expect(after["capital of Italy"]).toMatchObject({ relabeledBy: null, originalMessages: null, verdicts: [{ version: 2, judgement: "PASS", score: 1 }] });
    expect(generations("capital of Italy")).toHaveLength(0);
    // Still failing after relabelling: the new verdict says so, and the task relabelled it only once.
    expect(answer(after["wrong question"])).toBe("echo: wrong question");
    expect(after["wrong question"].verdicts).toMatchObject([{ version: 2, judgement: "FAIL", score: 0, explanation: "The output is wrong." }]);
    expect(generations("wrong question")).toHaveLength(1);

    // The judge saw Peru's original answer before the relabelling call was made.
    const judgeOf = (text: string) =>
      fake.requests.findIndex((r) => r.body.tools?.[0]?.function?.name === "record_verdict" && JSON.stringify(r.body.messages).includes(text));
    const generationIndex = fake.requests.findIndex(
      (r) => r.body.model === "gpt-4o-mini" && !r.body.tools && r.body.messages!.at(-1)!.content === "capital of Peru",
    );
    expect(judgeOf("wrong: Lima")).toBeGreaterThanOrEqual(0);
    expect(judgeOf("wrong: Lima")).toBeLessThan(generationIndex);
    expect(judgeOf("echo: capital of Peru")).toBeGreaterThan(generationIndex);

    // tRPC shows the new verdicts and the originals too.
    const relisted = await trpcClient(t).datasets.listEntries.query({ datasetId: ds, first: 200 });
    const peru = relisted.entries.find((e) => (e.messages[0] as { content?: unknown }).content === "capital of Peru")!;
    expect(peru.verdicts).toEqual(after["capital of Peru"].verdicts);
    expect(peru.originalMessages).toEqual(after["capital of Peru"].originalMessages);
    expect(peru.relabeledBy).toBe("gpt-4o-mini");

    // Export: unchanged by default; verdicts only when asked.
    const exportRows = async (query: string) => {
      const res = await fetch(`${server.url}/api/v1/datasets/${ds}/export${query}`, { headers: { authorization: `Bearer ${t.project.apiKey}` } });
      expect(res.status).toBe(200);
      return (await res.text())
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
    };
    const plain = await exportRows("");
    expect(plain).toHaveLength(5);
    expect(plain.every((r) => !("verdicts" in r))).toBe(true);
    expect(Object.keys(plain[0]).sort()).toEqual(["messages", "metadata", "split", "tool_choice", "tools"]);
    const withVerdicts = await exportRows("?includeVerdicts=true");
    const byAnswer = Object.fromEntries(withVerdicts.map((r) => [r.messages[0].content, r]));
    expect(byAnswer["wrong question"].verdicts).toEqual([
      {
        criterion_id: crit,
        version: 2,
        judgement: "FAIL",
        score: 0,
        explanation: "The output is wrong.",
        error: null,
        judged_at: after["wrong question"].verdicts[0]!.judgedAt,
      },
    ]);
    expect(byAnswer["capital of France"].verdicts).toMatchObject([{ version: 1, judgement: "PASS", score: 1 }]);
    expect((await exportRows("?includeVerdicts=false")).every((r) => !("verdicts" in r))).toBe(true);
    // Combined with the verdict filter: only the failing entry, with its verdict.
    const failing = await exportRows(`?criterion=${crit}&judgement=FAIL&includeVerdicts=true`);
    expect(failing.map((r) => [r.messages[0].content, r.verdicts[0].judgement])).toEqual([["wrong question", "FAIL"]]);
    const bad = await t.request("GET", `/api/v1/datasets/${ds}/export?includeVerdicts=yes-please`);
    expect(bad.status).toBe(400);
    expect(await json(bad)).toMatchObject({ code: "VALIDATION", message: expect.any(String), issues: [{ path: ["includeVerdicts"] }] });

    // Revert: the original comes back, the verdict given to the relabelled answer goes.
    const reverted = await gql(t, `mutation($id: ID!) { revertDatasetEntry(id: $id) { id messages originalMessages relabeledBy verdicts { judgement } } }`, {
      id: after["capital of Spain"].id,
    });
    expect(reverted.data.revertDatasetEntry).toEqual({
      id: after["capital of Spain"].id,
      messages: after["capital of Spain"].originalMessages,
      originalMessages: null,
      relabeledBy: null,
      verdicts: [],
    });
    const again = await gql(t, `mutation($id: ID!) { revertDatasetEntry(id: $id) { id } }`, { id: after["capital of Spain"].id });
    expect(again.errors[0].extensions.code).toBe("CONFLICT");
    const viaTrpc = await trpcClient(t).datasets.revertEntry.mutate({ entryId: after["capital of Peru"].id });
    expect(viaTrpc).toMatchObject({ originalMessages: null, relabeledBy: null, verdicts: [] });
    expect(answer(viaTrpc)).toBe("wrong: Lima");
    const final = await entriesByQuestion(ds);
    expect(answer(final["capital of Spain"])).toBe("this is wrong");
    expect(final["wrong question"].relabeledBy).toBe("gpt-4o-mini");
  }, 30_000);

  test("verdicts of a page come from one query, entries from a fixed few, and a 200-entry page is within the cost limit", async () => {
    const ds = await createDataset(t, { name: "batched" });
    await addEntries(
      ds,
      Array.from({ length: 40 }, (_, i) => pair(`q${i}`, i % 4 ? `fine ${i}` : `wrong ${i}`)),
    );
    const crit = (await gql(t, `mutation { createCriterion(input: {name: "b", judgeModel: "openai:judge", prompt: "{{output}}"}) { id } }`)).data
      .createCriterion.id;
    const task = (await gql(t, `mutation($ds: ID!, $c: String!) { judgeDatasetEntries(input: {datasetId: $ds, criterionId: $c}) { id } }`, { ds, c: crit }))
      .data.judgeDatasetEntries;
    expect((await waitTask(task.id)).status).toBe("DONE");
    const small = await captureQueries(t.deps.database.db, () => gql(t, ENTRIES, { id: ds, n: 2 }));
    const large = await captureQueries(t.deps.database.db, () => gql(t, ENTRIES, { id: ds, n: 200 }));
    expect(large.result.errors).toBeUndefined();
    const edges = large.result.data.dataset.entries.edges;
    expect(edges).toHaveLength(40);
    expect(edges.filter((e: { node: { verdicts: { judgement: string }[] } }) => e.node.verdicts[0]!.judgement === "FAIL")).toHaveLength(10);
    // Only the statements of the query itself: the job worker and the API key cache share the database.
    const ofDatasets = (qs: string[]) => qs.filter((q) => /"(datasets|dataset_entries|entry_verdicts)"/.test(q));
    // dataset, its page of entries (sized, then loaded), their verdicts
    expect(ofDatasets(large.queries)).toHaveLength(4);
    expect(ofDatasets(small.queries)).toHaveLength(4);
    expect(large.queries.filter((q) => q.startsWith('select "entry_verdicts"'))).toHaveLength(1);
  });

  test("another project sees none of it", async () => {
    const ds = await createDataset(t, { name: "private" });
    await addEntries(ds, [pair("secret", "a wrong secret")]);
    const crit = (await gql(t, `mutation { createCriterion(input: {name: "p", judgeModel: "openai:judge", prompt: "{{output}}"}) { id } }`)).data
      .createCriterion.id;
    const task = (await gql(t, `mutation($ds: ID!, $c: String!) { judgeDatasetEntries(input: {datasetId: $ds, criterionId: $c}) { id } }`, { ds, c: crit }))
      .data.judgeDatasetEntries;
    expect((await waitTask(task.id)).status).toBe("DONE");
    const mine = await entriesByQuestion(ds);
    const entryId = mine.secret.id;
    expect(mine.secret.verdicts).toHaveLength(1);

    const other = await t.createProject("quality-other");
    expect((await gql(t, ENTRIES, { id: ds, n: 10 }, { key: other.apiKey })).errors[0].extensions.code).toBe("NOT_FOUND");
    expect((await gql(t, `mutation($id: ID!) { revertDatasetEntry(id: $id) { id } }`, { id: entryId }, { key: other.apiKey })).errors[0].extensions.code).toBe(
      "NOT_FOUND",
    );
    const err = await trpcClient(t, other.apiKey)
      .datasets.listEntries.query({ datasetId: ds })
      .catch((e) => e);
    expect(err).toBeInstanceOf(TRPCClientError);
    expect(err.data.code).toBe("NOT_FOUND");
    const revertErr = await trpcClient(t, other.apiKey)
      .datasets.revertEntry.mutate({ entryId })
      .catch((e) => e);
    expect(revertErr.data.code).toBe("NOT_FOUND");
    const exported = await t.request("GET", `/api/v1/datasets/${ds}/export?includeVerdicts=true`, { key: other.apiKey });
    expect(exported.status).toBe(404);
    // The batch loader itself is scoped: the other project asking for this entry's verdicts gets none.
    const otherCtx = { deps: t.deps, actor: { type: "system", job: "test" }, projectId: other.projectId, requestId: "quality-test" } as never;
    expect((await loadEntryVerdicts(otherCtx, [entryId])).size).toBe(0);
    expect((await loadEntryVerdicts({ ...(otherCtx as object), projectId: t.project.projectId } as never, [entryId])).get(entryId)).toHaveLength(1);
  });
});
