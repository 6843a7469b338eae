// The settings section's data: API keys, provider keys and custom providers, each list's query and
// the mutations that change it (and read it again). Components call these hooks, never tRPC itself.
import { notifications } from "@mantine/notifications";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type RouterOutputs, useTRPC } from "../../lib/trpc";

export type ApiKey = RouterOutputs["apiKeys"]["list"][number];
export type CustomProvider = RouterOutputs["customProviders"]["list"][number];

// ------------------------------------------------------------------ API keys

export function useApiKeys() {
  const trpc = useTRPC();
  return useQuery(trpc.apiKeys.list.queryOptions());
}

export function useCreateApiKey() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return useMutation(trpc.apiKeys.create.mutationOptions({ onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.apiKeys.list.queryKey() }) }));
}

/** Renames a key; the session's own key's name (shown in the header) is read again too. */
export function useRenameApiKey(onRenamed: (k: ApiKey) => void) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return useMutation(
    trpc.apiKeys.rename.mutationOptions({
      onSuccess: async (k) => {
        notifications.show({ message: `Key renamed to ${k.name}` });
        onRenamed(k);
        await Promise.all([
          queryClient.invalidateQueries({ queryKey: trpc.apiKeys.list.queryKey() }),
          queryClient.invalidateQueries({ queryKey: trpc.session.me.queryKey() }),
        ]);
      },
    }),
  );
}

/** Changes a key's grant (scopes, models, expiry, metadata) or name. */
export function useUpdateApiKey(onDone: (k: ApiKey) => void) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return useMutation(
    trpc.apiKeys.update.mutationOptions({
      onSuccess: async (k) => {
        notifications.show({ message: `Key ${k.name ?? k.prefix} saved` });
        onDone(k);
        await queryClient.invalidateQueries({ queryKey: trpc.apiKeys.list.queryKey() });
      },
    }),
  );
}

/**
 * Revokes a key. The session's own key ends the session: then only the session is read again (the
 * shell notices it has ended); otherwise the list.
 */
export function useRevokeApiKey(ownKeyId: string | undefined, onRevoked: (k: ApiKey) => void) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return useMutation(
    trpc.apiKeys.revoke.mutationOptions({
      onSuccess: async (k) => {
        onRevoked(k);
        notifications.show({ message: `Key ${k.name ?? k.prefix} revoked` });
        if (k.id === ownKeyId) {
          await queryClient.invalidateQueries({ queryKey: trpc.session.me.queryKey() });
          return;
        }
        await queryClient.invalidateQueries({ queryKey: trpc.apiKeys.list.queryKey() });
      },
    }),
  );
}

// ------------------------------------------------------------------ provider keys

export function useProviderKeys() {
  const trpc = useTRPC();
  return useQuery(trpc.providerKeys.list.queryOptions());
}

export function useSetProviderKey(label: string, onSaved: () => void) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return useMutation(
    trpc.providerKeys.set.mutationOptions({
      onSuccess: async (k) => {
        onSaved();
        notifications.show({ message: `${label} key saved (ends in ${k.last4})` });
        await queryClient.invalidateQueries({ queryKey: trpc.providerKeys.list.queryKey() });
      },
    }),
  );
}

export function useDeleteProviderKey(label: string, onDeleted: () => void) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return useMutation(
    trpc.providerKeys.delete.mutationOptions({
      onSuccess: async () => {
        onDeleted();
        notifications.show({ message: `${label} key deleted` });
        await queryClient.invalidateQueries({ queryKey: trpc.providerKeys.list.queryKey() });
      },
    }),
  );
}

// ------------------------------------------------------------------ custom providers

export function useCustomProviders() {
  const trpc = useTRPC();
  return useQuery(trpc.customProviders.list.queryOptions());
}

function useRefreshProviders() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: trpc.customProviders.list.queryKey() });
}

export function useCreateCustomProvider(onDone: (p: CustomProvider) => void) {
  const trpc = useTRPC();
  const refresh = useRefreshProviders();
  return useMutation(
    trpc.customProviders.create.mutationOptions({
      onSuccess: async (p) => {
        notifications.show({ message: `Custom provider ${p.slug} created` });
        await refresh();
        onDone(p);
      },
    }),
  );
}

export function useUpdateCustomProvider(onDone: (p: CustomProvider) => void) {
  const trpc = useTRPC();
  const refresh = useRefreshProviders();
  return useMutation(
    trpc.customProviders.update.mutationOptions({
      onSuccess: async (p) => {
        notifications.show({ message: `Custom provider ${p.slug} saved` });
        await refresh();
        onDone(p);
      },
    }),
  );
}

export function useDeleteCustomProvider(onDone: () => void) {
  const trpc = useTRPC();
  const refresh = useRefreshProviders();
  return useMutation(
    trpc.customProviders.delete.mutationOptions({
      onSuccess: async () => {
        onDone();
        await refresh();
      },
    }),
  );
}

// ------------------------------------------------------------------ prices

export type PriceOverride = RouterOutputs["pricing"]["overrides"][number];

export function usePriceOverrides() {
  const trpc = useTRPC();
  return useQuery(trpc.pricing.overrides.queryOptions());
}

function useRefreshOverrides() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: trpc.pricing.overrides.queryKey() });
}

export function useCreatePriceOverride(onDone: () => void) {
  const trpc = useTRPC();
  const refresh = useRefreshOverrides();
  return useMutation(
    trpc.pricing.createOverride.mutationOptions({
      onSuccess: async (o) => {
        notifications.show({ message: `Price override for ${o.model} saved` });
        await refresh();
        onDone();
      },
    }),
  );
}

export function useDeletePriceOverride(onDone: () => void) {
  const trpc = useTRPC();
  const refresh = useRefreshOverrides();
  return useMutation(
    trpc.pricing.deleteOverride.mutationOptions({
      onSuccess: async () => {
        onDone();
        await refresh();
      },
    }),
  );
}

export function useRecalculateCosts() {
  const trpc = useTRPC();
  return useMutation(trpc.pricing.recalculate.mutationOptions());
}

/** A recalculation's progress, read every second until it is over. */
export function useCostRecalculation(id: string | null) {
  const trpc = useTRPC();
  return useQuery({
    ...trpc.pricing.recalculation.queryOptions({ id: id ?? "" }),
    enabled: id !== null,
    refetchInterval: (q) => (q.state.data && (q.state.data.status === "DONE" || q.state.data.status === "ERROR") ? false : 1000),
  });
}
