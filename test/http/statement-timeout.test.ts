// HONE_DB_STATEMENT_TIMEOUT_MS on Postgres (PGlite accepts the setting but never fires it, so this
// runs on a Postgres database of its own even when the suite runs on PGlite).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { openDatabase, type Database } from "../../src/db/client";
import { sqlStateOf } from "../../src/core/sql-errors";
import { STATEMENT_TIMEOUT_MESSAGE, toDomainError } from "../../src/core/errors";
import { createTestApp, type TestApp } from "../helpers/app";
import { createOwnPostgresDatabase } from "../helpers/db";
import type { GqlErrorBody } from "../helpers/gql";
import type { TrpcErrorBody } from "../helpers/trpc";

const TIMEOUT_MS = 300;
let own: { url: string; drop(): Promise<void> };
let database: Database;
let t: TestApp;

beforeAll(async () => {
  own = await createOwnPostgresDatabase();
  database = await openDatabase({ databaseUrl: own.url, dataDir: "unused", dbPoolSize: 3, dbStatementTimeoutMs: TIMEOUT_MS });
  t = await createTestApp({ env: { HONE_DB_STATEMENT_TIMEOUT_MS: String(TIMEOUT_MS) }, deps: { database } });
});
afterAll(async () => {
  await t?.close();
  await database?.close();
  await own?.drop();
});

const rowsOf = (r: unknown): Record<string, unknown>[] => (Array.isArray(r) ? r : (r as { rows: Record<string, unknown>[] }).rows);

describe("statement_timeout", () => {
  test("every pooled session has it, and a slow statement is cancelled with SQLSTATE 57014", async () => {
    expect(rowsOf(await database.db.execute(sql`show statement_timeout`))[0]).toEqual({ statement_timeout: `${TIMEOUT_MS}ms` });
    const started = performance.now();
    const err = await database.db.execute(sql`select pg_sleep(5)`).then(
      () => null,
      (e: unknown) => e,
    );
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(sqlStateOf(err)).toBe("57014");
    const domain = toDomainError(err);
    expect(domain.code).toBe("UNAVAILABLE");
    expect(domain.message).toBe(STATEMENT_TIMEOUT_MESSAGE);
  });

  test("a request whose query runs past the timeout is a clear 503 on REST, tRPC and GraphQL", async () => {
    // Another session holds the datasets table; the request's query waits on the lock until the
    // timeout cancels it (lock waits count towards statement_timeout).
    const holder = postgres(own.url, { max: 1, onnotice: () => {} });
    try {
      await holder.begin(async (tx) => {
        await tx`lock table datasets in access exclusive mode`;

        const rest = await t.request("GET", "/api/v1/datasets");
        expect(rest.status).toBe(503);
        expect(await rest.json()).toEqual({ message: STATEMENT_TIMEOUT_MESSAGE, code: "UNAVAILABLE", issues: [] });

        const trpc = await t.request("GET", "/trpc/datasets.list");
        const trpcBody = (await trpc.json()) as TrpcErrorBody;
        expect(trpc.status).toBe(503);
        expect(trpcBody.error.data.code).toBe("UNAVAILABLE");
        expect(trpcBody.error.message).toBe(STATEMENT_TIMEOUT_MESSAGE);

        const gql = await t.request("POST", "/graphql", { body: { query: "{ datasets { id } }" } });
        const gqlBody = (await gql.json()) as GqlErrorBody;
        expect(gqlBody.errors[0]!.extensions!.code).toBe("UNAVAILABLE");
        expect(gqlBody.errors[0]!.message).toBe(STATEMENT_TIMEOUT_MESSAGE);
      });
    } finally {
      await holder.end();
    }
    // Released: the same request answers normally.
    expect((await t.request("GET", "/api/v1/datasets")).status).toBe(200);
    expect(t.logLines.filter((l) => l.includes('"level":"error"'))).toEqual([]);
  });
});
