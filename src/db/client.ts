import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { PGlite } from "@electric-sql/pglite";
import type { PgAsyncDatabase, PgAsyncTransaction, PgQueryResultHKT } from "drizzle-orm/pg-core";
import type { SQL } from "drizzle-orm";
import type { Config } from "../core/config";
import { relations } from "./relations";

export type Relations = typeof relations;
/** The one database type the domain sees, whichever driver is behind it. */
export type Db = PgAsyncDatabase<PgQueryResultHKT, Relations>;
export type Tx = PgAsyncTransaction<PgQueryResultHKT, Relations>;
/** A connection or a transaction: what a domain verb runs its queries on. */
export type Queryable = Db | Tx;

export type Database = {
  db: Db;
  kind: "pglite" | "postgres";
  /** The server URL, on Postgres. */
  url?: string;
  close(): Promise<void>;
};

export const MIGRATIONS_FOLDER = resolve(import.meta.dir, "../../schema/migrations");

import { ownStartTime, processAlive } from "../lib/process-identity";

export class DataDirLockedError extends Error {
  override name = "DataDirLockedError";
}

const LOCK_FILE = "hone.lock";

/**
 * PGlite is a single-process database: two processes opening one data directory corrupt it.
 * A pid file in the directory guards it; a lock left by a dead process is taken over.
 */
function lockDataDir(dataDir: string, owner: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, LOCK_FILE);
  if (existsSync(path)) {
    const held = parseLock(readFileSync(path, "utf8"));
    if (held && held.pid !== process.pid && processAlive(held)) {
      throw new DataDirLockedError(
        `The data directory ${resolve(dataDir)} is in use by ${held.owner} (pid ${held.pid}). ` +
          `The embedded database allows one process at a time: stop that process first, ` +
          `or use DATABASE_URL with a Postgres server to run several.`,
      );
    }
  }
  const started = ownStartTime();
  writeFileSync(path, JSON.stringify({ pid: process.pid, owner, ...(started ? { started } : {}) }), { mode: 0o600 });
  return () => {
    try {
      const held = parseLock(readFileSync(path, "utf8"));
      if (held?.pid === process.pid) rmSync(path);
    } catch {
      // already gone
    }
  };
}

function parseLock(text: string): { pid: number; owner: string; started?: string } | null {
  try {
    const v = JSON.parse(text) as { pid?: unknown; owner?: unknown; started?: unknown };
    if (typeof v.pid !== "number") return null;
    return { pid: v.pid, owner: String(v.owner ?? "another process"), ...(typeof v.started === "string" ? { started: v.started } : {}) };
  } catch {
    return null;
  }
}

export function isMemoryDataDir(dataDir: string): boolean {
  return dataDir.startsWith("memory://");
}

/** Opens the configured database and applies pending migrations. */
export async function openDatabase(
  config: Pick<Config, "databaseUrl" | "dataDir" | "dbPoolSize"> & Partial<Pick<Config, "dbStatementTimeoutMs">>,
  opts: { owner?: string; migrate?: boolean } = {},
): Promise<Database> {
  // PGlite accepts `SET statement_timeout` but never fires it (its single-threaded WASM backend has
  // no timer interrupt: pg_sleep(1) under a 100 ms timeout runs the full second), so the timeout is
  // a Postgres-only guard.
  const database = config.databaseUrl
    ? await openPostgres(config.databaseUrl, config.dbPoolSize, config.dbStatementTimeoutMs ?? 0)
    : await openPglite(config.dataDir, opts.owner ?? "hone");
  if (opts.migrate !== false) {
    try {
      await migrateDatabase(database);
    } catch (err) {
      await database.close();
      throw err;
    }
  }
  return database;
}

async function openPglite(dataDir: string, owner: string): Promise<Database> {
  const { PGlite } = await import("@electric-sql/pglite");
  const memory = isMemoryDataDir(dataDir);
  const unlock = memory ? () => {} : lockDataDir(dataDir, owner);
  try {
    const client = new PGlite(memory ? dataDir : resolve(dataDir, "pgdata"), await pgliteOptions());
    await client.waitReady;
    return wrapPglite(client, unlock);
  } catch (err) {
    unlock();
    throw err;
  }
}

/** What every PGlite instance is opened with: pg_trgm, for the logs' text index. */
export async function pgliteOptions() {
  const { pg_trgm } = await import("@electric-sql/pglite/contrib/pg_trgm");
  return { extensions: { pg_trgm } };
}

/** Wraps an open PGlite instance (tests hand in clones of a migrated template). */
export async function wrapPglite(client: PGlite, onClose: () => void = () => {}): Promise<Database> {
  const { drizzle } = await import("drizzle-orm/pglite");
  const db = drizzle({ client, relations }) as unknown as Db;
  return {
    db,
    kind: "pglite",
    async close() {
      try {
        await client.close();
      } finally {
        onClose();
      }
    },
  };
}

