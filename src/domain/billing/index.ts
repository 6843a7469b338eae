export { invoiceCsv, invoiceLinePage, invoiceLines, INVOICE_CSV_COLUMNS } from "./invoice-lines";
export { getCostRecalculation, recalculateCosts } from "./recalculate-costs";
export { type CostRecalculation, type InvoiceLine, InvoiceLinesInput, RecalculateCostsInput } from "./schemas";
export { failCostRecalculation } from "./recalculate-costs";
export { RECALCULATE_COSTS_JOB } from "./recalculate-costs";
export { runCostRecalculationStep } from "./recalculate-costs";
