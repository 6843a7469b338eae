import { sql } from "drizzle-orm";
import { openDatabase } from "../../src/db/client";
import { resultRows } from "../../src/domain/logs/internal";
import type { RunningServer } from "./process";
import { waitFor } from "./wait-for";

// For the tests that stop a real server process and count what it stored: its /metrics figures,
// the wait for its spool and queue to be empty, and the logs stored per value of tag `k`.

/** One unlabelled figure of the server's /metrics (null when it is not there). */
export async function metricOf(server: RunningServer, name: string): Promise<number | null> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith(`${name} `));
  return line ? Number(line.split(" ")[1]) : null;
}

/** Waits until nothing waits in the server's spool or log queue; returns the logs replayed from the spool. */
export async function waitForLogsStored(server: RunningServer, timeoutMs = 60_000): Promise<number | null> {
  const names = ["hone_spool_segments_awaiting_replay", "hone_log_queue_depth", "hone_spool_bytes", "hone_logs_dropped_total"];
  await waitFor(async () => Object.fromEntries(await Promise.all(names.map(async (n) => [n, await metricOf(server, n)]))), {
    until: (m) => (m.hone_spool_segments_awaiting_replay ?? 0) === 0 && m.hone_log_queue_depth === 0,
    message: (m) => `the spool replayed and the log queue empty (${JSON.stringify(m)}); the server said:\n${noteworthy(server.output())}`,
    timeoutMs,
  });
  return metricOf(server, "hone_spool_replayed_total");
}

/** How many logs each value of tag `k` has, read from the database of a stopped server. */
export async function storedByTag(db: { databaseUrl?: string | undefined; dataDir: string }): Promise<Map<string, number>> {
  const database = await openDatabase({ databaseUrl: db.databaseUrl, dataDir: db.dataDir, dbPoolSize: 1 }, { migrate: false });
  try {
    const rows = resultRows<{ k: string; n: number }>(
      await database.db.execute(sql`select metadata ->> 'k' as k, count(*)::int as n from request_logs group by 1`),
    );
    return new Map(rows.map((r) => [r.k, Number(r.n)]));
  } finally {
    await database.close();
  }
}

/** The server's warnings and errors (its last 20). */
function noteworthy(output: string): string {
  return output
    .split("\n")
    .filter((l) => /"level":"(warn|error)"/.test(l))
    .slice(-20)
    .join("\n");
}
