import { afterAll, expect, test } from "bun:test";
import { drizzle } from "drizzle-orm/postgres-js";
import { migrate } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import { MIGRATIONS_FOLDER, openDatabase } from "../../src/db/client";
import { createOwnPostgresDatabase } from "../helpers/db";

// An empty Postgres database gets every migration in one round trip (src/db/client.ts,
// applyAllAtOnce): the result must be what Drizzle's own migrator makes, table by table and row by
// row of its bookkeeping, so that later starts (and later migrations) carry on from it.
const made: { drop(): Promise<void> }[] = [];
afterAll(async () => {
  for (const d of made) await d.drop();
});

const columns = (sql: postgres.Sql) =>
  sql`select table_schema, table_name, column_name, data_type, is_nullable, column_default
      from information_schema.columns where table_schema in ('public', 'drizzle') order by 1, 2, 3`;
const indexes = (sql: postgres.Sql) => sql`select schemaname, tablename, indexname, indexdef from pg_indexes where schemaname = 'public' order by 1, 2, 3`;
const constraints = (sql: postgres.Sql) =>
  sql`select conrelid::regclass::text as t, conname, pg_get_constraintdef(oid) as def from pg_constraint
      where connamespace = 'public'::regnamespace order by 1, 2`;
const journal = (sql: postgres.Sql) => sql`select id, hash, created_at::text, name from drizzle.__drizzle_migrations order by id`;

test("a fresh database migrated at once equals one migrated statement by statement, and a restart applies nothing", async () => {
  const fast = await createOwnPostgresDatabase();
  const slow = await createOwnPostgresDatabase();
  made.push(fast, slow);
  const opened = await openDatabase({ databaseUrl: fast.url, dataDir: "unused", dbPoolSize: 1 });
  await opened.close();
  const slowClient = postgres(slow.url, { max: 1, onnotice: () => {} });
  const fastClient = postgres(fast.url, { max: 1, onnotice: () => {} });
  try {
    await migrate(drizzle({ client: slowClient }), { migrationsFolder: MIGRATIONS_FOLDER });
    for (const read of [columns, indexes, constraints, journal]) {
      const [a, b] = [await read(fastClient), await read(slowClient)];
      expect(a.length).toBeGreaterThan(0);
      expect([...a]).toEqual([...b]);
    }
    // A second start finds every migration applied: nothing is added to the journal.
    const before = (await journal(fastClient)).length;
    const again = await openDatabase({ databaseUrl: fast.url, dataDir: "unused", dbPoolSize: 1 });
    await again.close();
    expect((await journal(fastClient)).length).toBe(before);
  } finally {
    await slowClient.end();
    await fastClient.end();
  }
}, 60_000);

test("a migration that fails leaves the empty database empty, and says why", async () => {
  const db = await createOwnPostgresDatabase();
  made.push(db);
  const client = postgres(db.url, { max: 1, onnotice: () => {} });
  try {
    // A table in the way of the first migration: the whole batch is rolled back, journal included.
    await client`create table projects (x int)`;
    await expect(openDatabase({ databaseUrl: db.url, dataDir: "unused", dbPoolSize: 1 })).rejects.toThrow(/projects/);
    const [left] = await client`select to_regclass('drizzle.__drizzle_migrations') as t, to_regclass('public.datasets') as d`;
    expect(left).toEqual({ t: null, d: null });
  } finally {
    await client.end();
  }
}, 60_000);
