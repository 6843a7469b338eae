import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DataDirLockedError, openDatabase } from "../../src/db/client";
import { waitFor } from "../helpers/wait-for";

// The embedded database's data directory lock: a live holder keeps it; a dead one (a zombie never
// reaped, or a pid since given to another process) does not, so a restart in a container whose
// init does not reap still starts.
const dirs: string[] = [];
const children: { kill(): void }[] = [];
afterAll(() => {
  for (const c of children) c.kill();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function dataDirLockedBy(lock: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), "hone-lock-"));
  dirs.push(dir);
  writeFileSync(join(dir, "hone.lock"), JSON.stringify(lock));
  return dir;
}
const open = (dir: string) => openDatabase({ dataDir: dir, databaseUrl: undefined, dbPoolSize: 1 }, { owner: "lock test", migrate: false });
const startOf = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]!;
};
const bootId = () => readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();

describe("the data directory lock", () => {
  test("a running holder keeps it: the second opener is refused, naming the holder", async () => {
    const holder = Bun.spawn(["sleep", "30"]);
    children.push(holder);
    const dir = dataDirLockedBy({ pid: holder.pid, owner: "hone server", started: `${bootId()}:${startOf(holder.pid)}` });
    await expect(open(dir)).rejects.toThrow(DataDirLockedError);
    await expect(open(dir)).rejects.toThrow(`in use by hone server (pid ${holder.pid})`);
  });

  test("a pid now used by another process (its start time differs) does not hold it", async () => {
    const other = Bun.spawn(["sleep", "30"]);
    children.push(other);
    const dir = dataDirLockedBy({ pid: other.pid, owner: "hone server", started: `${bootId()}:1` });
    const db = await open(dir);
    await db.close();
  });

  test("a zombie (dead, never reaped by its parent) does not hold it", async () => {
    // The shell's child exits after a second; the shell has become `sleep` by then, which never reaps
    // it. (A child exiting at once could be reaped by the shell itself, before its exec, on a loaded
    // machine: then there is no zombie to see.)
    const parent = Bun.spawn(["sh", "-c", "sleep 1 & echo $!; exec sleep 30"], { stdout: "pipe" });
    children.push(parent);
    const reader = parent.stdout.getReader();
    const zombie = Number(new TextDecoder().decode((await reader.read()).value).trim());
    await waitFor(() => readFileSync(`/proc/${zombie}/stat`, "utf8").includes(") Z "), { message: "the child to be a zombie" });
    // An older lock without a start time: the pid answers signals, but the process is dead.
    const dir = dataDirLockedBy({ pid: zombie, owner: "hone server" });
    const db = await open(dir);
    await db.close();
    // The new lock records this process's start, and is removed on close.
    expect(() => readFileSync(join(dir, "hone.lock"), "utf8")).toThrow();
  });

  test("a lock the opener takes records its start time", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hone-lock-"));
    dirs.push(dir);
    const db = await open(dir);
    try {
      const lock = JSON.parse(readFileSync(join(dir, "hone.lock"), "utf8")) as { pid: number; started: string };
      expect(lock.pid).toBe(process.pid);
      expect(lock.started).toBe(`${bootId()}:${startOf(process.pid)}`);
    } finally {
      await db.close();
    }
  });
});
