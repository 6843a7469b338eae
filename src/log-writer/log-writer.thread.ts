// The log-writer thread: receives serialised logs from the server's main thread and stores them
// in batches over its own Postgres connection, so serialising batches, the driver's protocol work
// and waiting on inserts never take the main thread's time from requests in flight.
// Messages in: init (first), arrays of row strings (queued), {flush}, {responses} (a batch of stored
// Responses, written at once). Messages out: {ack} when a flush or a batch of Responses is done
// ({ack, error} when the Responses failed), {stored} (rows committed, per batch), {dropped} (rows given up on: rejected, or
// deferred while the database is away), {fatal} when it
// cannot start.
import { openDatabase } from "../db/client";
import { statementErrorFields } from "../core/sql-errors";
import { insertLogRows } from "../domain/logs";
import { insertStoredResponses } from "../domain/protocols";
import { createLogger } from "../core/logger";
import { createRowWriter, type RowWriter } from "./log-writer";
import { answered } from "./spool";
import type { ThreadMessage, ThreadReply } from "./threaded-log-writer";

declare const self: Worker;

/** The longest one batch insert may go unanswered before the connection is taken to be stuck. */
const INSERT_DEADLINE_MS = 15_000;

const reply = (m: ThreadReply) => self.postMessage(m);
// The id is the first member of a row; it is only read to name a log in an error.
const idOf = (row: string) => row.slice(7, row.indexOf('"', 7));

let writer: RowWriter | null = null;
const early: ThreadMessage[] = [];

/** Stored Responses go on the logs' connection (opened again if it was replaced). */
let storeResponses: ((batch: string) => Promise<void>) | null = null;

function handle(m: ThreadMessage, w: RowWriter): void {
  if (Array.isArray(m)) {
    for (const row of m) w.enqueue(idOf(row), row);
    return;
  }
  if (m.t === "flush") w.flush().then(() => reply({ ack: m.ack }));
  else if (m.t === "responses") {
    // Every batch is answered: the saves waiting on it fail with the driver's own reason (never
    // Drizzle's message, which quotes the batch).
    (storeResponses ?? (() => Promise.reject(new Error("the log-writer thread has no connection"))))(m.batch).then(
      () => reply({ ack: m.ack }),
      (err: unknown) => {
        const { sqlState, error } = statementErrorFields(err);
        reply({ ack: m.ack, error: sqlState ? `${sqlState}: ${error}` : error });
      },
    );
  }
}

self.onmessage = async (event: MessageEvent<ThreadMessage>) => {
  const m = event.data;
  if (!Array.isArray(m) && m.t === "init") {
    const logger = createLogger(m.logLevel);
    try {
      const open = () => openDatabase({ databaseUrl: m.databaseUrl, dataDir: "", dbPoolSize: 1 }, { migrate: false });
      let database: Awaited<ReturnType<typeof open>> | null = await open();
      const w = createRowWriter(
        {
          logger,
          insertRows: async (rows) => {
            database ??= await open();
            const db = database;
            try {
              await answered(insertLogRows(db.db, rows), INSERT_DEADLINE_MS);
            } catch (err) {
              // The driver can be left waiting on a connection that will never answer (seen with
              // postgres.js after a database outage): this thread's connection is replaced, and
              // the batch retried on the new one (storing is idempotent, should the old one commit).
              if ((err as { code?: unknown }).code === "ETIMEDOUT") {
                logger.warn("a log insert got no answer: the log-writer thread opens a new connection", { deadlineMs: INSERT_DEADLINE_MS });
                void db.close().catch(() => {});
                database = null;
              }
              throw err;
            }
            reply({ stored: rows.length });
          },
          onSettled: (marks, outcome) => {
            if (outcome !== "stored") reply({ dropped: marks.length, deferred: outcome === "deferred" });
          },
        },
        { maxDelayMs: m.flushMs },
      );
      storeResponses = async (batch) => {
        database ??= await open();
        await answered(insertStoredResponses(database.db, batch), INSERT_DEADLINE_MS);
      };
      writer = w;
      for (const e of early.splice(0)) handle(e, w);
      reply({ ready: true });
    } catch (err) {
      reply({ fatal: err instanceof Error ? err.message : String(err) });
    }
    return;
  }
  if (writer) handle(m, writer);
  else early.push(m);
};
