import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { startMonitorRunner } from "../../src/background/monitors";
import { systemCtx } from "../../src/domain/context";
import { resultRows } from "../../src/domain/logs/internal";
import { deleteExpiredMonitorLogs } from "../../src/domain/monitors";
import { sampleUnit } from "../../src/domain/sample-unit";
import type { TestApp } from "../helpers/app";
import { createCriterion, createDataset } from "../helpers/factories";
import type { FakeUpstream } from "../helpers/fake-upstreams";
import { gql, gqlData } from "../helpers/gql";
import { type JobApp, startJobApp } from "../helpers/job-app";
import { trpcClient } from "../helpers/trpc";
import { waitFor } from "../helpers/wait-for";

// Monitors: live calls become dataset entries through a saved filter, an LLM filter and a sample.
// The fake OpenAI upstream answers "echo: <question>"; its judge fails an output holding "wrong".
let app: JobApp;
let t: TestApp;
let fake: FakeUpstream;

beforeAll(async () => {
  app = await startJobApp({ providerKey: "sk-monitor-0001", env: { HONE_MONITOR_POLL_MS: "20" } });
  ({ t, fake } = app);
});
afterAll(() => app.close());

const MONITOR = `id name status sampleRate keepOn criterionId datasetId testFraction lastError filter judgeCostUsd
  counts { seen sampled matched judged rejected added duplicates invalid waiting }`;

async function createMonitor(input: Record<string, unknown>, key?: string) {
  return gql(t, `mutation($input: CreateMonitorInput!) { createMonitor(input: $input) { ${MONITOR} } }`, { input }, key ? { key } : {});
}
const monitor = async (id: string) => (await gqlData(t, `query($id: ID!) { monitor(id: $id) { ${MONITOR} } }`, { id })).monitor;

/** The entries of a dataset: source log id, split, question, answer. */
async function entriesOf(datasetId: string) {
  const all: { sourceLogId: string | null; split: string; q: string; a: string }[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await trpcClient(t).datasets.listEntries.query({ datasetId, first: 200, ...(cursor ? { after: cursor } : {}) });
    for (const e of page.entries) {
      const m = e.messages as { content: string }[];
      all.push({ sourceLogId: e.sourceLogId, split: e.split, q: m[0]!.content, a: m.at(-1)!.content });
    }
    if (!page.hasNextPage || !page.endCursor) return all;
    cursor = page.endCursor;
  }
}

/** Sends chat calls through the gateway, 16 at a time; returns each call's log id by question. */
async function call(questions: string[], tags: Record<string, string> = {}): Promise<void> {
  for (let i = 0; i < questions.length; i += 16) {
    await Promise.all(
      questions.slice(i, i + 16).map(async (q) => {
        const res = await t.request("POST", "/api/v1/chat/completions", {
          body: { model: "gpt-4o-mini", messages: [{ role: "user", content: q }], metadata: tags },
        });
        expect(res.status).toBe(200);
        await res.arrayBuffer();
      }),
    );
  }
  await t.deps.logWriter.flush();
}

type LogPage = {
  logs: { edges: { node: { id: string; reqPayload: { messages: { content: string }[] } } }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } };
};
/** The application's answered calls in the project, by id, with their question. */
async function appLogs(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  let after: string | null = null;
  for (;;) {
    const page: LogPage = await gqlData<LogPage>(
      t,
      `query($after: String) { logs(first: 200, after: $after, filter: {internal: false}) { edges { node { id reqPayload } } pageInfo { hasNextPage endCursor } } }`,
      { after },
    );
    for (const e of page.logs.edges) out.set(e.node.id, e.node.reqPayload.messages[0]!.content);
    if (!page.logs.pageInfo.hasNextPage) return out;
    after = page.logs.pageInfo.endCursor;
  }
}

const settled = (id: string) =>
  waitFor(
    async () => {
      const m = await monitor(id);
      return m.counts.waiting === 0 ? m : null;
    },
    { timeoutMs: 120_000, intervalMs: 100 },
  );

