import { ListPageInput } from "../../../domain/list-page";
import {
  createPriceOverride,
  CreatePriceOverrideInput,
  deletePriceOverride,
  listPriceOverrides,
  type PriceOverride,
  PriceOverrideIdInput,
} from "../../../domain/pricing";
import {
  type CostRecalculation,
  getCostRecalculation,
  invoiceLinePage,
  InvoiceLinesInput,
  recalculateCosts,
  RecalculateCostsInput,
} from "../../../domain/billing";
import { toWireDate } from "../../dates";
import { manageProcedure, projectProcedure, router } from "../init";

const overrideOut = (o: PriceOverride) => ({ ...o, effectiveFrom: toWireDate(o.effectiveFrom), createdAt: toWireDate(o.createdAt) });
const recalculationOut = (r: CostRecalculation) => ({ ...r, createdAt: toWireDate(r.createdAt), updatedAt: toWireDate(r.updatedAt) });

export const pricingRouter = router({
  /** The project's price overrides, by model then date. */
  overrides: projectProcedure.input(ListPageInput).query(async ({ ctx, input }) => (await listPriceOverrides(ctx.project, input)).map(overrideOut)),
  createOverride: manageProcedure
    .input(CreatePriceOverrideInput)
    .mutation(async ({ ctx, input }) => overrideOut(await createPriceOverride(ctx.project, input))),
  deleteOverride: manageProcedure.input(PriceOverrideIdInput).mutation(({ ctx, input }) => deletePriceOverride(ctx.project, input)),
  /** Prices the logs matching a filter again, in the background; follow it with `recalculation`. */
  recalculate: manageProcedure.input(RecalculateCostsInput).mutation(async ({ ctx, input }) => recalculationOut(await recalculateCosts(ctx.project, input))),
  recalculation: projectProcedure.input(PriceOverrideIdInput).query(async ({ ctx, input }) => recalculationOut(await getCostRecalculation(ctx.project, input))),
  /** Spend per UTC day, provider, model and token class: an invoice's line items, a page at a time (`first`, `after` a line's cursor). */
  invoiceLines: projectProcedure.input(InvoiceLinesInput).query(({ ctx, input }) => invoiceLinePage(ctx.project, input)),
});
