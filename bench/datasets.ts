// Dataset import/export benchmark: rows per second and the Hone process's peak memory while
// importing and while exporting, at 10,000 and 100,000 entries, on PGlite and Postgres. Each
// phase runs in a fresh Hone process, so export memory is measured on its own.
//
//   bun bench/datasets.ts [--db pglite,postgres] [--sizes 10000,100000]
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { BENCH_KEY, benchDatabase, fmt, startHone } from "./lib";

const { values } = parseArgs({ options: { db: { type: "string", default: "pglite,postgres" }, sizes: { type: "string", default: "10000,100000" } } });
const dbs = values.db!.split(",") as ("pglite" | "postgres")[];
const sizes = values.sizes!.split(",").map(Number);
const auth = { authorization: `Bearer ${BENCH_KEY}` };

const rssMb = (pid: number) => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : NaN;
};

/** Runs fn while sampling the process's RSS; returns the baseline and the peak. */
async function measure<T>(pid: number, fn: () => Promise<T>): Promise<{ result: T; seconds: number; baseMb: number; peakMb: number }> {
  const baseMb = rssMb(pid);
  let peakMb = baseMb;
  const timer = setInterval(() => (peakMb = Math.max(peakMb, rssMb(pid))), 25);
  const started = performance.now();
  try {
    const result = await fn();
    return { result, seconds: (performance.now() - started) / 1000, baseMb, peakMb: Math.max(peakMb, rssMb(pid)) };
  } finally {
    clearInterval(timer);
  }
}

function rowsStream(n: number): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let i = 0;
  return new ReadableStream({
    pull(c) {
      if (i >= n) return c.close();
      let chunk = "";
      for (let k = 0; k < 1000 && i < n; k++, i++) {
        chunk += `${JSON.stringify({
          messages: [
            { role: "system", content: "You are a support assistant for an online shop." },
            { role: "user", content: `Where is my order #${i}? It should have arrived.` },
            { role: "assistant", content: `Order #${i} is out for delivery and arrives today.` },
          ],
          metadata: { source: "bench", n: String(i) },
        })}\n`;
      }
      c.enqueue(encoder.encode(chunk));
    },
  });
}

const rows: string[] = [];
for (const kind of dbs) {
  for (const n of sizes) {
    const db = await benchDatabase(kind);
    try {
      let hone = await startHone(db.env);
      const ds = (await (
        await fetch(`${hone.url}/api/v1/datasets`, {
          method: "POST",
          headers: { ...auth, "content-type": "application/json" },
          body: JSON.stringify({ name: `bench-${n}` }),
        })
      ).json()) as { id: string };
      const imp = await measure(hone.pid, async () => {
        const res = await fetch(`${hone.url}/api/v1/datasets/${ds.id}/import`, {
          method: "POST",
          headers: { ...auth, "content-type": "application/x-ndjson" },
          body: rowsStream(n),
        });
        return (await res.json()) as { entries_created: number };
      });
      if (imp.result.entries_created !== n) throw new Error(`imported ${imp.result.entries_created} of ${n}`);
      await hone.stop();

      hone = await startHone(db.env);
      await Bun.sleep(500);
      const exp = await measure(hone.pid, async () => {
        const res = await fetch(`${hone.url}/api/v1/datasets/${ds.id}/export`, { headers: auth });
        let lines = 0;
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) for (const b of chunk) if (b === 10) lines++;
        return lines;
      });
      if (exp.result !== n) throw new Error(`exported ${exp.result} of ${n}`);
      await hone.stop();
      rows.push(
        `| ${kind} | ${n.toLocaleString("en")} | ${fmt(n / imp.seconds, 0)} | ${fmt(imp.peakMb, 0)} (+${fmt(imp.peakMb - imp.baseMb, 0)}) | ${fmt(n / exp.seconds, 0)} | ${fmt(exp.peakMb, 0)} (+${fmt(exp.peakMb - exp.baseMb, 0)}) |`,
      );
      console.log(rows.at(-1));
    } finally {
      await db.cleanup();
    }
  }
}
console.log(`
JSONL import (streamed upload) and export (streamed download); memory is the Hone process's RSS
in MB, peak (and growth over the phase's start):

| database | entries | import rows/s | import peak MB | export rows/s | export peak MB |
|---|---|---|---|---|---|
${rows.join("\n")}`);
process.exit(0);
