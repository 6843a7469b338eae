// The budgets-and-limits section's data: the project's limits and what their current windows hold,
// the webhook and its deliveries, and the mutations that change them (and read them again).
import { notifications } from "@mantine/notifications";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type RouterOutputs, useTRPC } from "../../lib/trpc";

export type Limit = RouterOutputs["limits"]["list"][number];
export type LimitSpend = RouterOutputs["limits"]["spend"][number];
export type Delivery = RouterOutputs["webhooks"]["deliveries"][number];

/** Spend moves with traffic: read again every few seconds while the page is open. */
const LIVE_MS = 5_000;

export function useLimits() {
  const trpc = useTRPC();
  return useQuery(trpc.limits.list.queryOptions());
}

export function useLimitSpend() {
  const trpc = useTRPC();
  return useQuery(trpc.limits.spend.queryOptions({ first: 20 }, { refetchInterval: LIVE_MS }));
}

function useRefreshLimits() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.limits.list.queryKey() }),
      queryClient.invalidateQueries({ queryKey: trpc.limits.spend.queryKey() }),
    ]);
}

export function useSetLimit(onDone: () => void) {
  const trpc = useTRPC();
  const refresh = useRefreshLimits();
  return useMutation(
    trpc.limits.set.mutationOptions({
      onSuccess: async () => {
        notifications.show({ message: "Limit saved" });
        onDone();
        await refresh();
      },
    }),
  );
}

export function useDeleteLimit(onDone: () => void) {
  const trpc = useTRPC();
  const refresh = useRefreshLimits();
  return useMutation(
    trpc.limits.delete.mutationOptions({
      onSuccess: async () => {
        notifications.show({ message: "Limit deleted" });
        onDone();
        await refresh();
      },
    }),
  );
}

export function useWebhook() {
  const trpc = useTRPC();
  return useQuery(trpc.webhooks.get.queryOptions());
}

export function useDeliveries() {
  const trpc = useTRPC();
  return useQuery(trpc.webhooks.deliveries.queryOptions({ first: 50 }, { refetchInterval: LIVE_MS }));
}

function useRefreshWebhook() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.webhooks.get.queryKey() }),
      queryClient.invalidateQueries({ queryKey: trpc.webhooks.deliveries.queryKey() }),
    ]);
}

export function useSetWebhook() {
  const trpc = useTRPC();
  const refresh = useRefreshWebhook();
  return useMutation(
    trpc.webhooks.set.mutationOptions({
      onSuccess: async () => {
        notifications.show({ message: "Webhook saved" });
        await refresh();
      },
    }),
  );
}

export function useDeleteWebhook(onDone: () => void) {
  const trpc = useTRPC();
  const refresh = useRefreshWebhook();
  return useMutation(
    trpc.webhooks.delete.mutationOptions({
      onSuccess: async () => {
        notifications.show({ message: "Webhook removed" });
        onDone();
        await refresh();
      },
    }),
  );
}

export function useTestWebhook() {
  const trpc = useTRPC();
  const refresh = useRefreshWebhook();
  return useMutation(
    trpc.webhooks.test.mutationOptions({
      onSuccess: async () => {
        notifications.show({ message: "Test event queued" });
        await refresh();
      },
    }),
  );
}
