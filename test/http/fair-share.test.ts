import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, storeProviderKey, type TestApp, type TestProject } from "../helpers/app";
import { createDataset, qa } from "../helpers/factories";
import { startFakeOpenAI, type FakeUpstream } from "../helpers/fake-upstreams";
import { trpcClient, trpcFailure } from "../helpers/trpc";
import { waitFor } from "../helpers/wait-for";

// Each project's share of the expensive lanes (GraphQL, tRPC, exports, imports): 2 at a time and
// 3 waiting here; past that a 429 with Retry-After. Another project, and the gateway, never wait.
let t: TestApp;
let fake: FakeUpstream;
let a: TestProject;
let b: TestProject;

beforeAll(async () => {
  fake = startFakeOpenAI();
  t = await createTestApp({ env: { OPENAI_BASE_URL: `${fake.url}/v1`, HONE_PROJECT_CONCURRENCY: "2", HONE_PROJECT_QUEUE: "3" } });
  a = t.project;
  b = await t.createProject("b");
  await storeProviderKey(t, "openai", "sk-fair-0001");
});
afterAll(async () => {
  await t.close();
  await fake.stop();
});

/** Holds `n` of a lane's slots of project A (as long-running requests would) until the returned release. */
async function hold(lane: "graphql" | "trpc" | "export" | "import", n: number): Promise<() => void> {
  const releases = await Promise.all(Array.from({ length: n }, () => t.deps.fairShare.acquire(a.projectId, lane)));
  return () => {
    for (const r of releases) r();
  };
}
const settledWithin = async <T>(p: Promise<T>, ms: number) => Promise.race([p.then(() => true), Bun.sleep(ms).then(() => false)]);
const graphql = (key: string) => t.request("POST", "/graphql", { body: { query: "{ datasets { id } }" }, key });

describe("fair share per project", () => {
  test("GraphQL: a project's requests past its slots wait their turn, past its queue get 429; other projects and the gateway do not wait", async () => {
    const release = await hold("graphql", 2);
    const waiting = [graphql(a.apiKey), graphql(a.apiKey), graphql(a.apiKey)];
    // All three reach the queue (on a loaded machine, some take a while to get there).
    await waitFor(() => t.deps.fairShare.stats(a.projectId, "graphql").waiting === 3, { message: "three GraphQL requests waiting" });
    expect(t.deps.fairShare.stats(a.projectId, "graphql")).toEqual({ active: 2, waiting: 3 });
    // The queue is full: refused at once, saying when to come back.
    const refused = await graphql(a.apiKey);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("1");
    const body = (await refused.json()) as { code: string; errors: { extensions: { code: string } }[]; message: string };
    expect(body.errors[0]!.extensions.code).toBe("RATE_LIMITED");
    expect(body.message).toContain("HONE_PROJECT_CONCURRENCY");
    // Another project is answered at once; so is project A's gateway traffic.
    const other = await graphql(b.apiKey);
    expect(other.status).toBe(200);
    const call = await t.request("POST", "/api/v1/chat/completions", {
      body: { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] },
      key: a.apiKey,
    });
    expect(call.status).toBe(200);
    expect(await settledWithin(Promise.all(waiting), 100)).toBe(false);
    release();
    const answered = await Promise.all(waiting);
    expect(answered.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(t.deps.fairShare.stats(a.projectId, "graphql")).toEqual({ active: 0, waiting: 0 });
  });

  test("tRPC: the same, per procedure call, as TOO_MANY_REQUESTS with Retry-After", async () => {
    const release = await hold("trpc", 2);
    const mine = trpcClient(t, a.apiKey);
    const waiting = [mine.datasets.list.query(), mine.datasets.list.query(), mine.datasets.list.query()];
    await waitFor(() => t.deps.fairShare.stats(a.projectId, "trpc").waiting === 3, { message: "three tRPC calls waiting" });
    const refused = await trpcFailure(mine.datasets.list.query());
    expect(refused.data?.httpStatus).toBe(429);
    expect(await trpcClient(t, b.apiKey).datasets.list.query()).toEqual([]);
    release();
    expect((await Promise.all(waiting)).map((x) => Array.isArray(x))).toEqual([true, true, true]);
  });

  test("exports hold their slot until the file ends; imports take theirs; a bad request holds none", async () => {
    const ds = await createDataset(t, { name: "fair", entries: [qa("q", "a")] });
    const r1 = await t.request("GET", `/api/v1/datasets/${ds}/export`);
    const r2 = await t.request("GET", "/api/v1/logs/export");
    expect([r1.status, r2.status]).toEqual([200, 200]);
    // Two files are open and unread: the lane is full while they are.
    expect(t.deps.fairShare.stats(a.projectId, "export").active).toBe(2);
    await r1.text();
    await r2.text();
    // Released as each file's stream ends (a moment after its last byte is read).
    await waitFor(() => t.deps.fairShare.stats(a.projectId, "export").active === 0, { message: "the export slots released" });
    expect(t.deps.fairShare.stats(a.projectId, "export")).toEqual({ active: 0, waiting: 0 });
    const bad = await t.request("GET", "/api/v1/logs/export?filter=%7Bnope");
    expect(bad.status).toBe(400);
    expect(t.deps.fairShare.stats(a.projectId, "export").active).toBe(0);

    const release = await hold("import", 2);
    const queued = t.request("POST", `/api/v1/datasets/${ds}/import`, {
      body: '{"messages":[{"role":"user","content":"x"},{"role":"assistant","content":"y"}]}\n',
      headers: { "content-type": "application/x-ndjson" },
    });
    expect(await settledWithin(queued, 100)).toBe(false);
    release();
    expect((await queued).status).toBe(200);
  });

  test("GraphQL cost: a project past its budget gets 429 with when to come back; another project's budget is its own", async () => {
    const c = await createTestApp({ env: { HONE_PROJECT_COST_PER_SECOND: "10", HONE_PROJECT_COST_BURST: "300" } });
    try {
      const other = await c.createProject("other");
      const q = (key?: string) => c.request("POST", "/graphql", { body: { query: "{ datasets(first: 100) { id models { id } } }" }, key });
      // 101 each (the list, and a list of models for each of its 100): two fit the burst of 300, the third does not.
      expect((await q()).status).toBe(200);
      expect((await q()).status).toBe(200);
      const refused = await q();
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      const body = (await refused.json()) as { errors: { message: string; extensions: { code: string } }[] };
      expect(body.errors[0]!.extensions.code).toBe("RATE_LIMITED");
      expect(body.errors[0]!.message).toContain("HONE_PROJECT_COST_PER_SECOND");
      expect((await q(other.apiKey)).status).toBe(200);
    } finally {
      await c.close();
    }
  });
});
