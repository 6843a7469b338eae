import { createPriceOverride, CreatePriceOverrideInput, deletePriceOverride, listPriceOverrides, type PriceOverride } from "../../../domain/pricing";
import {
  type CostRecalculation,
  getCostRecalculation,
  type InvoiceLine,
  invoiceLinePage,
  recalculateCosts,
  RecalculateCostsInput,
} from "../../../domain/billing";
import { domainLogFilter } from "../../log-filter-wire";
import { asInputOf } from "../../../core/verb-input";
import { builder, projectCtx } from "../builder";
import { LogFilterInput } from "./logs";

const PriceOverrideRef = builder.objectRef<PriceOverride>("PriceOverride").implement({
  description: "The project's own price for a model (as its logs name it) from a date on: its rates, or a multiplier of the price table's",
  fields: (t) => ({
    id: t.exposeID("id"),
    model: t.exposeString("model"),
    effectiveFrom: t.field({ type: "DateTime", resolve: (o) => o.effectiveFrom }),
    rates: t.field({ type: "JSON", nullable: true, description: "$ per million tokens by key (input_mtok, cache_read_mtok, ...)", resolve: (o) => o.rates }),
    multiplier: t.exposeFloat("multiplier", { nullable: true, description: "The price table's rates times this" }),
    usdPerHour: t.exposeFloat("usdPerHour", { nullable: true, description: "A price per hour of call time (class compute)" }),
    note: t.exposeString("note", { nullable: true }),
    createdAt: t.field({ type: "DateTime", resolve: (o) => o.createdAt }),
  }),
});

const CostRecalculationRef = builder.objectRef<CostRecalculation>("CostRecalculation").implement({
  description: "Pricing the logs matching a filter again, in the background",
  fields: (t) => ({
    id: t.exposeID("id"),
    status: t.exposeString("status", { description: "QUEUED, RUNNING, DONE or ERROR" }),
    total: t.exposeInt("total", { description: "Logs matching the filter when it started" }),
    done: t.exposeInt("done"),
    changed: t.exposeInt("changed", { description: "Of the logs done, those whose cost, classes or price changed" }),
    errorMessage: t.exposeString("errorMessage", { nullable: true }),
    createdAt: t.field({ type: "DateTime", resolve: (r) => r.createdAt }),
    updatedAt: t.field({ type: "DateTime", resolve: (r) => r.updatedAt }),
  }),
});

const InvoiceLineRef = builder.objectRef<InvoiceLine>("InvoiceLine").implement({
  description: "Spend of one UTC day, provider, model and token class (compute: seconds of call time; unsplit: cost of logs older than the classes)",
  fields: (t) => ({
    day: t.exposeString("day"),
    provider: t.exposeString("provider", { nullable: true }),
    model: t.exposeString("model", { nullable: true }),
    tokenClass: t.exposeString("tokenClass"),
    tokens: t.exposeFloat("tokens"),
    costUsd: t.exposeFloat("costUsd", { nullable: true, description: "Null: no price was known for these tokens" }),
    cursor: t.exposeString("cursor", { description: "Pass as `after` for the lines that follow this one" }),
  }),
});

const CreatePriceOverrideInputRef = builder.inputType("CreatePriceOverrideInput", {
  fields: (t) => ({
    model: t.string({ description: "The model as the logs name it: openai:gpt-4o, hone:support-v1, my-vllm:llama-3" }),
    effectiveFrom: t.string({ required: false, description: "ISO 8601: applies to calls made from then on (absent: every call)" }),
    rates: t.field({
      type: "JSON",
      required: false,
      description:
        "$ per million tokens: input_mtok, cache_read_mtok, cache_write_mtok, cache_write_1h_mtok, input_audio_mtok, output_mtok, output_reasoning_mtok, output_audio_mtok",
    }),
    multiplier: t.float({ required: false, description: "Or: the price table's rates times this (0.8 = 20% off)" }),
    usdPerHour: t.float({ required: false, description: "A price per hour of call time (a deployment billed by the second), alone or with rates" }),
    note: t.string({ required: false }),
  }),
});

builder.queryFields((t) => ({
  priceOverrides: t.field({
    type: [PriceOverrideRef],
    description: "A page of the project's price overrides, by model then date: at most `first` (default and ceiling HONE_MAX_PAGE_SIZE), after `after` (an id)",
    args: { first: t.arg.int({ required: false }), after: t.arg.string({ required: false }) },
    resolve: (_, a, c) => listPriceOverrides(projectCtx(c), { first: a.first, after: a.after }),
  }),
  costRecalculation: t.field({
    type: CostRecalculationRef,
    args: { id: t.arg.id() },
    resolve: (_, args, c) => getCostRecalculation(projectCtx(c), { id: String(args.id) }),
  }),
  invoiceLines: t.field({
    type: [InvoiceLineRef],
    description:
      "Spend per UTC day, provider, model and token class over [from, to): a provider invoice's line items, a page at a time: at most `first` (default and ceiling HONE_MAX_PAGE_SIZE), after the line whose `cursor` is `after`",
    args: {
      from: t.arg.string({ description: "YYYY-MM-DD, inclusive" }),
      to: t.arg.string({ description: "YYYY-MM-DD, exclusive" }),
      first: t.arg.int({ required: false }),
      after: t.arg.string({ required: false }),
    },
    resolve: (_, args, c) => invoiceLinePage(projectCtx(c), { from: args.from, to: args.to, first: args.first, after: args.after }),
  }),
}));

builder.mutationFields((t) => ({
  createPriceOverride: t.field({
    type: PriceOverrideRef,
    args: { input: t.arg({ type: CreatePriceOverrideInputRef }) },
    resolve: (_, args, c) => createPriceOverride(projectCtx(c), asInputOf(CreatePriceOverrideInput, args.input)),
  }),
  deletePriceOverride: t.field({
    type: "String",
    description: "Deletes a price override; returns its id (logs keep their cost until recalculated)",
    args: { id: t.arg.id() },
    resolve: async (_, args, c) => (await deletePriceOverride(projectCtx(c), { id: String(args.id) })).id,
  }),
  recalculateCosts: t.field({
    type: CostRecalculationRef,
    description: "Prices the logs matching a filter again, in the background (follow it with costRecalculation)",
    args: { filter: t.arg({ type: LogFilterInput, required: false }) },
    resolve: (_, args, c) => recalculateCosts(projectCtx(c), asInputOf(RecalculateCostsInput, { filter: domainLogFilter(args.filter) })),
  }),
}));
