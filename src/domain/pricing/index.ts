export { invoiceCsv, invoiceLines, INVOICE_CSV_COLUMNS } from "./invoice-lines";
export { createPriceOverride, deletePriceOverride, listPriceOverrides } from "./overrides";
export { getCostRecalculation, recalculateCosts } from "./recalculate-costs";
export {
  type CostRecalculation,
  CreatePriceOverrideInput,
  type InvoiceLine,
  InvoiceLinesInput,
  type PriceOverride,
  PriceOverrideIdInput,
  RecalculateCostsInput,
  RATE_KEYS,
} from "./schemas";
export { TOKEN_CLASSES } from "./token-classes";
