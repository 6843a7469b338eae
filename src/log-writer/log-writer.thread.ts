// The log-writer thread: receives serialised logs from the server's main thread and stores them
// in batches over its own Postgres connection, so serialising batches, the driver's protocol work
// and waiting on inserts never take the main thread's time from requests in flight.
// Messages in: init (first), arrays of row strings (queued), {flush}. Messages out: {ack} when a
// flush is done, {stored} (rows committed, per batch), {dropped} (rows given up on: rejected, or
// deferred while the database is away), {fatal} when it
// cannot start.
import { openDatabase } from "../db/client";
import { insertLogRows } from "../domain/logs/store";
import { createLogger } from "../logger";
import { createRowWriter, type RowWriter } from "./log-writer";
import type { ThreadMessage, ThreadReply } from "./threaded-log-writer";

declare const self: Worker;

const reply = (m: ThreadReply) => self.postMessage(m);
// The id is the first member of a row; it is only read to name a log in an error.
const idOf = (row: string) => row.slice(7, row.indexOf('"', 7));

let writer: RowWriter | null = null;
const early: ThreadMessage[] = [];

function handle(m: ThreadMessage, w: RowWriter): void {
  if (Array.isArray(m)) {
    for (const row of m) w.enqueue(idOf(row), row);
    return;
  }
  if (m.t === "flush") w.flush().then(() => reply({ ack: m.ack }));
}

self.onmessage = async (event: MessageEvent<ThreadMessage>) => {
  const m = event.data;
  if (!Array.isArray(m) && m.t === "init") {
    const logger = createLogger(m.logLevel);
    try {
      const database = await openDatabase({ databaseUrl: m.databaseUrl, dataDir: "", dbPoolSize: 1 }, { migrate: false });
      const w = createRowWriter(
        {
          logger,
          insertRows: async (rows) => {
            await insertLogRows(database.db, rows);
            reply({ stored: rows.length });
          },
          onSettled: (marks, outcome) => {
            if (outcome !== "stored") reply({ dropped: marks.length, deferred: outcome === "deferred" });
          },
        },
        { maxDelayMs: m.flushMs },
      );
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
