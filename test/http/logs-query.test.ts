import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { systemCtx } from "../../src/context";
import { createDeps } from "../../src/compose";
import { insertRequestLogs, logIdAt, type NewRequestLog } from "../../src/domain/logs";
import { startLogRetention } from "../../src/background/retention";
import { createLogger } from "../../src/logger";
import { createTestApp, testConfig, type TestApp } from "../helpers/app";
import { logsOf } from "../helpers/logs";
import { captureQueries } from "../helpers/queries";
import { eq, inArray } from "drizzle-orm";
import { requestLogBodies, storedResponses } from "../../src/db/schema";
import { gql } from "../helpers/gql";
import { trpcClient } from "../helpers/trpc";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

async function report(body: Record<string, unknown>, key = t.project.apiKey) {
  const res = await t.request("POST", "/api/v1/report", { body, key });
  expect(res.status).toBe(200);
}
const LOGS = `query($filter: LogFilterInput, $first: Int, $after: String) {
  logs(filter: $filter, first: $first, after: $after) {
    edges { node { id model statusCode cacheHit metadata completionId costUsd source reqPayload respPayload } }
    pageInfo { hasNextPage endCursor } } }`;

describe("log queries", () => {
  let startedAt: Date;
  beforeAll(async () => {
    startedAt = new Date();
    await report({
      reqPayload: { model: "alpha", messages: [{ role: "user", content: "find the needle" }] },
      respPayload: { id: "cmp-1" },
      statusCode: 200,
      tags: { env: "prod", team: "x" },
    });
    await report({
      reqPayload: { model: "alpha" },
      respPayload: { id: "cmp-2", choices: [{ index: 0, message: { role: "assistant", content: "a haystack of text" } }] },
      statusCode: 500,
      errorMessage: "boom",
      tags: { env: "dev" },
    });
    await report({ reqPayload: { model: "beta" }, respPayload: { id: "cmp-3" }, statusCode: 200, tags: { env: "prod", team: "y" } });
  });

  test("every filter of LogFilterInput, newest first, with bodies", async () => {
    const all = await gql(t, LOGS, { filter: { from: startedAt.toISOString() } });
    expect(all.data.logs.edges.map((e: any) => e.node.completionId)).toEqual(["cmp-3", "cmp-2", "cmp-1"]);
    const ids = async (filter: object) => (await gql(t, LOGS, { filter })).data.logs.edges.map((e: any) => e.node.completionId);
    expect(await ids({ model: "alpha" })).toEqual(["cmp-2", "cmp-1"]);
    expect(await ids({ statusCode: 500 })).toEqual(["cmp-2"]);
    expect(await ids({ completionId: "cmp-3" })).toEqual(["cmp-3"]);
    expect(await ids({ metadata: [{ key: "env", equals: "prod" }] })).toEqual(["cmp-3", "cmp-1"]);
    expect(
      await ids({
        metadata: [
          { key: "env", equals: "prod" },
          { key: "team", equals: "x" },
        ],
      }),
    ).toEqual(["cmp-1"]);
    expect(await ids({ search: "NEEDLE" })).toEqual(["cmp-1"]);
    expect(await ids({ search: "haystack" })).toEqual(["cmp-2"]);
    expect(await ids({ search: "100%_" })).toEqual([]);
    expect(await ids({ source: "report", model: "beta" })).toEqual(["cmp-3"]);
    expect(await ids({ to: new Date(startedAt.getTime() - 1000).toISOString() })).toEqual([]);
    expect(await ids({ from: new Date(Date.now() + 60_000).toISOString() })).toEqual([]);
    const first = all.data.logs.edges[2].node;
    expect(first).toMatchObject({ model: "openai:alpha", statusCode: 200, cacheHit: false, metadata: { env: "prod", team: "x" }, source: "report" });
    expect(first.reqPayload.messages[0].content).toBe("find the needle");
  });

  test("log(id) and another project's logs are NOT_FOUND and never listed", async () => {
    const list = await gql(t, LOGS, { filter: { completionId: "cmp-1" } });
    const id = list.data.logs.edges[0].node.id;
    const one = await gql(t, `query($id: ID!) { log(id: $id) { id completionId respPayload } }`, { id });
    expect(one.data.log).toEqual({ id, completionId: "cmp-1", respPayload: { id: "cmp-1" } });

    const other = await t.createProject("other");
    await report({ reqPayload: { model: "alpha" }, respPayload: { id: "theirs" } }, other.apiKey);
    const theirs = (await gql(t, LOGS, {}, { key: other.apiKey })).data.logs.edges[0].node.id;
    expect((await gql(t, `query($id: ID!) { log(id: $id) { id } }`, { id: theirs })).errors[0].extensions.code).toBe("NOT_FOUND");
    const mine = await gql(t, LOGS, { filter: { completionId: "theirs" } });
    expect(mine.data.logs.edges).toEqual([]);
    expect((await gql(t, LOGS, { filter: { model: "alpha" } }, { key: other.apiKey })).data.logs.edges).toHaveLength(1);
  });

  test("bad filters are VALIDATION errors", async () => {
    expect((await gql(t, LOGS, { after: "garbage" })).errors[0].extensions.code).toBe("VALIDATION");
    expect((await gql(t, LOGS, { first: 1000 })).errors[0].extensions.code).toBe("VALIDATION");
    expect((await gql(t, LOGS, { filter: { from: "not a date" } })).errors[0].extensions.code).toBe("VALIDATION");
  });

  test("tRPC logs.list and logs.get take the same filter", async () => {
    const trpc = trpcClient(t);
    const page = await trpc.logs.list.query({ filter: { model: "alpha", tags: [{ key: "env", equals: "dev" }] } });
    expect(page.logs.map((l) => l.completionId)).toEqual(["cmp-2"]);
    expect(page.logs[0]!.errorMessage).toBe("boom");
    const log = await trpc.logs.get.query({ id: page.logs[0]!.id });
    expect(log.respPayload).toEqual({ id: "cmp-2", choices: [{ index: 0, message: { role: "assistant", content: "a haystack of text" } }] });
    const err = await trpc.logs.get.query({ id: "log_nope" }).catch((e) => e);
    expect(err.data.httpStatus).toBe(404);
  });

  test("pages stay correct while logs are inserted: every earlier log exactly once", async () => {
    const proj = await t.createProject("paging");
    for (let i = 0; i < 30; i++) await report({ reqPayload: { model: "p" }, respPayload: { id: `base-${i}` } }, proj.apiKey);
    const seen: string[] = [];
    let after: string | null = null;
    let inserted = 0;
    for (;;) {
      const page: any = await gql(t, LOGS, { first: 7, after }, { key: proj.apiKey });
      seen.push(...page.data.logs.edges.map((e: any) => e.node.completionId));
      // New calls land between page reads.
      await Promise.all([0, 1, 2].map(() => report({ reqPayload: { model: "p" }, respPayload: { id: `new-${inserted++}` } }, proj.apiKey)));
      if (!page.data.logs.pageInfo.hasNextPage) break;
      after = page.data.logs.pageInfo.endCursor;
    }
    const base = seen.filter((id) => id.startsWith("base-"));
    expect(base).toHaveLength(30);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.filter((id) => id.startsWith("new-"))).toEqual([]);
  });

  test("a list of logs with bodies loads the bodies in batched queries, not one per log", async () => {
    const proj = await t.createProject("batch");
    for (let i = 0; i < 5; i++) await report({ reqPayload: { model: "b", i }, respPayload: { id: `b-${i}` } }, proj.apiKey);
    const { result: r, queries } = await captureQueries(t.deps.database.db, () => gql(t, LOGS, { first: 5 }, { key: proj.apiKey }));
    expect(r.data.logs.edges.map((e: any) => e.node.reqPayload.i)).toEqual([4, 3, 2, 1, 0]);
    // For each payload asked for, its sizes (charged to the answer first), then the payloads: four
    // statements for any number of logs.
    const bodyQueries = queries.filter((q) => q.includes("request_log_bodies"));
    expect(bodyQueries).toHaveLength(4);
  });
});

