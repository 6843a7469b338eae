import { sql } from "drizzle-orm";
import { type Ctx, dbOf } from "../context";
import { DomainError, parseInput } from "../../core/errors";
import { checkPageSize } from "../../core/limits";
import { csvCell, logIdAt, resultRows, classMapFromLogs, classMapOfColumns, numberMap, readRollupState } from "../logs";
import { type InvoiceLine, InvoiceLinesInput } from "./schemas";
import { classFigures } from "../pricing";

const DAY_MS = 86_400_000;
/** (day, provider, model) groups one answer may hold. */
export const MAX_INVOICE_GROUPS = 20_000;

type Group = { day: string; provider: string | null; model: string | null; cost: number | string; cl: unknown };

/**
 * The project's spend in the shape of a provider invoice's line items: one line per UTC day,
 * provider, model and token class, with its tokens and cost (class `compute`: seconds of call time
 * priced per hour). Every call counts, Hone's own
 * included (the provider bills them too). A cost that logs older than the token classes hold is
 * a line of class `unsplit`; tokens without a price have a null cost. Whole days the usage
 * rollups have closed are read from them, the rest from the logs.
 */
export async function invoiceLines(ctx: Ctx, raw: InvoiceLinesInput): Promise<InvoiceLine[]> {
  const input = parseInput(InvoiceLinesInput, raw);
  const db = dbOf(ctx);
  const from = input.from.getTime();
  const to = input.to.getTime();
  const state = await readRollupState(db);
  const usable = state?.closedUntil && state.tagKey === ctx.deps.config.usageTagKey;
  // Days wholly closed come from usage_daily; the others from the logs.
  const split = usable ? Math.max(from, Math.min(to, Math.floor(state!.closedUntil!.getTime() / DAY_MS) * DAY_MS)) : from;
  const iso = (ms: number) => new Date(ms).toISOString();
  const parts = [];
  if (split > from) {
    parts.push(sql`select to_char(day at time zone 'UTC', 'YYYY-MM-DD') as day, provider, model, sum(cost_usd)::float8 as cost, ${classMapOfColumns()} as cl
      from usage_daily where project_id = ${ctx.projectId} and day >= ${iso(from)}::timestamptz and day < ${iso(split)}::timestamptz
      group by 1, 2, 3`);
  }
  if (to > split) {
    const day = sql`to_char(to_timestamp((('x' || lpad(substr(id, 5, 12), 16, '0'))::bit(64)::bigint / ${DAY_MS}) * 86400) at time zone 'UTC', 'YYYY-MM-DD')`;
    parts.push(sql`select ${day} as day, provider, model, coalesce(sum(cost_usd), 0)::float8 as cost, ${classMapFromLogs()} as cl
      from request_logs where project_id = ${ctx.projectId} and id >= ${logIdAt(new Date(split))} and id < ${logIdAt(new Date(to))}
      group by 1, 2, 3`);
  }
  const groups = resultRows<Group>(
    await db.execute(
      sql`select * from (${sql.join(parts, sql` union all `)}) g order by day, provider nulls last, model nulls last limit ${MAX_INVOICE_GROUPS + 1}`,
    ),
  );
  if (groups.length > MAX_INVOICE_GROUPS) {
    throw new DomainError("VALIDATION", `More than ${MAX_INVOICE_GROUPS} days × models in this range: ask for a shorter one`, {
      issues: [{ message: "the range holds too many day and model lines", path: ["to"] }],
    });
  }
  const lines: InvoiceLine[] = [];
  for (const g of groups) {
    let inClasses = 0;
    for (const f of classFigures(numberMap(g.cl))) {
      inClasses += f.costUsd ?? 0;
      lines.push(line(g, f.tokenClass, f.tokens, f.costUsd));
    }
    const rest = Number(g.cost) - inClasses;
    if (Math.abs(rest) > 1e-9) lines.push(line(g, "unsplit", 0, rest));
  }
  return lines;
}

const line = (g: Group, tokenClass: string, tokens: number, costUsd: number | null): InvoiceLine => ({
  day: g.day,
  provider: g.provider,
  model: g.model,
  tokenClass,
  tokens,
  costUsd,
  cursor: Buffer.from(JSON.stringify([g.day, g.provider, g.model, tokenClass])).toString("base64url"),
});

/**
 * A page of the range's invoice lines, in their order (day, provider, model, token class): at most
 * `first` (default and ceiling HONE_MAX_PAGE_SIZE), after the line whose `cursor` is `after` (one no
 * longer in the range, a 400 saying so). The range is computed whole each time (bounded by
 * MAX_INVOICE_GROUPS), so a page costs what the range costs; `invoiceCsv` writes all of them.
 */
export async function invoiceLinePage(ctx: Ctx, raw: InvoiceLinesInput): Promise<InvoiceLine[]> {
  const input = parseInput(InvoiceLinesInput, raw);
  const max = ctx.deps.config.maxPageSize;
  checkPageSize(input.first, max);
  const lines = await invoiceLines(ctx, raw);
  let start = 0;
  if (input.after) {
    const at = lines.findIndex((l) => l.cursor === input.after);
    if (at < 0) {
      const message = "after: not the cursor of a line in this range (asked with another range, or the lines changed); start again from the first page";
      throw new DomainError("VALIDATION", message, { issues: [{ message, path: ["after"] }] });
    }
    start = at + 1;
  }
  return lines.slice(start, start + (input.first ?? max));
}

export const INVOICE_CSV_COLUMNS = ["day", "provider", "model", "token_class", "tokens", "cost_usd"] as const;

/** The lines as CSV (a header first; RFC 4180). */
export function invoiceCsv(lines: InvoiceLine[]): string {
  return `${[INVOICE_CSV_COLUMNS.join(","), ...lines.map((l) => [l.day, l.provider, l.model, l.tokenClass, l.tokens, l.costUsd].map(csvCell).join(","))].join("\r\n")}\r\n`;
}
