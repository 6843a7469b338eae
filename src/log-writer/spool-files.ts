import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Logger } from "../core/logger";
import { ownStartTime, processAlive } from "../lib/process-identity";

// The durable log spool. A gateway call's log is appended to a local file before the call's last
// byte reaches the client (one write(2) on the serving thread: it survives kill -9, as the page
// cache does), and the file is fsync'ed every few milliseconds off the serving thread (group
// commit). The log then goes to the database as before; the spool only keeps it until it is
// stored. Files are segments: a new one every second or few MiB. A segment is deleted once every
// log in it is stored; a segment some of whose logs could not be stored (the database down past
// the writer's retries, its queue overflowed) is read back and stored again when the database
// answers ("replayed"; storing is idempotent by log id, so what was stored already is left alone).
//
// Layout: <root>/<instance>/seg-<n>.spool, one instance directory per process, holding an owner
// file (pid and start time). At start, and every few seconds after, a process takes over the
// directories of processes that are gone (a kill -9, a crash, an earlier run) and replays them.
// Record: [u32 byte length][u32 crc32][the log row, UTF-8]; a torn last record (a crash in the
// middle of a write) fails its length or checksum and is ignored.

export const OWNER_FILE = "owner.json";

export const HEADER = 8;

/** The rows of a segment, up to its first torn or corrupt record. */
export function readRecords(data: Buffer, path: string, logger: Logger): string[] {
  const rows: string[] = [];
  let at = 0;
  while (at + HEADER <= data.length) {
    const len = data.readUInt32LE(at);
    const crc = data.readUInt32LE(at + 4);
    const end = at + HEADER + len;
    if (end > data.length) break;
    const body = data.subarray(at + HEADER, end);
    if (Bun.hash.crc32(body) !== crc) {
      logger.warn("spool record failed its checksum: the rest of the segment is skipped", { path, offset: at });
      return rows;
    }
    rows.push(body.toString("utf8"));
    at = end;
  }
  if (at < data.length) logger.warn("spool segment ends in a torn record (a crash while writing it): it is skipped", { path, offset: at });
  return rows;
}

export function writeOwner(dir: string, database: string): void {
  writeFileSync(join(dir, OWNER_FILE), JSON.stringify({ pid: process.pid, started: ownStartTime() ?? null, database }), { mode: 0o600 });
}

/** A spool's database key: the server and database a URL names (no credentials), or the embedded database's directory, hashed. */
export function spoolDatabaseKey(config: { databaseUrl?: string | undefined; dataDir: string }): string {
  let name: string;
  if (config.databaseUrl) {
    const u = new URL(config.databaseUrl);
    name = `postgres://${u.hostname}:${u.port || "5432"}${u.pathname}`;
  } else name = `pglite:${resolve(config.dataDir)}`;
  return new Bun.CryptoHasher("sha256").update(name).digest("hex").slice(0, 24);
}

export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Whether a spool directory is this database's and its process is gone (stopped, killed, its pid
 * now another's). A directory of another database, or without a readable owner, is left alone.
 */
export function ownedByGone(dir: string, database: string): boolean {
  const file = join(dir, OWNER_FILE);
  if (!existsSync(file)) return false;
  try {
    const v = JSON.parse(readFileSync(file, "utf8")) as { pid?: unknown; started?: unknown; database?: unknown };
    if (v.database !== database) return false;
    if (typeof v.pid !== "number" || v.pid <= 0) return true;
    return !processAlive({ pid: v.pid, ...(typeof v.started === "string" ? { started: v.started } : {}) });
  } catch {
    return false;
  }
}
