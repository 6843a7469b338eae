import { createHash } from "node:crypto";
import { type SQL, sql } from "drizzle-orm";

// A log's place in every sample: a number in [0, 1) from the first 32 bits of the MD5 of its id.
// A call is in a sample of rate r when its unit is below r, so the same call is in or out of a
// sample wherever it is decided (the statement that stores it, a backfill, a test), and a sample
// of 10% holds the same calls in every monitor with that rate.

/** The unit of the id `id` (an SQL expression of a text column), in SQL. */
export function sampleUnitSql(id: SQL): SQL {
  return sql`((('x' || substr(md5(${id}), 1, 8))::bit(32)::bigint)::double precision / 4294967296.0)`;
}

/** The same unit, computed here. */
export function sampleUnit(id: string): number {
  return createHash("md5").update(id).digest().readUInt32BE(0) / 4294967296;
}
