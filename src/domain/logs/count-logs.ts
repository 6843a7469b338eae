import { sql } from "drizzle-orm";
import { z } from "zod";
import { dbOf, type Ctx } from "../context";
import { requestLogs } from "../../db/schema";
import { parseInput } from "../../core/errors";
import { LOG_COUNT_EXACT_LIMIT } from "../../core/limits";
import { LogFilter } from "./inputs";
import { logConditions, resultRows, whereAll } from "./internal";

export const CountLogsInput = z.strictObject({ filter: LogFilter.nullish() });
export type CountLogsInput = z.input<typeof CountLogsInput>;

/**
 * How many logs match a filter: exact up to LOG_COUNT_EXACT_LIMIT (a count of at most that many
 * rows plus one, so it never reads more), and beyond it the planner's row estimate of the filtered
 * query (EXPLAIN, no rows read), never below the bound, with `exact: false`.
 */
export async function countLogs(ctx: Ctx, raw: CountLogsInput): Promise<{ count: number; exact: boolean }> {
  const input = parseInput(CountLogsInput, raw);
  const db = dbOf(ctx);
  const where = whereAll(logConditions(ctx.projectId, input.filter));
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(sql`(select 1 from ${requestLogs} where ${where} limit ${LOG_COUNT_EXACT_LIMIT + 1}) as bounded`);
  const n = Number(row?.n ?? 0);
  if (n <= LOG_COUNT_EXACT_LIMIT) return { count: n, exact: true };
  const plan = resultRows<{ "QUERY PLAN": unknown }>(await db.execute(sql`explain (format json) select 1 from ${requestLogs} where ${where}`));
  const estimate = planRows(plan[0]?.["QUERY PLAN"]);
  return { count: Math.max(LOG_COUNT_EXACT_LIMIT + 1, Math.round(estimate)), exact: false };
}

function planRows(plan: unknown): number {
  const parsed = typeof plan === "string" ? JSON.parse(plan) : plan;
  const top = Array.isArray(parsed) ? parsed[0] : parsed;
  const rows = (top as { Plan?: { "Plan Rows"?: unknown } } | undefined)?.Plan?.["Plan Rows"];
  return typeof rows === "number" && Number.isFinite(rows) ? rows : 0;
}
