// The statements of the write path (a batch of logs, a batch of stored Responses) run as named
// prepared statements on Postgres: parsed and planned once per connection instead of on every
// batch. It needs a Postgres server: its own database on the one the suite runs against, or on the
// local server when the suite runs on PGlite. One connection, so the statements seen are its own.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { executePrepared, migrateDatabase, openDatabase, type Database } from "../../src/db/client";
import { logIdAt, resultRows } from "../../src/domain/logs/internal";
import { insertLogRows, logRow } from "../../src/domain/logs/store/rows";
import { saveResponse, settleResponseSaves } from "../../src/domain/protocols/stored-responses";
import { newId } from "../../src/lib/ids";
import type { Ctx } from "../../src/domain/context";
import { createLogger } from "../../src/core/logger";
import { createOwnPostgresDatabase } from "../helpers/db";
import { newLogRecord } from "../helpers/logs";

let database: Database;
let projectId: string;
let drop: () => Promise<void>;

beforeAll(async () => {
  const own = await createOwnPostgresDatabase();
  drop = own.drop;
  database = await openDatabase({ databaseUrl: own.url, dataDir: "", dbPoolSize: 1 }, { migrate: false });
  await migrateDatabase(database);
  projectId = newId("project");
  await database.db.execute(sql`insert into projects (id, name) values (${projectId}, 'prepared statements')`);
});

afterAll(async () => {
  await database.close();
  await drop();
});

const record = (id: string, content: string) =>
  newLogRecord(projectId, {
    id,
    reqPayload: { model: "m", messages: [{ role: "user", content }] },
    respPayload: { choices: [{ message: { role: "assistant", content: `answer to ${content}` } }] },
  });

const preparedInserts = async () =>
  resultRows<{ n: number }>(
    await database.db.execute(sql`select count(*)::int as n from pg_prepared_statements where statement like '%jsonb_to_recordset%request_log_bodies%'`),
  )[0]!.n;

const storedTexts = async (ids: string[]) =>
  resultRows<{ id: string; search_text: string }>(
    await database.db.execute(sql`select log_id as id, search_text from request_log_bodies where log_id = any(${sql.param(ids)}::text[]) order by log_id`),
  );

