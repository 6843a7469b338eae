import { z } from "zod";
import { createPriceOverride, CreatePriceOverrideInput, deletePriceOverride, listPriceOverrides, type PriceOverride } from "../../domain/pricing";
import { type CostRecalculation, getCostRecalculation, invoiceCsv, invoiceLinePage, invoiceLines, recalculateCosts } from "../../domain/billing";
import type { LogFilter } from "../../domain/logs";
import { DomainError, parseInput } from "../../core/errors";
import { domainLogFilter, LogFilterWire } from "../log-filter-wire";
import { route } from "./route";
import { PAGE_QUERY, pageOfQuery, pageToWire } from "./wire";
import * as W from "./wire-schemas";

const overrideToWire = (o: PriceOverride) => ({
  object: "price_override" as const,
  id: o.id,
  model: o.model,
  effective_from: o.effectiveFrom.toISOString(),
  rates: o.rates,
  multiplier: o.multiplier,
  usd_per_hour: o.usdPerHour,
  note: o.note,
  created: o.createdAt.toISOString(),
});

const recalculationToWire = (r: CostRecalculation) => ({
  object: "cost_recalculation" as const,
  id: r.id,
  status: r.status,
  total: r.total,
  done: r.done,
  changed: r.changed,
  error_message: r.errorMessage,
  created: r.createdAt.toISOString(),
  updated: r.updatedAt.toISOString(),
});

/** The body of /costs/recalculate: the wire's LogFilter (its tags are `metadata`). */
const RecalculateWire = z.strictObject({ filter: LogFilterWire.nullish() });

export const pricingRoutes = [
  route({
    method: "get",
    path: "/price-overrides",
    summary: "List the project's price overrides, by model then date, a page at a time",
    tag: "Pricing",
    auth: "project",
    query: PAGE_QUERY,
    response: { schema: W.pageOf(W.PriceOverrideWire) },
    errors: [400, 401],
    handler: async ({ ctx, deps, query }) => {
      const page = pageOfQuery(query, deps.config.maxPageSize);
      return pageToWire((await listPriceOverrides(ctx, page)).map(overrideToWire), page.first);
    },
  }),
  route({
    method: "post",
    path: "/price-overrides",
    summary: "Set the project's own price for a model from a date on (rates per token class and/or per hour of call time, or a multiplier of the list price)",
    tag: "Pricing",
    auth: "project",
    body: { schema: CreatePriceOverrideInput, read: "object" },
    response: { schema: W.PriceOverrideWire },
    errors: [400, 401],
    handler: async ({ ctx, body }) => overrideToWire(await createPriceOverride(ctx, body)),
  }),
  route({
    method: "delete",
    path: "/price-overrides/:overrideId",
    summary: "Delete a price override (logs keep their cost until recalculated)",
    tag: "Pricing",
    auth: "project",
    response: { schema: W.PriceOverrideDeletionWire },
    errors: [401, 404],
    handler: async ({ ctx, params }) => ({ ...(await deletePriceOverride(ctx, { id: params.overrideId })), object: "price_override" as const }),
  }),
  route({
    method: "post",
    path: "/costs/recalculate",
    summary: "Price the logs matching a filter again, in the background (after a price override or a newer price table)",
    tag: "Pricing",
    auth: "project",
    body: { schema: RecalculateWire, read: "object" },
    response: { schema: W.CostRecalculationWire },
    errors: [400, 401, 409],
    handler: async ({ ctx, body }) => {
      const { filter } = parseInput(RecalculateWire, body);
      return recalculationToWire(await recalculateCosts(ctx, { filter: domainLogFilter(filter) as z.input<typeof LogFilter> }));
    },
  }),
  route({
    method: "get",
    path: "/costs/recalculations/:recalculationId",
    summary: "A cost recalculation's progress",
    tag: "Pricing",
    auth: "project",
    response: { schema: W.CostRecalculationWire },
    errors: [401, 404],
    handler: async ({ ctx, params }) => recalculationToWire(await getCostRecalculation(ctx, { id: params.recalculationId })),
  }),
  route({
    method: "get",
    path: "/usage/invoice-lines",
    summary: "Spend per UTC day, provider, model and token class: a provider invoice's line items, as JSON (a page at a time) or CSV (the whole range)",
    tag: "Pricing",
    auth: "project",
    query: {
      from: { schema: z.string(), description: "YYYY-MM-DD, inclusive" },
      to: { schema: z.string(), description: "YYYY-MM-DD, exclusive" },
      format: { schema: z.enum(["json", "csv"]), description: "json (default) or csv (a header first)" },
      limit: PAGE_QUERY.limit,
      after: { schema: z.string(), description: "the cursor of the previous page's last line: the lines that follow it (json only)" },
    },
    response: { schema: W.pageOf(W.InvoiceLineWire) },
    errors: [400, 401],
    handler: async ({ ctx, deps, query }) => {
      if (query.format === "csv") {
        if (query.limit || query.after) {
          const message = "limit and after page the JSON lines; the CSV holds the whole range";
          throw new DomainError("VALIDATION", message, { issues: [{ message, path: [query.limit ? "limit" : "after"] }] });
        }
        const lines = await invoiceLines(ctx, { from: query.from, to: query.to });
        return new Response(invoiceCsv(lines), {
          headers: { "content-type": "text/csv; charset=utf-8", "content-disposition": `attachment; filename="invoice-lines-${query.from}.csv"` },
        });
      }
      const page = pageOfQuery(query, deps.config.maxPageSize);
      const lines = await invoiceLinePage(ctx, { from: query.from, to: query.to, ...page });
      return pageToWire(
        lines.map((l) => ({
          object: "invoice_line" as const,
          day: l.day,
          provider: l.provider,
          model: l.model,
          token_class: l.tokenClass,
          tokens: l.tokens,
          cost_usd: l.costUsd,
          cursor: l.cursor,
        })),
        page.first,
      );
    },
  }),
];
