// The budgets-and-limits section's data: the project's limits and what their current windows hold,
// the webhook and its deliveries, and the mutations that change them (and read them again).
import { useQuery } from "@tanstack/react-query";
import { type Trpc, useChange } from "../../lib/mutations";
import { type RouterOutputs, useTRPC } from "../../lib/trpc";

export type Limit = RouterOutputs["limits"]["list"][number];
export type LimitSpend = RouterOutputs["limits"]["spend"][number];
export type Delivery = RouterOutputs["webhooks"]["deliveries"][number];

/** Spend moves with traffic: read again every few seconds while the page is open. */
const LIVE_MS = 5_000;

export const useLimits = () => useQuery(useTRPC().limits.list.queryOptions());
export const useLimitSpend = () => useQuery(useTRPC().limits.spend.queryOptions({ first: 20 }, { refetchInterval: LIVE_MS }));

/** What a change to limits makes stale: the limits and their spend. */
const LIMITS = (t: Trpc) => [t.limits.list.queryKey(), t.limits.spend.queryKey()];

export const useSetLimit = (onDone: () => void) => useChange((t) => t.limits.set, { message: () => "Limit saved", onDone, refresh: LIMITS });
export const useDeleteLimit = (onDone: () => void) => useChange((t) => t.limits.delete, { message: () => "Limit deleted", onDone, refresh: LIMITS });

export const useWebhook = () => useQuery(useTRPC().webhooks.get.queryOptions());
export const useDeliveries = () => useQuery(useTRPC().webhooks.deliveries.queryOptions({ first: 50 }, { refetchInterval: LIVE_MS }));

/** What a change to the webhook makes stale: it and its deliveries. */
const WEBHOOK = (t: Trpc) => [t.webhooks.get.queryKey(), t.webhooks.deliveries.queryKey()];

export const useSetWebhook = () => useChange((t) => t.webhooks.set, { message: () => "Webhook saved", refresh: WEBHOOK });
export const useDeleteWebhook = (onDone: () => void) => useChange((t) => t.webhooks.delete, { message: () => "Webhook removed", onDone, refresh: WEBHOOK });
export const useTestWebhook = () => useChange((t) => t.webhooks.test, { message: () => "Test event queued", refresh: WEBHOOK });