describe("prepared statements on the write path", () => {
  test("a batch of logs is stored by one prepared statement, prepared once for the connection", async () => {
    expect(await preparedInserts()).toBe(0);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const batch = [newId("log"), newId("log")];
      ids.push(...batch);
      await insertLogRows(
        database.db,
        batch.map((id, j) => logRow(record(id, `question ${i}-${j}`))),
      );
    }
    // Three batches, one statement kept by the server for this connection.
    expect(await preparedInserts()).toBe(1);
    const stored = await storedTexts(ids);
    expect(stored.map((r) => r.id)).toEqual([...ids].sort());
    expect(stored.find((r) => r.id === ids[5])!.search_text).toContain("question 2-1");
    // A batch written again (a retry, a replayed spool) stores nothing twice.
    await insertLogRows(database.db, [logRow(record(ids[0]!, "question 0-0"))], { late: true });
    expect((await storedTexts(ids)).length).toBe(6);
  });

  test("stored Responses are written by one prepared statement", async () => {
    // What saveResponse reads of the request's context: the project, the process's save queue, the
    // database, and a log writer that does not take them (as on PGlite: this thread stores them).
    const deps = { caches: { responseSaves: { queued: [], inFlight: new Map() } }, database, logger: createLogger("error"), logWriter: {} };
    const ctx = { projectId, requestId: "test", deps } as unknown as Ctx;
    const ids = [`resp_${newId("log")}`, `resp_${newId("log")}`];
    for (const id of ids) {
      saveResponse(ctx, { id, previousResponseId: null, input: [{ type: "message", role: "user", content: "hi" }], response: { id, status: "completed" } });
      await settleResponseSaves(ctx.deps);
    }
    const stored = resultRows<{ id: string }>(
      await database.db.execute(sql`select id from stored_responses where id = any(${sql.param(ids)}::text[]) order by id`),
    );
    expect(stored.map((r) => r.id)).toEqual([...ids].sort());
    const prepared = resultRows<{ n: number }>(
      await database.db.execute(sql`select count(*)::int as n from pg_prepared_statements where statement like '%insert into "stored_responses"%'`),
    );
    expect(prepared[0]!.n).toBe(1);
  });

  test("a Responses batch the database refuses is logged with its SQLSTATE and the driver's reason, never the Responses", async () => {
    const lines: string[] = [];
    const deps = {
      caches: { responseSaves: { queued: [], inFlight: new Map() } },
      database,
      logger: createLogger("error", (l) => lines.push(l)),
      logWriter: {},
    };
    // A project that does not exist: the foreign key refuses the row.
    const ctx = { projectId: "prj_none", requestId: "req-1", deps } as unknown as Ctx;
    const id = `resp_${newId("log")}`;
    saveResponse(ctx, { id, previousResponseId: null, input: [], response: { id, status: "completed", secret: "the-answer-text-42" } });
    await settleResponseSaves(ctx.deps);
    const line = lines.find((l) => l.includes("a Responses API response could not be stored"));
    expect(line).toBeDefined();
    const fields = JSON.parse(line!) as { sqlState: string; error: string; responseId: string };
    expect(fields.sqlState).toBe("23503");
    expect(fields.responseId).toBe(id);
    expect(fields.error).toContain("foreign key");
    expect(line).not.toContain("the-answer-text-42");
  });

  test("a day partition created after the statement was prepared receives its logs", async () => {
    // What the hourly maintenance does for the days ahead: the prepared plan is made again.
    const day = Date.UTC(2031, 0, 1);
    const [lo, hi] = [logIdAt(new Date(day)), logIdAt(new Date(day + 86_400_000))];
    for (const table of ["request_logs", "request_log_bodies"]) {
      await database.db.execute(sql.raw(`create table ${table}_p20310101 partition of ${table} for values from ('${lo}') to ('${hi}')`));
    }
    const id = newId("log", new Date(day + 3_600_000));
    await insertLogRows(database.db, [logRow(record(id, "from the new day"))]);
    const inPartition = resultRows<{ n: number }>(
      await database.db.execute(sql`select count(*)::int as n from request_log_bodies_p20310101 where log_id = ${id}`),
    );
    expect(inPartition[0]!.n).toBe(1);
    expect(await preparedInserts()).toBeGreaterThanOrEqual(1);
  });

  test("inside a transaction the prepared statement is the transaction's: a rollback stores nothing", async () => {
    const id = newId("log");
    await database.db
      .transaction(async (tx) => {
        await insertLogRows(tx, [logRow(record(id, "rolled back"))]);
        const seen = resultRows<{ n: number }>(await tx.execute(sql`select count(*)::int as n from request_logs where id = ${id}`));
        expect(seen[0]!.n).toBe(1);
        throw new Error("roll back");
      })
      .catch((err: Error) => expect(err.message).toBe("roll back"));
    expect((await storedTexts([id])).length).toBe(0);
  });

  test("a statement that fails keeps its error and leaves the connection usable", async () => {
    // A value Postgres rejects (not a timestamp): the error is the driver's, named by its SQLSTATE.
    const failed = await executePrepared(database.db, sql`select ${"not a time"}::text::timestamptz as t`).catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(Error);
    const cause = (failed as { cause?: { code?: string } }).cause;
    expect(cause?.code).toBe("22007");
    const ok = resultRows<{ t: string }>((await executePrepared(database.db, sql`select ${"2030-01-01T00:00:00Z"}::text::timestamptz::text as t`)) as never);
    expect(ok[0]!.t).toContain("2030-01-01");
  });
});