describe("retention (HONE_LOG_RETENTION_DAYS)", () => {
  test("logs older than the limit are deleted with their bodies; newer ones stay", async () => {
    const proj = await t.createProject("retention");
    for (let i = 0; i < 5; i++) await report({ reqPayload: { model: "old" }, respPayload: { id: `old-${i}` } }, proj.apiKey);
    const oldIds = (await logsOf(t, proj.projectId)).map((l) => l.id);
    // A log from two hours in the future stands for one younger than the limit.
    const future = new Date(Date.now() + 2 * 3600_000);
    const young: NewRequestLog = {
      id: `${logIdAt(future)}${"0".repeat(20)}`,
      projectId: proj.projectId,
      source: "report",
      provider: null,
      model: "young",
      completionId: "young",
      statusCode: 200,
      errorMessage: null,
      requestedAt: null,
      receivedAt: null,
      durationMs: null,
      inputTokens: null,
      outputTokens: null,
      costUsd: null,
      cacheHit: false,
      tags: {},
      reqPayload: { model: "young" },
      respPayload: null,
    };
    await insertRequestLogs(systemCtx(t.deps, "test"), [young]);

    const stored = (id: string, createdAt: Date) => ({ id, projectId: proj.projectId, previousResponseId: null, input: [], response: { id }, createdAt });
    await t.deps.database.db.insert(storedResponses).values([stored("resp_old", new Date()), stored("resp_young", future)]);

    // The clock says 30 days and 1 hour have passed.
    const later = new Date(Date.now() + 30 * 24 * 3600_000 + 3600_000);
    const deps = createDeps({
      config: testConfig({ HONE_LOG_RETENTION_DAYS: "30" }),
      database: t.db.database,
      logger: createLogger("silent"),
      secretKey: t.deps.secretKey,
      clock: () => later,
    });
    const retention = startLogRetention(deps, { firstRunMs: 3_600_000 });
    try {
      const deleted = await retention.runOnce();
      expect(deleted).toBeGreaterThanOrEqual(5);
    } finally {
      retention.stop();
    }
    const left = await logsOf(t, proj.projectId);
    expect(left.map((l) => l.completionId)).toEqual(["young"]);
    // Stored Responses API conversations are kept as long as the logs: the old one went, the young one stayed.
    const kept = await t.deps.database.db.select({ id: storedResponses.id }).from(storedResponses).where(eq(storedResponses.projectId, proj.projectId));
    expect(kept.map((r) => r.id)).toEqual(["resp_young"]);
    const orphanBodies = await t.deps.database.db.select().from(requestLogBodies).where(inArray(requestLogBodies.logId, oldIds));
    expect(orphanBodies).toHaveLength(0);
  });
});
