import { rmSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import postgres from "postgres";
import { migrateDatabase, openDatabase, pgliteOptions, wrapPglite, type Database } from "../../src/db/client";

/** The Postgres server tests run against, when the suite is run with DATABASE_URL. */
export const TEST_DATABASE_URL = process.env.DATABASE_URL || undefined;

export type TestDatabase = {
  database: Database;
  /** Set on Postgres: the URL of this file's own database (for spawning a real server on it). */
  url?: string;
  drop(): Promise<void>;
};

// One migrated PGlite per process; each test file works on its own clone of it.
const templateKey = Symbol.for("hone.test.pgliteTemplate");
type WithTemplate = typeof globalThis & { [templateKey]?: Promise<PGlite> };

async function pgliteTemplate(): Promise<PGlite> {
  const g = globalThis as WithTemplate;
  g[templateKey] ??= (async () => {
    const pg = new PGlite("memory://", await pgliteOptions());
    await pg.waitReady;
    await migrateDatabase(await wrapPglite(pg));
    return pg;
  })();
  return g[templateKey];
}

// On Postgres, likewise: one database per process is migrated, and each test file's database is
// created from it as a template (a file copy, much faster than migrating each from scratch). It is
// dropped after the last test file (test/helpers/preload.ts).
const pgTemplateKey = Symbol.for("hone.test.postgresTemplate");
type WithPgTemplate = typeof globalThis & { [pgTemplateKey]?: Promise<string> };

async function postgresTemplate(server: string): Promise<string> {
  const g = globalThis as WithPgTemplate;
  g[pgTemplateKey] ??= (async () => {
    const name = `hone_tpl_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
    await adminRun(server, `create database "${name}"`);
    const url = new URL(server);
    url.pathname = `/${name}`;
    // Opening migrates; a template must have no connection left when a database is created from it.
    const database = await openDatabase({ databaseUrl: url.toString(), dataDir: "unused", dbPoolSize: 1 });
    await database.close();
    return name;
  })();
  return g[pgTemplateKey];
}

// Paths a test run made for all its files (the browser tests' migrated data directory): removed
// after the last file (test/helpers/preload.ts). A process "exit" handler does not run under bun test.
const leftoversKey = Symbol.for("hone.test.removeAtEnd");
type WithLeftovers = typeof globalThis & { [leftoversKey]?: Set<string> };

/** Removes `path` after the run's last test file. */
export function removeAtEnd(path: string): void {
  const g = globalThis as WithLeftovers;
  (g[leftoversKey] ??= new Set()).add(path);
}

/** Removes what removeAtEnd was given. */
export function removeLeftovers(): void {
  const g = globalThis as WithLeftovers;
  for (const path of g[leftoversKey] ?? []) rmSync(path, { recursive: true, force: true });
  g[leftoversKey]?.clear();
}

/** Drops this process's migrated Postgres template, if it made one. */
export async function dropPostgresTemplate(): Promise<void> {
  const g = globalThis as WithPgTemplate;
  const made = g[pgTemplateKey];
  if (!made || !TEST_DATABASE_URL) return;
  g[pgTemplateKey] = undefined;
  await dropDatabase(TEST_DATABASE_URL, await made);
}

async function adminRun(server: string, statement: string): Promise<void> {
  const admin = postgres(server, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(statement);
  } finally {
    await admin.end();
  }
}

/** A fresh, migrated, empty database for one test file. */
export async function createTestDatabase(): Promise<TestDatabase> {
  if (!TEST_DATABASE_URL) {
    const clone = (await (await pgliteTemplate()).clone()) as PGlite;
    const database = await wrapPglite(clone);
    return { database, drop: () => database.close() };
  }
  const empty = await createDatabaseOn(TEST_DATABASE_URL, await postgresTemplate(TEST_DATABASE_URL));
  const database = await openDatabase({ databaseUrl: empty.url, dataDir: "unused", dbPoolSize: 5 }, { migrate: false });
  return {
    database,
    url: empty.url,
    async drop() {
      await database.close();
      await empty.drop();
    },
  };
}

/** A fresh migrated database on the suite's Postgres server (from the template), for a real process. */
export async function createMigratedPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  if (!TEST_DATABASE_URL) throw new Error("needs DATABASE_URL");
  return createDatabaseOn(TEST_DATABASE_URL, await postgresTemplate(TEST_DATABASE_URL));
}

/** A fresh empty database on the server (not migrated), for tests that start real processes on it. */
export async function createEmptyPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  if (!TEST_DATABASE_URL) throw new Error("needs DATABASE_URL");
  return createDatabaseOn(TEST_DATABASE_URL);
}

/**
 * The same on a Postgres server even when the suite runs on PGlite (the suite's server, else the
 * local one), for what only exists on Postgres: the server's log-writer and job threads.
 */
export function createOwnPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  return createDatabaseOn(TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres");
}

async function createDatabaseOn(server: string, template?: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `hone_test_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  await adminRun(server, `create database "${name}"${template ? ` template "${template}"` : ""}`);
  const url = new URL(server);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => dropDatabase(server, name) };
}

async function dropDatabase(server: string, name: string) {
  await adminRun(server, `drop database if exists "${name}" with (force)`);
}
