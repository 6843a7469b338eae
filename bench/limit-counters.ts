// Why limits lease slices: what counting each call in Postgres would cost instead.
//
//   bun bench/limit-counters.ts [--seconds 5] [--concurrency 32]
//
// The alternative to leases: every call runs one conditional upsert on its limit's row (the check
// and the increment in one statement, so it is exact). Here `concurrency` callers do that back to
// back against one row (one hot limit, as a project's own limit is for all its calls) over a pool
// of 10 connections, as a Hone process has; then against three rows per call (project, key, tag),
// one statement each. Printed: statements per second, and the latency each call would add.
import { parseArgs } from "node:util";
import postgres from "postgres";
import { benchDatabase, fmt } from "./lib";

const { values } = parseArgs({ options: { seconds: { type: "string", default: "5" }, concurrency: { type: "string", default: "32" } } });
const seconds = Number(values.seconds);
const concurrency = Number(values.concurrency);

const db = await benchDatabase("postgres");
const sql = postgres(db.env.DATABASE_URL!, { max: 10, onnotice: () => {} });
try {
  await sql`create table counters (id text, window_start timestamptz, leased double precision not null, primary key (id, window_start))`;
  const windowStart = new Date(Math.floor(Date.now() / 60_000) * 60_000);
  const take = (id: string) =>
    sql`insert into counters (id, window_start, leased) values (${id}, ${windowStart}, 1)
        on conflict (id, window_start) do update set leased = counters.leased + 1 where counters.leased + 1 <= 1e12
        returning leased`;

  const run = async (label: string, perCall: (caller: number) => Promise<unknown>) => {
    const latencies: number[] = [];
    const end = performance.now() + seconds * 1000;
    await Promise.all(
      Array.from({ length: concurrency }, async (_, caller) => {
        while (performance.now() < end) {
          const t0 = performance.now();
          await perCall(caller);
          latencies.push(performance.now() - t0);
        }
      }),
    );
    latencies.sort((a, b) => a - b);
    const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]!;
    console.log(`| ${label} | ${concurrency} | ${fmt(latencies.length / seconds, 0)} | ${fmt(q(0.5))} / ${fmt(q(0.99))} |`);
  };

  console.log(`# Counting every call in Postgres: ${seconds} s per case, pool of 10\n`);
  console.log("| per call | callers | calls/s | added per call, p50 / p99 (ms) |");
  console.log("|---|---|---|---|");
  await run("one upsert, one hot row", () => take("project"));
  await run("three upserts (project, key, tag)", (c) => Promise.all([take("project"), take(`key-${c % 4}`), take(`user-${c}`)]));
} finally {
  await sql.end();
  await db.cleanup();
}
process.exit(0);
