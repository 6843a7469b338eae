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
  await waitFor(
    async () => ((await metricOf(server, "hone_spool_segments_awaiting_replay")) ?? 0) === 0 && (await metricOf(server, "hone_log_queue_depth")) === 0,
    { message: "the spool replayed and the log queue empty", timeoutMs },
  );
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
