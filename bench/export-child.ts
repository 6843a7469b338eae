// One export in a process of its own, for bench/logs-scale.ts: its peak resident memory is the
// export's, not the seeding's. Reads HONE_BENCH_EXPORT ({projectId, format, from, to}) and the
// database settings from the environment; prints one JSON line: bytes, lines, seconds, the peak
// RSS the kernel recorded (VmHWM) and the RSS when the database had just been opened.
import { readFileSync } from "node:fs";
import { createDeps } from "../src/compose";
import { loadConfig } from "../src/core/config";
import { systemCtx } from "../src/domain/context";
import { openDatabase } from "../src/db/client";
import { exportLogs } from "../src/domain/logs";
import { createLogger } from "../src/core/logger";

const job = JSON.parse(process.env.HONE_BENCH_EXPORT ?? "{}") as { projectId: string; format: "jsonl" | "csv"; from: string; to: string };
const kib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync("/proc/self/status", "utf8"))?.[1] ?? 0) * 1024;

const config = loadConfig({ ...process.env, HONE_LOG_LEVEL: "error" });
const database = await openDatabase({ ...config, dbStatementTimeoutMs: 0, dbPoolSize: 2 });
const deps = createDeps({ config, database, logger: createLogger("error"), secretKey: new Uint8Array(32) });
const ctx = { ...systemCtx(deps, "bench"), projectId: job.projectId };
const opened = kib("VmRSS");
let bytes = 0;
let lines = 0;
const started = performance.now();
for await (const chunk of exportLogs(ctx, { filter: { from: new Date(job.from), to: new Date(job.to) }, format: job.format })) {
  bytes += Buffer.byteLength(chunk);
  for (let i = chunk.indexOf("\n"); i !== -1; i = chunk.indexOf("\n", i + 1)) lines++;
}
const seconds = (performance.now() - started) / 1000;
await database.close();
console.log(JSON.stringify({ bytes, lines, seconds, peakRss: kib("VmHWM"), openedRss: opened }));
