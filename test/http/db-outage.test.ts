import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import postgres from "postgres";
import { isConnectionError } from "../../src/core/sql-errors";
import { createLogWriter } from "../../src/log-writer/log-writer";
import { createLogger } from "../../src/core/logger";
import { createTestApp, storeProviderKey, type TestApp } from "../helpers/app";
import { createTestDatabase, type TestDatabase } from "../helpers/db";
import { startFakeOpenAI, type FakeUpstream } from "../helpers/fake-upstreams";
import type { GqlErrorBody } from "../helpers/gql";
import type { TrpcErrorBody } from "../helpers/trpc";
import type { ErrorBody, RestOutput } from "../helpers/rest";

// A database outage, on whichever database the suite runs (PGlite: a closed instance; Postgres: a
// closed pool, and a port nothing listens on).
let fake: FakeUpstream;
beforeAll(() => {
  fake = startFakeOpenAI();
});
afterAll(() => fake.stop());

const parse = (lines: string[]) => lines.map((l) => JSON.parse(l) as Record<string, any>);

test("refused, ended and closed connections are told apart from other errors", async () => {
  const refused = postgres("postgres://nobody@127.0.0.1:1/none", { connect_timeout: 2, max: 1, onnotice: () => {} });
  const err = await refused`select 1`.catch((e: unknown) => e);
  await refused.end();
  expect(isConnectionError(err)).toBe(true);
  const closed = await createTestDatabase();
  await closed.database.close();
  const err2 = await closed.database.db.query.requestLogs.findFirst().catch((e: unknown) => e);
  expect(isConnectionError(err2)).toBe(true);
  await closed.drop().catch(() => {});
  expect(isConnectionError(Object.assign(new Error("bad"), { code: "22P02" }))).toBe(false);
  expect(isConnectionError(new TypeError("x"))).toBe(false);
});

describe("the log store is down, the rest of the database answers", () => {
  let t: TestApp;
  let logDb: TestDatabase;
  const logLines: string[] = [];
  beforeAll(async () => {
    logDb = await createTestDatabase();
    await logDb.database.close();
    const logger = createLogger("info", (l) => logLines.push(l));
    // The writer's own database is the one that is down (on Postgres, the log-writer thread's
    // connection can be lost while the request pool still answers).
    const logWriter = createLogWriter({ logger, database: logDb.database }, { maxDelayMs: 5, retryForMs: 300 });
    t = await createTestApp({ env: { OPENAI_BASE_URL: `${fake.url}/v1` }, deps: { logWriter } });
    await storeProviderKey(t, "openai", "sk-outage-test-01");
  });
  afterAll(async () => {
    await t.close();
    await logDb.drop().catch(() => {});
  });

  test("/report answers 503 with Retry-After and UNAVAILABLE, at once", async () => {
    const started = performance.now();
    const res = await t.request("POST", "/api/v1/report", { body: { reqPayload: { model: "gpt-4o-mini" }, statusCode: 200 } });
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("5");
    expect(await res.json()).toEqual({ message: "The database is unavailable; retry in 5 seconds", code: "UNAVAILABLE", issues: [] });
    expect(performance.now() - started).toBeLessThan(1_000);
    const anth = await t.request("POST", "/api/v1/report-anthropic", { body: { reqPayload: { model: "claude-3-5-haiku-latest", messages: [] } } });
    expect(anth.status).toBe(503);
  });

  test("the gateway still answers, and the server log says which logs it could not store", async () => {
    const res = await t.request("POST", "/api/v1/chat/completions", { body: { model: "gpt-4o-mini", messages: [{ role: "user", content: "still there?" }] } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as RestOutput<"POST /chat/completions">).choices[0]!.message.content).toContain("still there?");
    await t.deps.logWriter.flush();
    const lines = parse(logLines);
    expect(lines.some((l) => l.level === "warn" && l.msg === "database unreachable: request logs are kept and retried")).toBe(true);
    const lost = lines.find((l) => l.level === "error" && l.msg === "request logs could not be stored: the database stayed unreachable");
    expect(lost?.logIds).toHaveLength(1);
    expect(lost!.logIds[0]).toMatch(/^log_/);
    expect(logLines.join("\n")).not.toContain("still there?");
  });
});

describe("the whole database is down", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });

  test("/report, REST reads and tRPC answer 503 (tRPC: SERVICE_UNAVAILABLE), never 500", async () => {
    // Warm the key cache where there is one: the outage is then met in the verb, not only in auth.
    expect((await t.request("GET", "/api/v1/datasets")).status).toBe(200);
    await t.db.database.close();
    const report = await t.request("POST", "/api/v1/report", { body: { statusCode: 200 } });
    expect(report.status).toBe(503);
    expect(report.headers.get("retry-after")).toBe("5");
    expect(((await report.json()) as ErrorBody).code).toBe("UNAVAILABLE");
    const list = await t.request("GET", "/api/v1/datasets");
    expect(list.status).toBe(503);
    const trpc = await t.request("GET", `/trpc/logs.list?input=${encodeURIComponent("{}")}`);
    expect(trpc.status).toBe(503);
    expect(((await trpc.json()) as TrpcErrorBody).error.data.code).toBe("UNAVAILABLE");
    const gql = await t.request("POST", "/graphql", { body: { query: "{ datasets { id } }" } });
    const body = (await gql.json()) as GqlErrorBody;
    expect(body.errors[0]!.extensions!.code).toBe("UNAVAILABLE");
    await t.db.drop().catch(() => {});
  });
});
