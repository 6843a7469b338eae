// Footprint: how long Hone takes to answer /health after it is started, and its resident memory
// once idle, on Postgres and on PGlite (a fresh database, then a second start on the migrated one;
// on PGlite also a fresh data directory with the migrated template switched off).
//
//   bun bench/footprint.ts [--idle 5] [--runs 3] [--db pglite,postgres]
//
// Start: from spawning `bun src/index.ts` to the first 200 from /health. Idle RSS: the process's
// VmRSS `--idle` seconds later, with its thread count. Each figure is the median of `--runs`
// starts; each start of a "fresh" row gets a new database or data directory.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { benchDatabase, fmt, startHone } from "./lib";

const { values } = parseArgs({
  options: {
    idle: { type: "string", default: "5" },
    runs: { type: "string", default: "3" },
    db: { type: "string", default: "postgres,pglite" },
  },
});
const IDLE_S = Number(values.idle);
const RUNS = Number(values.runs);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const status = (pid: number, field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);

type Sample = { startMs: number; rssMb: number; threads: number };
async function measure(env: Record<string, string>): Promise<Sample> {
  const t0 = performance.now();
  const hone = await startHone(env);
  const startMs = performance.now() - t0;
  await Bun.sleep(IDLE_S * 1000);
  const sample = { startMs, rssMb: status(hone.pid, "VmRSS") / 1024, threads: status(hone.pid, "Threads") };
  await hone.stop();
  return sample;
}

const rows: string[] = [];
for (const kind of values.db!.split(",") as ("pglite" | "postgres")[]) {
  const fresh: Sample[] = [];
  const again: Sample[] = [];
  // PGlite: a fresh data directory also without the migrated template (as when the install's
  // postinstall did not run and no fresh start made one yet: initdb and every migration).
  const bare: Sample[] = [];
  for (let i = 0; i < RUNS; i++) {
    const db = await benchDatabase(kind);
    try {
      fresh.push(await measure(db.env));
      again.push(await measure(db.env));
    } finally {
      await db.cleanup();
    }
    if (kind !== "pglite") continue;
    const other = await benchDatabase(kind);
    try {
      bare.push(await measure({ ...other.env, HONE_PGLITE_TEMPLATE_DIR: "off" }));
    } finally {
      await other.cleanup();
    }
  }
  for (const [label, samples] of [
    ["fresh database", fresh],
    ["fresh, no template", bare],
    ["migrated already", again],
  ] as const) {
    if (!samples.length) continue;
    rows.push(
      `| ${kind} | ${label} | ${fmt(median(samples.map((s) => s.startMs)), 0)} | ${fmt(median(samples.map((s) => s.rssMb)), 0)} | ${median(samples.map((s) => s.threads))} |`,
    );
  }
}
console.log(`\nFootprint, median of ${RUNS} starts, RSS ${IDLE_S} s after /health first answered:\n`);
console.log("| database | start | to /health (ms) | idle RSS (MB) | OS threads |");
console.log("|---|---|---|---|---|");
for (const r of rows) console.log(r);