describe("monitors", () => {
  let datasetA: string;
  let monitorA: string;
  let criterionId: string;
  const started = new Date(Date.now() - 1000);
  // 1,000 calls: every fourth asks something "wrong" (the judge fails its echo), and the last 10
  // repeat earlier questions without the "wrong" (8 are duplicates of good ones).
  const questions = Array.from({ length: 1000 }, (_, i) => (i >= 990 ? `question ${(i - 989) * 3}` : i % 4 === 0 ? `question ${i} wrong` : `question ${i}`));
  const passing = new Set(questions.filter((q) => !q.includes("wrong")));

  test("an LLM filter over 1,000 live calls adds exactly the PASS ones, once each, across several runners and a restart", async () => {
    datasetA = await createDataset(t, { name: "good answers" });
    criterionId = (await createCriterion(t, { name: "good", judgeModel: "openai:gpt-4o-mini", prompt: "Is this right? {{output}}" })).id;
    const created = await createMonitor({ name: "good answers", datasetId: datasetA, criterionId, keepOn: "PASS", testFraction: 0.25 });
    expect(created.errors).toBeUndefined();
    monitorA = created.data.createMonitor.id;
    expect(created.data.createMonitor).toMatchObject({
      status: "ACTIVE",
      sampleRate: 1,
      keepOn: "PASS",
      criterionId,
      testFraction: 0.25,
      counts: { added: 0 },
    });

    // Two more runners beside the job app's (as other processes would be); one stops part way.
    const second = startMonitorRunner(t.deps, { pollMs: 20 });
    const third = startMonitorRunner(t.deps, { pollMs: 20 });
    await call(questions.slice(0, 500));
    await third.stop();
    const restarted = startMonitorRunner(t.deps, { pollMs: 20 });
    await call(questions.slice(500));
    const done = await settled(monitorA);
    await Promise.all([second.stop(), restarted.stop()]);

    const entries = await entriesOf(datasetA);
    expect(entries.length).toBe(passing.size);
    expect(new Set(entries.map((e) => e.q))).toEqual(passing);
    expect(entries.every((e) => e.a === `echo: ${e.q}`)).toBe(true);
    // Each entry remembers its call; no call gave two.
    expect(new Set(entries.map((e) => e.sourceLogId)).size).toBe(entries.length);
    const failing = questions.filter((q) => q.includes("wrong")).length;
    const repeats = questions.length - failing - passing.size;
    expect(repeats).toBe(8);
    expect(done.counts).toEqual({
      // Every answered call of the application, once (the judges' own calls are not the application's).
      seen: 1000,
      sampled: 1000,
      matched: 1000,
      judged: 1000,
      rejected: failing,
      added: passing.size,
      duplicates: repeats,
      invalid: 0,
      waiting: 0,
    });
    // The split follows testFraction, decided per call.
    const test = entries.filter((e) => e.split === "TEST").length;
    expect(test / entries.length).toBeGreaterThan(0.18);
    expect(test / entries.length).toBeLessThan(0.32);
    // The judge calls are Hone's own, of kind monitor, priced (gpt-4o-mini has a price).
    const internal = await gqlData(t, `{ logs(first: 5, filter: {internalKind: "monitor"}) { edges { node { source internalKind model } } } }`);
    expect(internal.logs.edges.length).toBe(5);
    expect(internal.logs.edges[0].node).toMatchObject({ source: "internal", internalKind: "monitor" });
    expect(done.judgeCostUsd).toBeGreaterThan(0);
    // Judge calls were never offered to the monitor (it would judge its own judges).
    const judgeCalls = fake.requests.filter(
      (r) => Array.isArray(r.body.tools) && String(r.body.messages![0]!.content).startsWith("You are an evaluator"),
    ).length;
    // (A runner stopped mid-judging gives its calls back; they are judged again, added once.)
    expect(judgeCalls).toBeGreaterThanOrEqual(1000);
  }, 180_000);

  test("a backfill over the same range equals the monitor that ran live, and a second backfill adds nothing", async () => {
    const datasetB = await createDataset(t, { name: "backfilled" });
    const b = (await createMonitor({ name: "late", datasetId: datasetB, criterionId, testFraction: 0.25, paused: true })).data.createMonitor;
    expect(b.status).toBe("PAUSED");
    const filled = await gqlData(t, `mutation($id: ID!, $from: String!) { backfillMonitor(id: $id, from: $from) { offered capped } }`, {
      id: b.id,
      from: started.toISOString(),
    });
    expect(filled.backfillMonitor).toEqual({ offered: 1000, capped: false });
    // Paused: nothing is examined until it is resumed.
    await Bun.sleep(200);
    expect((await monitor(b.id)).counts).toMatchObject({ sampled: 0, waiting: 1000 });
    await gqlData(t, `mutation($id: ID!) { updateMonitor(input: {id: $id, status: "ACTIVE"}) { status } }`, { id: b.id });
    const done = await settled(b.id);
    // The same counts, but what it saw live: it was paused while the calls came.
    expect(done.counts).toEqual({ ...(await monitor(monitorA)).counts, seen: 0 });
    const live = await entriesOf(datasetA);
    const late = await entriesOf(datasetB);
    const key = (e: { sourceLogId: string | null; split: string }) => `${e.sourceLogId}/${e.split}`;
    expect(new Set(late.map(key))).toEqual(new Set(live.map(key)));

    // The same range again: every call was already examined and kept a row, so none is offered.
    const again = await gqlData(t, `mutation($id: ID!, $from: String!) { backfillMonitor(id: $id, from: $from) { offered } }`, {
      id: monitorA,
      from: started.toISOString(),
    });
    expect(again.backfillMonitor.offered).toBe(0);
  }, 180_000);

  test("a sample rate takes the calls whose id falls under it; a log filter and keepOn FAIL collect failures", async () => {
    const ds = await createDataset(t, { name: "sampled" });
    const m = (await createMonitor({ name: "a third", datasetId: ds, sampleRate: 0.3, paused: true })).data.createMonitor;
    await gqlData(t, `mutation($id: ID!, $from: String!) { backfillMonitor(id: $id, from: $from) { offered } }`, { id: m.id, from: started.toISOString() });
    await gqlData(t, `mutation($id: ID!) { updateMonitor(input: {id: $id, status: "ACTIVE"}) { status } }`, { id: m.id });
    const done = await settled(m.id);
    const logs = await appLogs();
    const expected = [...logs.keys()].filter((id) => sampleUnit(id) < 0.3);
    expect(done.counts.sampled).toBe(expected.length);
    // The ids are random: over ~1,000 calls the share sampled has a spread of 1.45 points (5 is 3.4 of it).
    expect(Math.abs(expected.length / logs.size - 0.3)).toBeLessThan(0.05);
    expect(done.counts.judged).toBe(0);
    const entries = await entriesOf(ds);
    expect(entries.length + done.counts.duplicates).toBe(expected.length);

    // Failures of one feature: a tag filter and keepOn FAIL, live.
    const failures = await createDataset(t, { name: "failures" });
    const f = (
      await createMonitor({
        name: "billing failures",
        datasetId: failures,
        criterionId,
        keepOn: "FAIL",
        filter: { metadata: [{ key: "feature", equals: "billing" }] },
      })
    ).data.createMonitor;
    expect(f.filter).toEqual({ metadata: [{ key: "feature", equals: "billing" }] });
    await call(["billing ok", "billing is wrong", "billing wrong again"], { feature: "billing" });
    await call(["search is wrong"], { feature: "search" });
    const fDone = await settled(f.id);
    expect(fDone.counts).toMatchObject({ matched: 3, judged: 3, rejected: 1, added: 2 });
    expect((await entriesOf(failures)).map((e) => e.q).sort()).toEqual(["billing is wrong", "billing wrong again"]);
  }, 180_000);

  test("a runner that died holding calls: they wait out its lease, then another runner takes them", async () => {
    const ds = await createDataset(t, { name: "leases" });
    const m = (await createMonitor({ name: "leases", datasetId: ds, paused: true })).data.createMonitor;
    const from = new Date();
    await call(Array.from({ length: 15 }, (_, i) => `lease question ${i}`));
    await gqlData(t, `mutation($id: ID!, $from: String!) { backfillMonitor(id: $id, from: $from) { offered } }`, { id: m.id, from: from.toISOString() });
    const db = t.deps.database.db;
    const rows = resultRows<{ log_id: string }>(await db.execute(sql`select log_id from monitor_logs where monitor_id = ${m.id} order by log_id`)).map(
      (r) => r.log_id,
    );
    expect(rows.length).toBe(15);
    // Five held by a runner whose lease runs an hour yet, five by one whose lease ran out.
    await db.execute(sql`update monitor_logs set claimed_by = 'dead', claimed_until = now() + interval '1 hour', attempts = 1
      where monitor_id = ${m.id} and log_id in (${sql.join(
        rows.slice(0, 5).map((r) => sql`${r}`),
        sql`, `,
      )})`);
    await db.execute(sql`update monitor_logs set claimed_by = 'dead', claimed_until = now() - interval '1 second', attempts = 1
      where monitor_id = ${m.id} and log_id in (${sql.join(
        rows.slice(5, 10).map((r) => sql`${r}`),
        sql`, `,
      )})`);
    await gqlData(t, `mutation($id: ID!) { updateMonitor(input: {id: $id, status: "ACTIVE"}) { status } }`, { id: m.id });
    const partly = await waitFor(async () => {
      const x = await monitor(m.id);
      return x.counts.waiting === 5 ? x : null;
    });
    expect(partly.counts.added).toBe(10);
    await Bun.sleep(100);
    expect((await monitor(m.id)).counts.waiting).toBe(5);
    await db.execute(sql`update monitor_logs set claimed_until = now() - interval '1 second' where monitor_id = ${m.id} and claimed_by = 'dead'`);
    const done = await settled(m.id);
    expect(done.counts).toMatchObject({ sampled: 15, added: 15, waiting: 0 });
    expect(new Set((await entriesOf(ds)).map((e) => e.sourceLogId))).toEqual(new Set(rows));
  });

  test("a live monitor with a sample sees every call, examines its sample; the seen counts are summed and drained", async () => {
    const ds = await createDataset(t, { name: "seen" });
    const m = (await createMonitor({ name: "a quarter", datasetId: ds, sampleRate: 0.25, filter: { metadata: [{ key: "batch", equals: "seen" }] } })).data
      .createMonitor;
    const before = new Set((await appLogs()).keys());
    await call(
      Array.from({ length: 40 }, (_, i) => `seen ${i}`),
      { batch: "seen" },
    );
    // Other calls are seen too (the filter comes after the sample), and matched by none.
    await call(["not this batch"]);
    const fresh = [...(await appLogs()).keys()].filter((id) => !before.has(id));
    expect(fresh).toHaveLength(41);
    const done = await waitFor(
      async () => {
        const x = await monitor(m.id);
        return x.counts.waiting === 0 && x.counts.sampled === fresh.filter((id) => sampleUnit(id) < 0.25).length ? x : null;
      },
      { message: "the sample examined" },
    );
    expect(done.counts.seen).toBe(41);
    expect(done.counts.added).toBe(fresh.filter((id) => sampleUnit(id) < 0.25).length - (done.counts.sampled - done.counts.matched));
    // The runner sums what the log writers appended: the table drains, the count stays.
    await waitFor(async () => {
      const [r] = resultRows<{ n: number }>(await t.deps.database.db.execute(sql`select count(*)::int as n from monitor_seen`));
      return Number(r!.n) === 0 ? true : null;
    });
    expect((await monitor(m.id)).counts.seen).toBe(41);
  });

  test("paused monitors are offered nothing; a deleted criterion pauses the monitor with the reason", async () => {
    const ds = await createDataset(t, { name: "paused" });
    const m = (await createMonitor({ name: "off", datasetId: ds, paused: true })).data.createMonitor;
    await call(["while paused"]);
    await Bun.sleep(100);
    expect((await monitor(m.id)).counts).toMatchObject({ seen: 0, sampled: 0, waiting: 0 });

    const crit = await createCriterion(t, { name: "doomed", judgeModel: "openai:gpt-4o-mini", prompt: "{{output}}" });
    const ds2 = await createDataset(t, { name: "doomed" });
    const d = (await createMonitor({ name: "doomed", datasetId: ds2, criterionId: crit.id })).data.createMonitor;
    await gqlData(t, `mutation($id: ID!) { deleteCriterion(id: $id) }`, { id: crit.id });
    await call(["after the criterion went"]);
    const paused = await waitFor(
      async () => {
        const x = await monitor(d.id);
        return x.status === "PAUSED" ? x : null;
      },
      { timeoutMs: 10_000 },
    );
    expect(paused.lastError).toContain(crit.id);
    expect(paused.counts.waiting).toBe(1);
  });

  test("bad input is a 400 naming the field; other projects' monitors are not found", async () => {
    const ds = await createDataset(t, { name: "v" });
    const bad = async (input: Record<string, unknown>) => {
      const r = await createMonitor({ name: "x", datasetId: ds, ...input });
      expect(r.errors?.[0]?.extensions?.code).toBe("VALIDATION");
      return r.errors![0]!;
    };
    expect(JSON.stringify((await bad({ sampleRate: 0 })).extensions)).toContain("sampleRate");
    expect(JSON.stringify((await bad({ sampleRate: 1.5 })).extensions)).toContain("sampleRate");
    expect(JSON.stringify((await bad({ keepOn: "MAYBE" })).extensions)).toContain("keepOn");
    expect(JSON.stringify((await bad({ filter: { ids: ["log_1"] } })).extensions)).toContain("ids");
    expect(JSON.stringify((await bad({ name: "" })).extensions)).toContain("name");
    expect((await createMonitor({ name: "x", datasetId: "ds_missing" })).errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
    expect((await createMonitor({ name: "x", datasetId: ds, criterionId: "crit_missing" })).errors?.[0]?.extensions?.code).toBe("NOT_FOUND");

    const other = await t.createProject("other");
    const mine = (await createMonitor({ name: "mine", datasetId: ds })).data.createMonitor.id;
    const seen = await gql(t, `query($id: ID!) { monitor(id: $id) { id } }`, { id: mine }, { key: other.apiKey });
    expect(seen.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
    const listed = await gqlData(t, `{ monitors { id } }`, {}, { key: other.apiKey });
    expect(listed.monitors).toEqual([]);
    const del = await gql(t, `mutation($id: ID!) { deleteMonitor(id: $id) }`, { id: mine }, { key: other.apiKey });
    expect(del.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
    // Another project's dataset is not found either.
    const theirs = await createMonitor({ name: "x", datasetId: ds }, other.apiKey);
    expect(theirs.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
  });

  test("what the monitors remember of calls goes with the calls (log retention)", async () => {
    const db = t.deps.database.db;
    const count = async () => resultRows<{ n: number }>(await db.execute(sql`select count(*)::int as n from monitor_logs`))[0]!.n;
    const before = Number(await count());
    expect(before).toBeGreaterThan(1000);
    // Retention at a cut an hour ago keeps everything (every call here is newer).
    expect(await deleteExpiredMonitorLogs({ ...systemCtx(t.deps, "test") }, { before: new Date(Date.now() - 3_600_000), batchSize: 100 })).toBe(0);
    // A cut after every call: all of it goes, in batches.
    const gone = await deleteExpiredMonitorLogs({ ...systemCtx(t.deps, "test") }, { before: new Date(Date.now() + 60_000), batchSize: 100 });
    expect(gone).toBe(before);
    expect(Number(await count())).toBe(0);
  });
});
