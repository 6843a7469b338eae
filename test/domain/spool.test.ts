import { afterEach, describe, expect, test } from "bun:test";
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRowWriter, recordWriter } from "../../src/log-writer/log-writer";
import { openSpool, readRecords, type Spool } from "../../src/log-writer/spool";
import { createLogger } from "../../src/core/logger";
import { newLogRecord } from "../helpers/logs";
import { waitFor } from "../helpers/wait-for";

// The log spool on its own: records framed and checked, segments gone once stored, deferred logs
// replayed when the database answers again, directories of stopped processes taken over, the cap.

const logger = createLogger("silent");
const roots: string[] = [];
const spools: Spool[] = [];
afterEach(async () => {
  for (const s of spools.splice(0)) await s.close();
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

const newRoot = () => {
  const r = mkdtempSync(join(tmpdir(), "hone-spool-unit-"));
  roots.push(r);
  return r;
};
const row = (id: string, extra = "") => JSON.stringify({ id, project_id: "prj_1", note: extra });
const down = () => Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });

/** A spool whose store puts rows in `stored` (by id), failing as `failing()` says. */
function spoolWith(root: string, opts: { failing?: () => boolean; maxBytes?: number; segmentMs?: number; database?: string } = {}) {
  const stored = new Map<string, number>();
  const spool = openSpool({
    root,
    database: opts.database ?? "db-1",
    maxBytes: opts.maxBytes ?? 1024 ** 3,
    syncMs: 2,
    segmentMs: opts.segmentMs ?? 50,
    adoptEveryMs: 50,
    logger,
    store: async (rows) => {
      if (opts.failing?.()) throw down();
      for (const r of rows) {
        const id = (JSON.parse(r) as { id: string }).id;
        stored.set(id, (stored.get(id) ?? 0) + 1);
      }
    },
  });
  spools.push(spool);
  return { spool, stored };
}

const files = (root: string) => (existsSync(root) ? (readdirSync(root, { recursive: true }) as string[]).filter((f) => f.endsWith(".spool")) : []);

