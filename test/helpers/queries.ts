import type { Db } from "../../src/db/client";

/** Runs fn and returns the SQL statements Drizzle sent meanwhile (through its logger hook). */
export async function captureQueries<T>(db: Db, fn: () => Promise<T>): Promise<{ result: T; queries: string[] }> {
  const logger = (db as unknown as { session: { logger: { logQuery(q: string, p: unknown[]): void } } }).session.logger;
  const saved = logger.logQuery;
  const queries: string[] = [];
  logger.logQuery = (q: string) => {
    queries.push(q);
  };
  try {
    return { result: await fn(), queries };
  } finally {
    logger.logQuery = saved;
  }
}
