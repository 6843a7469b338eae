import { waitFor } from "../helpers/wait-for";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createEmptyPostgresDatabase, TEST_DATABASE_URL } from "../helpers/db";
import { startFakeTrainer, type FakeTrainer } from "../helpers/fake-trainer";
import { killStartedServers, startServer, type RunningServer } from "../helpers/process";
import type { RestOutput } from "../helpers/rest";

const KEY = "hone_sk_scaleoutscaleoutscaleout000001";
let fake: FakeTrainer;
let drop: (() => Promise<void>) | undefined;
let dataDir: string;

beforeAll(() => {
  fake = startFakeTrainer();
  dataDir = mkdtempSync(join(tmpdir(), "hone-scale-"));
});
afterAll(async () => {
  killStartedServers();
  await fake.stop();
  await drop?.();
  rmSync(dataDir, { recursive: true, force: true });
});

const headers = { authorization: `Bearer ${KEY}`, "content-type": "application/json" };
/** A POST: the Response and its JSON body, as the caller types it. */
const post = async <T = unknown>(s: RunningServer, path: string, body: unknown, extra: Record<string, string> = {}) => {
  const res = await fetch(`${s.url}${path}`, { method: "POST", headers: { ...headers, ...extra }, body: JSON.stringify(body) });
  return { res, body: (await res.json()) as T };
};
type Completion = RestOutput<"POST /chat/completions">;