describe("the log spool", () => {
  test("records are framed and checked: a torn or corrupt tail is skipped, whole records kept", () => {
    const root = newRoot();
    const { spool } = spoolWith(root);
    for (let i = 0; i < 3; i++) spool.append(row(`log_${i}`, "é ✓ 𝄞"));
    const [file] = files(root);
    const path = join(root, file!);
    // A crash in the middle of a write: a header promising more than is there.
    appendFileSync(path, Buffer.from([200, 0, 0, 0, 1, 2, 3, 4, 65]));
    expect(readRecords(readFileSync(path), path, logger).map((r) => JSON.parse(r).id)).toEqual(["log_0", "log_1", "log_2"]);
    // A flipped byte fails the checksum: the records before it are kept.
    const data = readFileSync(path);
    data[11] = data[11]! ^ 1;
    expect(readRecords(data, path, logger)).toEqual([]);
  });

  test("a segment goes once every log in it is stored; synced() waits for the fsync", async () => {
    const root = newRoot();
    const { spool } = spoolWith(root, { segmentMs: 20 });
    const marks = [spool.append(row("log_a")), spool.append(row("log_b"))];
    expect(marks.every(Boolean)).toBe(true);
    await spool.synced();
    expect(files(root)).toHaveLength(1);
    spool.settle(marks, "stored");
    await waitFor(() => files(root).length === 0, { message: "the stored segment removed" });
    expect(spool.stats()).toMatchObject({ bytes: 0, segments: 0, awaitingReplay: 0 });
  });

  test("logs deferred while the database is away are replayed when it answers, once each", async () => {
    const root = newRoot();
    let away = true;
    const { spool, stored } = spoolWith(root, { failing: () => away });
    const marks = Array.from({ length: 500 }, (_, i) => spool.append(row(`log_${i}`)));
    // 200 reached the database before it went away; the rest were given up on by the writer.
    spool.settle(marks.slice(0, 200), "stored");
    spool.settle(marks.slice(200), "deferred");
    await Bun.sleep(200);
    expect(stored.size).toBe(0);
    expect(files(root).length).toBeGreaterThan(0);
    expect(spool.stats().awaitingReplay).toBeGreaterThan(0);
    away = false;
    await waitFor(() => spool.stats().awaitingReplay === 0 && files(root).length === 0, { message: "the replay", timeoutMs: 5_000 });
    // The whole segment is stored again (what was stored already is skipped by the database).
    for (let i = 200; i < 500; i++) expect(stored.get(`log_${i}`)).toBe(1);
    expect(spool.stats().replayed).toBe(500);
  });

  test("a stopped process's directory is taken over and replayed; a running one's, or another database's, is left alone", async () => {
    const root = newRoot();
    // Written by a process that stopped with two logs not stored (the database away): its
    // directory says so. Another, of a process still running (this one), holds one too.
    const first = spoolWith(root);
    first.spool.append(row("log_dead_1"));
    first.spool.append(row("log_dead_2"));
    await first.spool.close();
    spools.splice(spools.indexOf(first.spool), 1);
    const dead = readdirSync(root)[0]!;
    mkdirSync(join(root, "alive"));
    writeFileSync(join(root, "alive", "owner.json"), JSON.stringify({ pid: process.pid, database: "db-1" }));
    writeFileSync(join(root, "alive", "seg-00000001.spool"), "");
    // And a stopped process of another database sharing the directory: its logs are not this one's.
    const other = spoolWith(root, { database: "db-2" });
    other.spool.append(row("log_other_db"));
    await other.spool.close();
    spools.splice(spools.indexOf(other.spool), 1);
    const otherDir = readdirSync(root).find((d) => d !== dead && d !== "alive")!;

    const { spool, stored } = spoolWith(root);
    await waitFor(() => stored.size === 2, { message: "the dead process's logs stored" });
    expect([...stored.keys()].sort()).toEqual(["log_dead_1", "log_dead_2"]);
    await spool.drained();
    const left = readdirSync(root).sort();
    expect(left).toContain("alive");
    expect(left).toContain(otherDir);
    expect(left).not.toContain(dead);
    expect(stored.has("log_other_db")).toBe(false);
  });

  test("past HONE_SPOOL_MAX_BYTES a log is not spooled, and counted", () => {
    const root = newRoot();
    const { spool } = spoolWith(root, { maxBytes: 200 });
    expect(spool.append(row("log_1", "x".repeat(100)))).not.toBeNull();
    expect(spool.append(row("log_2", "x".repeat(100)))).toBeNull();
    expect(spool.stats().unspooled).toBe(1);
  });

  test("an awaited write the database cannot take now resolves once spooled; a rejected one still fails", async () => {
    const root = newRoot();
    const { spool } = spoolWith(root);
    let inserts = 0;
    const writerFor = (mode: "down" | "reject") =>
      recordWriter(
        createRowWriter(
          {
            logger,
            insertRows: async () => {
              // Away: refused at once the first time, then a connection that takes seconds to fail
              // (the fake's latency: a write that tried it would take this long, which the test rules out).
              if (mode === "down" && inserts++ > 0) await Bun.sleep(2_000);
              throw mode === "down" ? down() : Object.assign(new Error("value too long"), { code: "22001" });
            },
            onSettled: (m, o) => spool.settle(m, o),
            sleep: async () => {},
          },
          { maxDelayMs: 1, retryForMs: 10 },
        ),
        logger,
        undefined,
        spool,
      );
    const record = (id: string) => newLogRecord("prj_1", { id });
    const writer = writerFor("down");
    await writer.write(record("log_spooled"));
    expect(inserts).toBe(1);
    expect(spool.stats().segments).toBeGreaterThan(0);
    // Known to be away now: the next is answered from the spool, not after a try of its own.
    const started = performance.now();
    await writer.write(record("log_spooled_2"));
    expect(performance.now() - started).toBeLessThan(500);
    await expect(writerFor("reject").write(record("log_rejected"))).rejects.toThrow("value too long");
  });
});
