import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { z } from "zod";
import { systemCtx } from "../../src/domain/context";
import { createDeps } from "../../src/compose";
import { insertRequestLogs, logIdAt, type ReportInput } from "../../src/domain/logs";
import { startLogRetention } from "../../src/background/retention";
import { createLogger } from "../../src/core/logger";
import { createTestApp, testConfig, type TestApp } from "../helpers/app";
import { logsOf, newLogRecord } from "../helpers/logs";
import { captureQueries } from "../helpers/queries";
import { eq, inArray } from "drizzle-orm";
import { requestLogBodies, storedResponses, traceSpans } from "../../src/db/schema";
import { gql, gqlData } from "../helpers/gql";
import { rest, type Rest } from "../helpers/rest";
import { trpcClient } from "../helpers/trpc";

let t: TestApp;
let api: Rest;
beforeAll(async () => {
  t = await createTestApp();
  api = rest(t);
});
afterAll(async () => {
  await t.close();
});

async function report(body: z.input<typeof ReportInput>, key = t.project.apiKey) {
  await api.ok("POST /report", { body, key });
}
const LOGS = `query($filter: LogFilterInput, $first: Int, $after: String) {
  logs(filter: $filter, first: $first, after: $after) {
    edges { node { id model statusCode cacheHit metadata completionId costUsd source reqPayload respPayload } }
    pageInfo { hasNextPage endCursor } } }`;
/** A page of LOGS. */
type LogsPage = {
  logs: {
    edges: {
      node: {
        id: string;
        model: string | null;
        statusCode: number | null;
        cacheHit: boolean;
        metadata: Record<string, string>;
        completionId: string | null;
        costUsd: number | null;
        source: string;
        reqPayload: unknown;
        respPayload: unknown;
      };
    }[];
    pageInfo: { hasNextPage: boolean; endCursor: string | null };
  };
};
/** LOGS, failing the test on any GraphQL error. */
const logsPage = (variables: Record<string, unknown>, key?: string) => gqlData<LogsPage>(t, LOGS, variables, { key });

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
    const all = await logsPage({ filter: { from: startedAt.toISOString() } });
    expect(all.logs.edges.map((e) => e.node.completionId)).toEqual(["cmp-3", "cmp-2", "cmp-1"]);
    const ids = async (filter: object) => (await logsPage({ filter })).logs.edges.map((e) => e.node.completionId);
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
    const first = all.logs.edges[2]!.node;
    expect(first).toMatchObject({ model: "openai:alpha", statusCode: 200, cacheHit: false, metadata: { env: "prod", team: "x" }, source: "report" });
    expect(first.reqPayload).toMatchObject({ messages: [{ content: "find the needle" }] });
  });

  test("log(id) and another project's logs are NOT_FOUND and never listed", async () => {
    const list = await logsPage({ filter: { completionId: "cmp-1" } });
    const id = list.logs.edges[0]!.node.id;
    const one = await gql(t, `query($id: ID!) { log(id: $id) { id completionId respPayload } }`, { id });
    expect(one.data.log).toEqual({ id, completionId: "cmp-1", respPayload: { id: "cmp-1" } });

    const other = await t.createProject("other");
    await report({ reqPayload: { model: "alpha" }, respPayload: { id: "theirs" } }, other.apiKey);
    const theirs = (await logsPage({}, other.apiKey)).logs.edges[0]!.node.id;
    expect((await gql(t, `query($id: ID!) { log(id: $id) { id } }`, { id: theirs })).errors[0].extensions.code).toBe("NOT_FOUND");
    const mine = await logsPage({ filter: { completionId: "theirs" } });
    expect(mine.logs.edges).toEqual([]);
    expect((await logsPage({ filter: { model: "alpha" } }, other.apiKey)).logs.edges).toHaveLength(1);
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
      const page = await logsPage({ first: 7, after }, proj.apiKey);
      seen.push(...page.logs.edges.map((e) => e.node.completionId ?? ""));
      // New calls land between page reads.
      await Promise.all([0, 1, 2].map(() => report({ reqPayload: { model: "p" }, respPayload: { id: `new-${inserted++}` } }, proj.apiKey)));
      if (!page.logs.pageInfo.hasNextPage) break;
      after = page.logs.pageInfo.endCursor;
    }
    const base = seen.filter((id) => id.startsWith("base-"));
    expect(base).toHaveLength(30);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.filter((id) => id.startsWith("new-"))).toEqual([]);
  });

  test("a list of logs with bodies loads the bodies in batched queries, not one per log", async () => {
    const proj = await t.createProject("batch");
    for (let i = 0; i < 5; i++) await report({ reqPayload: { model: "b", i }, respPayload: { id: `b-${i}` } }, proj.apiKey);
    const { result: r, queries } = await captureQueries(t.deps.database.db, () => logsPage({ first: 5 }, proj.apiKey));
    expect(r.logs.edges.map((e) => e.node.reqPayload)).toMatchObject([4, 3, 2, 1, 0].map((i) => ({ i })));
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
    const young = newLogRecord(proj.projectId, {
      id: `${logIdAt(future)}${"0".repeat(20)}`,
      model: "young",
      completionId: "young",
      requestedAt: null,
      receivedAt: null,
      reqPayload: { model: "young" },
      respPayload: null,
    });
    await insertRequestLogs(systemCtx(t.deps, "test"), [young]);

    const stored = (id: string, createdAt: Date) => ({ id, projectId: proj.projectId, previousResponseId: null, input: [], response: { id }, createdAt });
    await t.deps.database.db.insert(storedResponses).values([stored("resp_old", new Date()), stored("resp_young", future)]);
    // A trace's spans are kept as long as the logs.
    const span = (spanId: string, createdAt: Date) => ({
      projectId: proj.projectId,
      traceId: "5b8efff798038103d269b633813fc60c",
      spanId,
      name: spanId,
      createdAt,
    });
    await t.deps.database.db.insert(traceSpans).values([span("00000000000000a1", new Date()), span("00000000000000a2", future)]);

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
    const spans = await t.deps.database.db.select({ spanId: traceSpans.spanId }).from(traceSpans).where(eq(traceSpans.projectId, proj.projectId));
    expect(spans.map((r) => r.spanId)).toEqual(["00000000000000a2"]);
    const orphanBodies = await t.deps.database.db.select().from(requestLogBodies).where(inArray(requestLogBodies.logId, oldIds));
    expect(orphanBodies).toHaveLength(0);
  });
});
