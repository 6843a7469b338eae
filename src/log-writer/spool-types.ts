import type { Logger } from "../core/logger";

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

export type SpoolOutcome = "stored" | "dropped" | "deferred";

export type Segment = {
  path: string;
  fd: number | null;
  bytes: number;
  records: number;
  /** Logs appended and not yet stored or given up on. */
  outstanding: number;
  sealed: boolean;
  /** Some log of it was deferred: the whole segment is replayed before it goes. */
  replay: boolean;
  /** Written since its last fsync. */
  dirty: boolean;
  openedAt: number;
  /** The directory of a stopped process it was taken over from (it goes with its last segment). */
  adoptedFrom?: string;
};

/** Where a spooled log is: handed back with its outcome. */
export type SpoolMark = { readonly segment: unknown };

export type SpoolStats = {
  /** Bytes of the segments on disk. */
  bytes: number;
  segments: number;
  /** Segments waiting to be read back into the database. */
  awaitingReplay: number;
  /** Logs stored from a replay since start. */
  replayed: number;
  /** Logs not spooled since start (the spool was full or could not be written). */
  unspooled: number;
};

export type Spool = {
  /** Appends a log row; null when it was not spooled (past the size cap, or the disk failed). */
  append(row: string): SpoolMark | null;
  /** Resolves once everything appended so far is fsync'ed. */
  synced(): Promise<void>;
  /** What became of spooled logs (in any order). */
  settle(marks: readonly (SpoolMark | null | undefined)[], outcome: SpoolOutcome): void;
  stats(): SpoolStats;
  /** Resolves when no segment waits for a replay (or after timeoutMs). */
  drained(timeoutMs?: number): Promise<boolean>;
  /** Seals and syncs the open segment and stops the timers; segments still holding logs stay for the next start. */
  close(): Promise<void>;
};

export type SpoolOptions = {
  /** HONE_SPOOL_DIR: the directory holding one directory per process. */
  root: string;
  /**
   * Which database the logs belong to (spoolDatabaseKey): a process takes over only the
   * directories of its own database, never another's sharing the directory.
   */
  database: string;
  /** HONE_SPOOL_MAX_BYTES: past it, logs are not spooled (and counted). */
  maxBytes: number;
  /** The longest a spooled log waits for its fsync. */
  syncMs: number;
  segmentBytes?: number;
  segmentMs?: number;
  /** How often directories of processes that are gone are looked for. */
  adoptEveryMs?: number;
  logger: Logger;
  /** Stores rows idempotently (a row whose id is stored is skipped). */
  store(rows: string[]): Promise<void>;
};
