// The usage section's data layer: its queries and their keys. Components call these hooks; none of
// them calls useQuery itself. (Usage only reads: nothing here changes data or invalidates.)
import { keepPreviousData, useQuery, useQueryClient } from "@tanstack/react-query";
import { type RouterInputs, type RouterOutputs, useTRPC } from "../../lib/trpc";

export type UsageInput = RouterInputs["logs"]["usage"];

/** Requests, tokens, cost, errors and latency per bucket (and group) over a range. */
export function useUsage(input: UsageInput, opts: { enabled: boolean }) {
  const trpc = useTRPC();
  return useQuery(trpc.logs.usage.queryOptions(input, { enabled: opts.enabled, placeholderData: keepPreviousData }));
}

/** Tag keys of the newest logs, most frequent first (what to split by). */
export function useUsageTagKeys() {
  const trpc = useTRPC();
  return useQuery(trpc.logs.tagKeys.queryOptions(undefined, { staleTime: 60_000 }));
}

export type InvoiceLine = RouterOutputs["pricing"]["invoiceLines"][number];

/** Reads the invoice lines (day × provider × model × token class) of whole UTC days, on demand. */
export function useFetchInvoiceLines() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return (input: RouterInputs["pricing"]["invoiceLines"]) => queryClient.fetchQuery(trpc.pricing.invoiceLines.queryOptions(input));
}
