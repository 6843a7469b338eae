// The log writer that runs on its own thread (what the server uses on Postgres). It needs a
// Postgres server: it gets its own database on the one the suite runs against, or on the local
// server when the suite runs on PGlite.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { migrateDatabase, openDatabase, type Database } from "../../src/db/client";
import { parseJsonKeepingText } from "../../src/lib/json-text";
import type { NewRequestLog } from "../../src/domain/logs";
import { createLogWriter } from "../../src/log-writer/log-writer";
import { createThreadedLogWriter } from "../../src/log-writer/threaded-log-writer";
import { createLogger } from "../../src/core/logger";
import { newId } from "../../src/lib/ids";
import { createOwnPostgresDatabase } from "../helpers/db";
import { waitFor } from "../helpers/wait-for";

let url: string;
let database: Database;
let projectId: string;
let drop: () => Promise<void>;

beforeAll(async () => {
  ({ url, drop } = await createOwnPostgresDatabase());
  database = await openDatabase({ databaseUrl: url, dataDir: "", dbPoolSize: 2 }, { migrate: false });
  await migrateDatabase(database);
  projectId = newId("project");
  await database.db.execute(`insert into projects (id, name) values ('${projectId}', 'thread test')` as never);
});

afterAll(async () => {
  await database.close();
  await drop();
});

function record(i: number, reqPayload: unknown = { model: "m", messages: [{ role: "user", content: `q${i}` }] }): NewRequestLog {
  return {
    id: newId("log"),
    projectId,
    source: "gateway",
    provider: "openai",
    model: "m",
    completionId: `c${i}`,
    statusCode: 200,
    errorMessage: null,
    requestedAt: new Date(),
    receivedAt: new Date(),
    durationMs: 1,
    inputTokens: 1,
    outputTokens: 2,
    costUsd: 0.001,
    cacheHit: false,
    tags: { i: String(i) },
    reqPayload,
    respPayload: { id: `c${i}` },
  };
}

async function stored(ids: string[]) {
  return database.db.query.requestLogs.findMany({ where: { id: { in: ids } }, with: { body: true } });
}

describe("log writer thread", () => {
  test("stores every queued log, answers an awaited write once committed, and stores payloads kept as JSON text", async () => {
    const lines: string[] = [];
    const writer = createThreadedLogWriter(
      { databaseUrl: url, logLevel: "info", logFlushMs: 5 },
      createLogger("info", (l) => lines.push(l)),
      createLogWriter({ database, logger: createLogger("silent") }),
    );
    const queued = Array.from({ length: 400 }, (_, i) => record(i));
    for (const r of queued) writer.enqueue(r);
    // A payload parsed from JSON text is stored from that text (spliced into the batch).
    const text = '{"z": 1, "a": {"nested": [1, 2, "\\u00e9"]}}';
    const awaited = record(999, parseJsonKeepingText(text));
    writer.enqueue(awaited);
    // An awaited write (a report) is committed when it resolves.
    const report = record(1000);
    await writer.write(report);
    expect((await stored([report.id])).length).toBe(1);
    await writer.flush();
    expect((await stored([awaited.id]))[0]?.body?.reqPayload).toEqual({ z: 1, a: { nested: [1, 2, "é"] } });
    await writer.flush();
    const rows = await stored(queued.map((r) => r.id));
    expect(rows.length).toBe(400);
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const [i, r] of queued.entries()) {
      const row = byId.get(r.id)!;
      expect(row.tags).toEqual({ i: String(i) });
      expect(row.body?.reqPayload).toEqual(r.reqPayload);
      expect(row.costUsd).toBe(0.001);
    }
    await writer.close();
    expect(lines.filter((l) => l.includes('"error"'))).toEqual([]);
  });

  test("stored Responses are written on the thread's connection: stored, a repeated id keeps its first, a bad batch fails with the database's reason", async () => {
    const writer = createThreadedLogWriter(
      { databaseUrl: url, logLevel: "info", logFlushMs: 5 },
      createLogger("silent"),
      createLogWriter({ database, logger: createLogger("silent") }),
    );
    const id = `resp_${newId("log")}`;
    const one = (text: string) => JSON.stringify([{ id, project_id: projectId, previous_response_id: null, input: [], response: { id, text } }]);
    await writer.storeResponses!(one("first"));
    await writer.storeResponses!(one("second"));
    const rows = await database.db.execute(sql`select response ->> 'text' as text from stored_responses where id = ${id}`);
    expect((rows as unknown as { text: string }[]).map((r) => r.text)).toEqual(["first"]);
    // Not JSON: the thread's insert fails, and the save's promise says why.
    const failed = await writer.storeResponses!("[{not json")!.catch((err: Error) => err);
    expect(failed).toBeInstanceOf(Error);
    expect((failed as Error).message).toContain("json");
    // Handed over just before close: stored before the thread goes.
    const last = `resp_${newId("log")}`;
    const pending = writer.storeResponses!(
      JSON.stringify([{ id: last, project_id: projectId, previous_response_id: null, input: [], response: { id: last } }]),
    );
    await writer.close();
    await pending;
    const after = await database.db.execute(sql`select count(*)::int as n from stored_responses where id = ${last}`);
    expect((after as unknown as { n: number }[])[0]!.n).toBe(1);
    // A closed writer takes no more: the caller stores them itself.
    expect(writer.storeResponses!("[]")).toBeNull();
  });

  test("a thread that cannot reach its database hands logging to the main thread, saying so", async () => {
    const lines: string[] = [];
    const writer = createThreadedLogWriter(
      { databaseUrl: "postgres://postgres@127.0.0.1:1/none", logLevel: "info", logFlushMs: 5 },
      createLogger("info", (l) => lines.push(l)),
      createLogWriter({ database, logger: createLogger("silent") }),
    );
    const failed = () => lines.some((l) => l.includes("log-writer thread could not start"));
    await waitFor(failed, { intervalMs: 50, message: "the log-writer thread to report it could not start" });
    expect(failed()).toBe(true);
    const r = record(1);
    writer.enqueue(r);
    await writer.flush();
    expect((await stored([r.id])).length).toBe(1);
    // Nor does it take stored Responses: the caller writes them from the main thread.
    expect(writer.storeResponses!("[]")).toBeNull();
    await writer.close();
  });
});
