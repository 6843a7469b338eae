import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createEmptyPostgresDatabase, TEST_DATABASE_URL } from "../helpers/db";
import { type FakeUpstream, startFakeOpenAI } from "../helpers/fake-upstreams";
import { killStartedServers, type RunningServer, startServer } from "../helpers/process";
import { waitFor } from "../helpers/wait-for";

// A monitor on real server processes: calls come in while a process is killed with -9 and started
// again (on Postgres, beside a second process that keeps running); every answered call the judge
// passes ends up in the dataset exactly once. The fake judge fails an answer holding "wrong".
const KEY = "hone_sk_monitorprocmonitorproc000001";
const OPENAI_KEY = "sk-monitor-proc-0001";
const CLIENTS = 8;

let fake: FakeUpstream;
let dataDir: string;
let drop: (() => Promise<void>) | undefined;

beforeAll(() => {
  fake = startFakeOpenAI({ apiKey: OPENAI_KEY });
  dataDir = mkdtempSync(join(tmpdir(), "hone-monitors-"));
});
afterAll(async () => {
  killStartedServers();
  await fake.stop();
  await drop?.();
  rmSync(dataDir, { recursive: true, force: true });
});

type EntryPage = {
  dataset: { entries: { edges: { node: { messages: { content: string }[] } }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } } };
};
const headers = { authorization: `Bearer ${KEY}`, "content-type": "application/json" };
/** A GraphQL call that must succeed: its data, as the caller types it. */
async function gql<T = unknown>(s: RunningServer, query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const res = await fetch(`${s.url}/graphql`, { method: "POST", headers, body: JSON.stringify({ query, variables }) });
  const body = (await res.json()) as { data: T; errors?: unknown };
  if (body.errors) throw new Error(JSON.stringify(body.errors));
  return body.data;
}

/** Calls through the servers in turn until stopped; the questions answered 200. */
function traffic(servers: () => RunningServer[]) {
  let stopped = false;
  const answered: string[] = [];
  const client = async (w: number) => {
    for (let i = 0; !stopped; i++) {
      const q = `q${w}-${i}${i % 3 === 0 ? " wrong" : ""}`;
      const list = servers();
      if (list.length === 0) {
        // Every process is down (the embedded database's one, being restarted): wait for it.
        await Bun.sleep(20);
        continue;
      }
      const s = list[i % list.length]!;
      try {
        const res = await fetch(`${s.url}/api/v1/chat/completions`, {
          method: "POST",
          headers,
          body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: q }] }),
        });
        const body = (await res.json()) as { choices?: unknown[] };
        if (res.status === 200 && body.choices) answered.push(q);
      } catch {
        // The process was killed under this call: not answered.
      }
    }
  };
  const running = Promise.all(Array.from({ length: CLIENTS }, (_, w) => client(w)));
  return {
    answered,
    async stop() {
      stopped = true;
      await running;
    },
  };
}

describe("a monitor across processes", () => {
  test(TEST_DATABASE_URL
    ? "two processes, one killed with -9 and restarted: each passing call added once"
    : "a process killed with -9 and restarted: each passing call added once", async () => {
    const env: Record<string, string> = {
      HONE_SECRET_KEY: Buffer.alloc(32, 7).toString("base64"),
      HONE_BOOTSTRAP_API_KEY: KEY,
      OPENAI_BASE_URL: `${fake.url}/v1`,
      HONE_MONITOR_POLL_MS: "50",
      HONE_JUDGE_TIMEOUT_MS: "3000",
      HONE_LOG_FLUSH_MS: "10",
    };
    if (TEST_DATABASE_URL) {
      const db = await createEmptyPostgresDatabase();
      drop = db.drop;
      env.DATABASE_URL = db.url;
    } else env.HONE_DATA_DIR = dataDir;
    const a = await startServer(env);
    const servers: RunningServer[] = [a];
    if (TEST_DATABASE_URL) servers.push(await startServer(env));
    await gql(a, `mutation($k: String!) { setProviderKey(input: {provider: "openai", apiKey: $k}) { last4 } }`, { k: OPENAI_KEY });
    const ds = (await gql<{ createDataset: { id: string } }>(a, `mutation { createDataset(input: {name: "passing"}) { id } }`)).createDataset.id;
    const crit = (
      await gql<{ createCriterion: { id: string } }>(
        a,
        `mutation { createCriterion(input: {name: "right", judgeModel: "openai:gpt-4o-mini", prompt: "Right? {{output}}"}) { id } }`,
      )
    ).createCriterion.id;
    const monitorId = (
      await gql<{ createMonitor: { id: string } }>(
        a,
        `mutation($ds: ID!, $c: String!) { createMonitor(input: {name: "m", datasetId: $ds, criterionId: $c}) { id } }`,
        { ds, c: crit },
      )
    ).createMonitor.id;

    const load = traffic(() => servers);
    await waitFor(() => (load.answered.length >= 150 ? true : null), { timeoutMs: 60_000 });
    // Kill the last process under load, and start it again on the same database.
    const victim = servers.pop()!;
    await victim.stop("SIGKILL");
    if (servers.length === 0) await Bun.sleep(100);
    servers.push(await startServer(env));
    const before = load.answered.length;
    await waitFor(() => (load.answered.length >= before + 150 ? true : null), { timeoutMs: 60_000 });
    await load.stop();

    const expected = new Set(load.answered.filter((q) => !q.includes("wrong")));
    const live = servers[0]!;
    const monitor = await waitFor(
      async () => {
        const m = (
          await gql<{ monitor: { counts: { added: number; waiting: number; rejected: number; judged: number } } }>(
            live,
            `query($id: ID!) { monitor(id: $id) { counts { added waiting rejected judged } } }`,
            { id: monitorId },
          )
        ).monitor;
        return m.counts.added >= expected.size && m.counts.waiting === 0 ? m : null;
      },
      { timeoutMs: 90_000, intervalMs: 200 },
    );
    const questions: string[] = [];
    let after: string | null = null;
    for (;;) {
      const page: EntryPage = await gql<EntryPage>(
        live,
        `query($id: ID!, $after: String) { dataset(id: $id) { entries(first: 200, after: $after) { edges { node { messages } } pageInfo { hasNextPage endCursor } } } }`,
        { id: ds, after },
      );
      questions.push(...page.dataset.entries.edges.map((e) => e.node.messages[0]!.content));
      if (!page.dataset.entries.pageInfo.hasNextPage) break;
      after = page.dataset.entries.pageInfo.endCursor;
    }
    // Every answered passing call, once; a call killed before its answer may be stored too (the
    // client saw no answer), so the dataset may hold a few more, never one twice.
    expect(new Set(questions).size).toBe(questions.length);
    for (const q of expected) expect(questions).toContain(q);
    expect(questions.every((q) => !q.includes("wrong"))).toBe(true);
    expect(monitor.counts.added).toBe(questions.length);
    // Every process's log writer counted what it stored toward `seen`, and the runners summed it
    // once: with no sample and no filter, it settles equal to the calls the monitor examined.
    const counted = await waitFor(
      async () => {
        const m = (
          await gql<{ monitor: { counts: { seen: number; sampled: number; waiting: number } } }>(
            live,
            `query($id: ID!) { monitor(id: $id) { counts { seen sampled waiting } } }`,
            { id: monitorId },
          )
        ).monitor;
        return m.counts.waiting === 0 && m.counts.seen === m.counts.sampled ? m.counts : null;
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    expect(counted.seen).toBeGreaterThanOrEqual(load.answered.length);
    for (const s of servers) expect(await s.stop()).toBe(0);
  }, 240_000);
});
