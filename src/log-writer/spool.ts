import { closeSync, fdatasync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, writevSync } from "node:fs";
import { join } from "node:path";
import { isConnectionError } from "../core/sql-errors";
import { errorFields } from "../core/logger";
import { HEADER, isDirectory, OWNER_FILE, ownedByGone, readRecords, writeOwner } from "./spool-files";
import type { Segment, Spool, SpoolMark, SpoolOptions, SpoolOutcome, SpoolStats } from "./spool-types";
export type { Spool, SpoolMark, SpoolOptions, SpoolOutcome, SpoolStats };
export { readRecords };

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

/** A replayed batch unanswered this long is taken as the database away (a driver can hang on a dead connection). */
const STORE_DEADLINE_MS = 30_000;

/** `p`, or an ETIMEDOUT error (a connection error) when it has not settled within `ms`. */
export async function answered<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error(`no answer from the database in ${ms} ms`), { code: "ETIMEDOUT" })), ms);
  });
  p.catch(() => {});
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}
const REPLAY_BATCH = 250;
const REPLAY_BATCH_BYTES = 4 * 1024 * 1024;

export function openSpool(opts: SpoolOptions): Spool {
  const segmentBytes = opts.segmentBytes ?? 4 * 1024 * 1024;
  const segmentMs = opts.segmentMs ?? 1_000;
  const { logger } = opts;
  mkdirSync(opts.root, { recursive: true });
  // Made whole under a hidden name, then renamed: another process never sees it without its owner.
  // Random too: two spools opened in one millisecond by one process (threads share the pid) differ.
  const name = `p${process.pid}-${Date.now().toString(36)}-${crypto.randomUUID().slice(0, 8)}`;
  const own = join(opts.root, name);
  const making = join(opts.root, `.${name}`);
  mkdirSync(making, { recursive: true });
  writeOwner(making, opts.database);
  renameSync(making, own);

  const segments: Segment[] = [];
  const replayQueue: Segment[] = [];
  let current: Segment | null = null;
  let counter = 0;
  let bytes = 0;
  let replayed = 0;
  let unspooled = 0;
  let failedWrite = false;
  let closed = false;

  const openSegment = (): Segment => {
    const path = join(own, `seg-${String(++counter).padStart(8, "0")}.spool`);
    const fd = openSync(path, "a", 0o600);
    const s: Segment = { path, fd, bytes: 0, records: 0, outstanding: 0, sealed: false, replay: false, dirty: false, openedAt: Date.now() };
    segments.push(s);
    return s;
  };

  const remove = (s: Segment) => {
    const i = segments.indexOf(s);
    if (i >= 0) segments.splice(i, 1);
    bytes -= s.bytes;
    try {
      rmSync(s.path, { force: true });
      // An adopted directory goes with its last segment.
      const from = s.adoptedFrom;
      if (from && !segments.some((x) => x.adoptedFrom === from)) rmSync(from, { recursive: true, force: true });
    } catch (err) {
      logger.warn("spool segment could not be removed", { path: s.path, ...errorFields(err) });
    }
  };

  /** A sealed, synced segment with no log outstanding goes, or is queued for its replay. */
  const retire = (s: Segment) => {
    if (!s.sealed || s.outstanding > 0 || s.fd !== null || replayQueue.includes(s)) return;
    if (!s.replay) return remove(s);
    replayQueue.push(s);
    void runReplays();
  };

  const seal = (s: Segment) => {
    s.sealed = true;
    if (current === s) current = null;
    // Closed after its last sync (below); an empty one at once.
    if (!s.dirty && s.fd !== null) {
      closeSync(s.fd);
      s.fd = null;
      retire(s);
    }
  };

  // Group commit: one fdatasync per dirty segment every syncMs, on libuv's threads. `appended`
  // counts records written; `durable`, those covered by a finished fsync.
  let appended = 0;
  let durable = 0;
  let syncing: Promise<void> = Promise.resolve();
  let waiters: { upTo: number; resolve: () => void }[] = [];
  let syncTimer: ReturnType<typeof setTimeout> | null = null;
  const syncNow = async () => {
    syncTimer = null;
    const upTo = appended;
    const dirty = segments.filter((s) => s.dirty && s.fd !== null);
    for (const s of dirty) s.dirty = false;
    await Promise.all(
      dirty.map(
        (s) =>
          new Promise<void>((resolve) =>
            fdatasync(s.fd!, (err) => {
              if (err) logger.error("spool fsync failed", { path: s.path, ...errorFields(err) });
              resolve();
            }),
          ),
      ),
    );
    durable = Math.max(durable, upTo);
    for (const s of dirty) {
      if (s.sealed && !s.dirty && s.fd !== null) {
        closeSync(s.fd);
        s.fd = null;
        retire(s);
      }
    }
    const ready = waiters.filter((w) => w.upTo <= durable);
    waiters = waiters.filter((w) => w.upTo > durable);
    for (const w of ready) w.resolve();
    if (waiters.length || segments.some((s) => s.dirty)) scheduleSync();
  };
  const scheduleSync = () => {
    if (syncTimer || closed) return;
    syncTimer = setTimeout(() => {
      syncing = syncing.then(syncNow);
    }, opts.syncMs);
  };

  // A segment is sealed once it is a second old (or full), so stored logs leave the disk soon.
  const rotateTimer = setInterval(() => {
    if (current && current.records > 0 && Date.now() - current.openedAt >= segmentMs) seal(current);
  }, segmentMs);
  rotateTimer.unref?.();

  // ---- replays: this process's deferred segments, and the directories of processes that are gone.
  let replaying = false;
  let retryTimer: ReturnType<typeof setTimeout> | null = null;
  async function runReplays(): Promise<void> {
    if (replaying || closed) return;
    replaying = true;
    try {
      while (replayQueue.length && !closed) {
        const s = replayQueue[0]!;
        const ok = await replayFile(s.path);
        if (!ok) {
          // The database is still away: try again in a second.
          retryTimer ??= setTimeout(() => {
            retryTimer = null;
            void runReplays();
          }, 1_000);
          return;
        }
        replayQueue.shift();
        remove(s);
      }
    } finally {
      replaying = false;
    }
  }

  /** Stores every record of a file; false when the database could not be reached (the file stays). */
  async function replayFile(path: string): Promise<boolean> {
    let data: Buffer;
    try {
      data = readFileSync(path);
    } catch (err) {
      // Taken by another process meanwhile, or gone: nothing to do here.
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return true;
      throw err;
    }
    const rows = readRecords(data, path, logger);
    for (let i = 0; i < rows.length; ) {
      let n = 0;
      let size = 0;
      while (i + n < rows.length && n < REPLAY_BATCH && (n === 0 || size + rows[i + n]!.length <= REPLAY_BATCH_BYTES)) size += rows[i + n++]!.length;
      const batch = rows.slice(i, i + n);
      try {
        await storeIsolated(batch);
      } catch (err) {
        if (isConnectionError(err)) return false;
        throw err;
      }
      replayed += batch.length;
      i += n;
    }
    return true;
  }

  /** A batch the database refuses (not for being away) is halved until the bad row is alone; it is skipped. */
  async function storeIsolated(rows: string[]): Promise<void> {
    try {
      await answered(opts.store(rows), STORE_DEADLINE_MS);
    } catch (err) {
      if (isConnectionError(err)) throw err;
      if (rows.length === 1) {
        replayed--;
        logger.warn("spooled log skipped: the database rejected it", { logId: rows[0]!.slice(7, rows[0]!.indexOf('"', 7)), ...errorFields(err) });
        return;
      }
      const mid = Math.ceil(rows.length / 2);
      await storeIsolated(rows.slice(0, mid));
      await storeIsolated(rows.slice(mid));
    }
  }

  /** Takes over the spool directories of processes that are gone: their segments are replayed. */
  const adopt = () => {
    let names: string[];
    try {
      names = readdirSync(opts.root);
    } catch {
      return;
    }
    for (const name of names) {
      const dir = join(opts.root, name);
      if (dir === own || name.startsWith(".") || !isDirectory(dir) || !ownedByGone(dir, opts.database)) continue;
      // Claimed by renaming it into this process's directory: one process wins the rename.
      const claimed = join(own, `adopted-${name}`);
      try {
        renameSync(dir, claimed);
      } catch {
        continue;
      }
      // Its own adopted directories too (it died while replaying them).
      const files = (readdirSync(claimed, { recursive: true }) as string[]).filter((f) => f.endsWith(".spool")).sort();
      for (const f of files) {
        const path = join(claimed, f);
        const size = statSync(path).size;
        bytes += size;
        const s: Segment = {
          path,
          fd: null,
          bytes: size,
          records: 0,
          outstanding: 0,
          sealed: true,
          replay: true,
          dirty: false,
          openedAt: 0,
          adoptedFrom: claimed,
        };
        segments.push(s);
        replayQueue.push(s);
      }
      if (!files.length) rmSync(claimed, { recursive: true, force: true });
      logger.info("spool of a stopped process taken over: its logs are stored again", { from: name, segments: files.length });
    }
    void runReplays();
  };
  const adoptTimer = setInterval(adopt, opts.adoptEveryMs ?? 5_000);
  adoptTimer.unref?.();
  adopt();

  return {
    append(row) {
      if (closed || failedWrite) {
        unspooled++;
        return null;
      }
      const body = Buffer.from(row);
      const size = HEADER + body.length;
      if (bytes + size > opts.maxBytes) {
        unspooled++;
        return null;
      }
      current ??= openSegment();
      const s = current;
      const header = Buffer.allocUnsafe(HEADER);
      header.writeUInt32LE(body.length, 0);
      header.writeUInt32LE(Bun.hash.crc32(body), 4);
      try {
        writevSync(s.fd!, [header, body]);
      } catch (err) {
        // A full or failing disk: logs go on to the database unspooled, and it is said once.
        failedWrite = true;
        unspooled++;
        logger.error("the log spool cannot be written: logs are no longer spooled until restart", { path: s.path, ...errorFields(err) });
        return null;
      }
      s.bytes += size;
      s.records++;
      s.outstanding++;
      s.dirty = true;
      appended++;
      bytes += size;
      if (s.bytes >= segmentBytes) seal(s);
      scheduleSync();
      return { segment: s };
    },
    synced() {
      if (durable >= appended) return Promise.resolve();
      return new Promise<void>((resolve) => {
        waiters.push({ upTo: appended, resolve });
        scheduleSync();
      });
    },
    settle(marks, outcome) {
      if (outcome === "deferred" && marks.some(Boolean)) {
        // Which of the outstanding logs were deferred is not tracked exactly across the writer
        // thread: every segment still holding logs is replayed, which stores each at most once.
        for (const s of segments) if (s.outstanding > 0) s.replay = true;
      }
      for (const m of marks) {
        if (!m) continue;
        const s = m.segment as Segment;
        s.outstanding--;
        if (outcome === "deferred") s.replay = true;
        retire(s);
      }
    },
    stats: () => ({ bytes, segments: segments.length, awaitingReplay: replayQueue.length, replayed, unspooled }),
    async drained(timeoutMs = 30_000) {
      const until = Date.now() + timeoutMs;
      while (replayQueue.length || replaying) {
        if (Date.now() > until) return false;
        await Bun.sleep(20);
      }
      return true;
    },
    async close() {
      if (current) seal(current);
      if (syncTimer) clearTimeout(syncTimer);
      syncTimer = null;
      closed = true;
      await syncing.then(syncNow);
      clearInterval(rotateTimer);
      clearInterval(adoptTimer);
      if (retryTimer) clearTimeout(retryTimer);
      for (const s of segments) {
        if (s.fd !== null) {
          closeSync(s.fd);
          s.fd = null;
        }
      }
      // Nothing left to keep: the directory goes; otherwise the next start takes it over.
      try {
        if (!segments.length) rmSync(own, { recursive: true, force: true });
        else writeFileSync(join(own, OWNER_FILE), JSON.stringify({ pid: 0, stopped: true, database: opts.database }));
      } catch (err) {
        logger.warn("spool directory could not be closed", { path: own, ...errorFields(err) });
      }
    },
  };
}