describe("several Hone processes", () => {
  test(TEST_DATABASE_URL ? "two processes on one Postgres behave as one service" : "the embedded database refuses a second process", async () => {
    if (!TEST_DATABASE_URL) {
      const a = await startServer({ HONE_DATA_DIR: dataDir, HONE_BOOTSTRAP_API_KEY: KEY });
      const err = await startServer({ HONE_DATA_DIR: dataDir }, 20_000).catch((e: Error) => e);
      expect(String(err)).toContain("in use by hone server");
      expect(await a.stop()).toBe(0);
      return;
    }
    const db = await createEmptyPostgresDatabase();
    drop = db.drop;
    const env = {
      DATABASE_URL: db.url,
      HONE_SECRET_KEY: Buffer.alloc(32, 9).toString("base64"),
      HONE_BOOTSTRAP_API_KEY: KEY,
      OPENAI_BASE_URL: `${fake.url}/v1`,
      HONE_FINETUNE_POLL_MS: "50",
      HONE_JOB_POLL_MS: "50",
      HONE_LOG_FLUSH_MS: "10",
    };
    // Both start at once on an empty database: migrations and bootstrap run exactly once.
    const [a, b] = await Promise.all([startServer(env), startServer(env)]);
    try {
      // A provider key set through one process is used by the other.
      await post(a, "/graphql", { query: `mutation { setProviderKey(input: {provider: "openai", apiKey: "sk-shared-0001"}) { last4 } }` });
      const viaB = await post<Completion>(b, "/api/v1/chat/completions", { model: "gpt-4o-mini", messages: [{ role: "user", content: "from b" }] });
      expect(viaB.res.status).toBe(200);
      expect(viaB.body.choices[0]!.message.content).toBe("echo: from b");

      // The cache is shared: written through A, hit through B.
      const cached = { model: "gpt-4o-mini", messages: [{ role: "user", content: "shared cache" }] };
      expect((await post(a, "/api/v1/chat/completions", cached, { "op-cache": "readWrite" })).res.headers.get("x-hone-cache")).toBe("MISS");
      expect((await post(b, "/api/v1/chat/completions", cached, { "op-cache": "readWrite" })).res.headers.get("x-hone-cache")).toBe("HIT");

      // Logs written by both are visible through either.
      await post(a, "/api/v1/chat/completions", { model: "gpt-4o-mini", messages: [{ role: "user", content: "from a" }] });
      const contents = await waitFor(
        async () => {
          const logs = await post<{ data: { logs: { edges: { node: { reqPayload: { messages: { content: string }[] } } }[] } } }>(b, "/graphql", {
            query: `{ logs(first: 50) { edges { node { reqPayload } } } }`,
          });
          return logs.body.data.logs.edges.map((e) => e.node.reqPayload.messages[0]!.content);
        },
        { until: (c) => c.includes("from a") && c.includes("from b"), message: (c) => `logs seen through B: ${JSON.stringify(c)}` },
      );
      expect(contents).toEqual(expect.arrayContaining(["from a", "from b", "shared cache"]));

      // Jobs: fine-tunes created through A are trained once each, by whichever worker claims them.
      const ds = (await post<RestOutput<"POST /datasets">>(a, "/api/v1/datasets", { name: "scale" })).body.id;
      await post(a, `/api/v1/datasets/${ds}/entries`, {
        entries: [
          {
            messages: [
              { role: "user", content: "q" },
              { role: "assistant", content: "a" },
            ],
            split: "TRAIN",
          },
        ],
      });
      const slugs = ["scale-0", "scale-1", "scale-2", "scale-3"];
      for (const slug of slugs) {
        const m = await post(slug.endsWith("1") ? b : a, "/api/v1/models", {
          datasetId: ds,
          slug,
          trainingConfig: { provider: "openai", baseModel: "gpt-4o-mini-2024-07-18" },
        });
        expect(m.res.status).toBe(200);
      }
      for (const slug of slugs) {
        const status = await waitFor(
          async () => ((await (await fetch(`${b.url}/api/v1/models/${slug}`, { headers })).json()) as RestOutput<"GET /models/:modelSlug">).hone.status,
          {
            until: (s) => s === "DEPLOYED",
            message: (s) => `model ${slug} is ${s}`,
          },
        );
        expect(status).toBe("DEPLOYED");
        expect([...fake.jobs.values()].filter((j) => j.suffix === slug)).toHaveLength(1);
      }
      // A route made and changed through A is followed by B within HONE_ROUTE_CACHE_MS (1 s): a
      // fine-tune rolled out from 0% to 100%, then rolled back.
      const split = (v1: number, v2: number) =>
        `groups: [{targets: [{model: "hone:scale-0", weight: ${v1}, version: "v1"}, {model: "hone:scale-1", weight: ${v2}, version: "v2"}]}]`;
      const made = await post<{ data: { createRoute: { revision: number } } }>(a, "/graphql", {
        query: `mutation { createRoute(input: {slug: "rollout", ${split(100, 0)}}) { revision } }`,
      });
      expect(made.body.data.createRoute.revision).toBe(1);
      const servedBy = async (s: RunningServer) =>
        (await post<Completion>(s, "/api/v1/chat/completions", { model: "hone:rollout", messages: [{ role: "user", content: "which?" }] })).body.model;
      expect(await servedBy(b)).toBe("hone:scale-0");
      await post(a, "/graphql", { query: `mutation { updateRoute(input: {slug: "rollout", ${split(0, 100)}}) { revision } }` });
      await waitFor(async () => (await servedBy(b)) === "hone:scale-1", { timeoutMs: 2_000, message: "B to follow the new split within 2 s" });
      const rolled = await post<{ data: { rollbackRoute: { revision: number } } }>(a, "/graphql", {
        query: `mutation { rollbackRoute(slug: "rollout") { revision } }`,
      });
      expect(rolled.body.data.rollbackRoute.revision).toBe(3);
      await waitFor(async () => (await servedBy(b)) === "hone:scale-0", { timeoutMs: 2_000, message: "B to follow the rollback within 2 s" });

      // On Postgres each process runs its jobs on their own thread, not the one serving requests.
      // The thread says so once it is up, which on a loaded machine can be after the jobs above ran.
      for (const s of [a, b]) {
        await waitFor(() => s.output().includes('"msg":"jobs run on their own thread"'), { timeoutMs: 30_000, message: "the job thread's ready line" });
        expect(s.output()).not.toContain("jobs now run on the main thread");
      }
    } finally {
      expect(await a.stop()).toBe(0);
      expect(await b.stop()).toBe(0);
    }
  }, 90_000);
});