async function openPostgres(url: string, poolSize: number, statementTimeoutMs: number): Promise<Database> {
  const { default: postgres } = await import("postgres");
  const { drizzle } = await import("drizzle-orm/postgres-js");
  const client = postgres(url, {
    max: poolSize,
    onnotice: () => {},
    // Hone's own connections are short-lived queries; a stuck server should not hang a request forever.
    connect_timeout: 10,
    // Sent in the startup message, so every connection of the pool has it from its first query and
    // one expensive request cannot hold a connection (and the server's CPU) for minutes. Migrations
    // run on a connection of their own without it (below): a long migration must not be cut off.
    connection: { statement_timeout: statementTimeoutMs },
  });
  try {
    await client`select 1`;
  } catch (err) {
    await client.end({ timeout: 1 });
    throw err;
  }
  const db = drizzle({ client, relations }) as unknown as Db;
  return {
    db,
    kind: "postgres",
    url,
    async close() {
      await client.end({ timeout: 5 });
    },
  };
}

/**
 * Applies every migration to an empty Postgres database in one transaction and one simple-protocol
 * query, and records each one in the migrator's table exactly as the migrator itself would (its
 * sha256 hash, folder time and name), so that later starts see them as applied.
 */
async function applyAllAtOnce(client: import("postgres").Sql, migrationsFolder: string): Promise<void> {
  const { readMigrationFiles } = await import("drizzle-orm/migrator");
  const migrations = readMigrationFiles({ migrationsFolder });
  await client.begin(async (tx) => {
    await tx
      .unsafe(
        `create schema if not exists drizzle;
        create table if not exists drizzle.__drizzle_migrations (
          id serial primary key, hash text not null, created_at bigint, name text, applied_at timestamp with time zone default now());
        ${migrations.map((m) => m.sql.join("\n;\n")).join("\n;\n")}`,
      )
      .simple();
    await tx`insert into drizzle.__drizzle_migrations (hash, created_at, name)
      select h, c, n from unnest(${migrations.map((m) => m.hash)}::text[], ${migrations.map((m) => String(m.folderMillis))}::bigint[],
        ${migrations.map((m) => m.name ?? null)}::text[]) with ordinality as u(h, c, n, o) order by o`;
  });
}

/**
 * Applies schema/migrations. On Postgres an advisory lock serialises concurrent starts, so several
 * Hone processes booting at once against one server migrate exactly once.
 */
export async function migrateDatabase(database: Database, opts: { migrationsFolder?: string } = {}): Promise<void> {
  const migrationsFolder = opts.migrationsFolder ?? MIGRATIONS_FOLDER;
  if (database.kind === "pglite") {
    const { migrate } = await import("drizzle-orm/pglite/migrator");
    await migrate(database.db as never, { migrationsFolder });
    return;
  }
  const { migrate } = await import("drizzle-orm/postgres-js/migrator");
  const { drizzle } = await import("drizzle-orm/postgres-js");
  const { default: postgres } = await import("postgres");
  // One connection: the advisory lock belongs to the session that took it.
  const client = postgres(database.url!, { max: 1, onnotice: () => {}, connection: { statement_timeout: 0 } });
  try {
    await client`select pg_advisory_lock(7263845001)`;
    // An empty database gets every migration in one round trip (statement by statement, the way
    // the migrator applies them, a fresh start spent a third of a second more on round trips);
    // the migrator then finds them all applied (and would apply any it did not find).
    const [empty] = await client`select to_regclass('drizzle.__drizzle_migrations') is null as fresh`;
    if (empty?.fresh) await applyAllAtOnce(client, migrationsFolder);
    await migrate(drizzle({ client, relations }), { migrationsFolder });
  } finally {
    await client.end({ timeout: 5 });
  }
}

/**
 * Runs a statement as a named prepared statement: on Postgres the server parses and plans it once
 * per connection (postgres.js keeps it by its text), where Drizzle's `execute` sends every raw
 * statement unnamed, so it is parsed, described and planned each time, in two round trips. For
 * statements whose text never varies (the values go in parameters): each distinct text is kept
 * for the connection's life, on both sides. PGlite runs it as `execute` would.
 */
export function executePrepared(db: Queryable, query: SQL): Promise<unknown> {
  // Drizzle's own `execute`, with a statement name: its session and dialect are what it uses.
  const d = db as unknown as {
    session: { prepareQuery(q: unknown, mode: "raw", name: string | false): { execute(): Promise<unknown> } };
    dialect: { sqlToQuery(q: SQL): unknown };
  };
  return d.session.prepareQuery(d.dialect.sqlToQuery(query), "raw", "prepared").execute();
}
