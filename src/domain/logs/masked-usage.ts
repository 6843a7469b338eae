import { sql } from "drizzle-orm";
import { type Ctx, dbOf } from "../context";
import { logIdAt, resultRows } from "./internal";
import { statsWindow, StatsWindowInput } from "../stats-window";
import { verb } from "../verb";

/** Masked values in a window, by kind: how many logs held the kind and how many values of it were masked (never the values). */
export type MaskedKindUsage = { kind: string; logs: number; values: number };

export const maskedUsage = verb({
  name: "maskedUsage",
  description: "What masking kept out of the project's logs in a window (default the last 24 hours, at most 31 days), by kind: logs and values",
  kind: "query",
  role: "viewer",
  input: StatsWindowInput,
  run: async (ctx: Ctx, raw: StatsWindowInput): Promise<MaskedKindUsage[]> => {
    const { from, to } = statsWindow(ctx, raw);
    const rows = resultRows<{ kind: string; logs: number | string; values: number | string }>(
      await dbOf(ctx).execute(sql`
      select k.key as kind, count(*)::int as logs, sum(case when jsonb_typeof(k.value) = 'number' then (k.value)::text::bigint else 0 end)::float8 as values
      from request_logs l cross join lateral jsonb_each(l.masked) k
      where l.project_id = ${ctx.projectId} and l.masked is not null and l.id >= ${logIdAt(from)} and l.id < ${logIdAt(new Date(to.getTime() + 1))}
      group by k.key order by 3 desc, 1 limit 200`),
    );
    return rows.map((r) => ({ kind: r.kind, logs: Number(r.logs), values: Number(r.values) }));
  },
});
