import { sql } from "drizzle-orm";
import type { Queryable } from "../../../db/client";
import { resultRows, sliceBounds } from "../internal";

export type PayloadSizes = { req: number; resp: number };

/**
 * Bytes of the stored payloads of these logs of the project, read before the payloads themselves:
 * kept at write time (req_bytes, resp_bytes), or measured by the database for logs written before
 * those columns (the payloads are sized there and never travel). A request's size includes its
 * original (converted reports), likewise a response's.
 */
export async function payloadSizes(
  db: Queryable,
  projectId: string,
  ids: readonly string[],
  within?: { lo: string | null; hi: string | null },
): Promise<Map<string, PayloadSizes>> {
  const out = new Map<string, PayloadSizes>();
  if (!ids.length) return out;
  // Bounds the ids are known to lie within (a day partition): both tables pruned to it.
  const bounds = (col: string) => (within ? sliceBounds(col, within) : sql``);
  const list = sql`any(string_to_array(${ids.join(",")}, ','))`;
  const rows = resultRows<{ id: string; req: number | string; resp: number | string }>(
    await db.execute(sql`
      select l.id,
        coalesce(l.req_bytes, coalesce(octet_length(b.req_payload::text), 0) + coalesce(octet_length(b.req_payload_original::text), 0)) as req,
        coalesce(l.resp_bytes, coalesce(octet_length(b.resp_payload::text), 0) + coalesce(octet_length(b.resp_payload_original::text), 0)) as resp
      from request_logs l left join request_log_bodies b on b.log_id = l.id and b.log_id = ${list}${bounds("b.log_id")}
      where l.project_id = ${projectId} and l.id = ${list}${bounds("l.id")}`),
  );
  for (const r of rows) out.set(r.id, { req: Number(r.req), resp: Number(r.resp) });
  return out;
}
