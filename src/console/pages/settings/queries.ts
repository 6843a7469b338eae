// The settings section's data: API keys, provider keys and custom providers, each list's query and
// the mutations that change it (and read it again). Components call these hooks, never tRPC itself.
import { useMutation, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { type Trpc, useChange } from "../../lib/mutations";
import { useWholeList } from "../../lib/project-lists";
import { type RouterOutputs, useTRPC, useTRPCClient } from "../../lib/trpc";

export type ApiKey = RouterOutputs["apiKeys"]["list"][number];
export type CustomProvider = RouterOutputs["customProviders"]["list"][number];

// ------------------------------------------------------------------ API keys

export const useApiKeys = () => useWholeList((t, c) => ({ key: t.apiKeys.list.queryKey(), list: c.apiKeys.list.query }));

const KEYS = (t: Trpc) => [t.apiKeys.list.queryKey()];

export const useCreateApiKey = () => useChange((t) => t.apiKeys.create, { refresh: KEYS });

/** Renames a key; the session's own key's name (shown in the header) is read again too. */
export const useRenameApiKey = (onRenamed: (k: ApiKey) => void) =>
  useChange((t) => t.apiKeys.rename, { message: (k) => `Key renamed to ${k.name}`, onDone: onRenamed, refresh: (t) => [...KEYS(t), t.session.me.queryKey()] });

/** Changes a key's grant (scopes, models, expiry, metadata) or name. */
export const useUpdateApiKey = (onDone: (k: ApiKey) => void) =>
  useChange((t) => t.apiKeys.update, { message: (k) => `Key ${k.name ?? k.prefix} saved`, onDone, refresh: KEYS });

/**
 * Revokes a key. The session's own key ends the session: then only the session is read again (the
 * shell notices it has ended); otherwise the list.
 */
export const useRevokeApiKey = (ownKeyId: string | undefined, onRevoked: (k: ApiKey) => void) =>
  useChange((t) => t.apiKeys.revoke, {
    message: (k) => `Key ${k.name ?? k.prefix} revoked`,
    onDone: onRevoked,
    refresh: (t, k) => (k.id === ownKeyId ? [t.session.me.queryKey()] : KEYS(t)),
  });

// ------------------------------------------------------------------ provider keys

export function useProviderKeys() {
  const trpc = useTRPC();
  return useQuery(trpc.providerKeys.list.queryOptions());
}

const PROVIDER_KEYS = (t: Trpc) => [t.providerKeys.list.queryKey()];

export const useSetProviderKey = (label: string, onSaved: () => void) =>
  useChange((t) => t.providerKeys.set, { message: (k) => `${label} key saved (ends in ${k.last4})`, onDone: onSaved, refresh: PROVIDER_KEYS });

export const useDeleteProviderKey = (label: string, onDeleted: () => void) =>
  useChange((t) => t.providerKeys.delete, { message: () => `${label} key deleted`, onDone: onDeleted, refresh: PROVIDER_KEYS });

// ------------------------------------------------------------------ custom providers

export const useCustomProviders = () => useWholeList((t, c) => ({ key: t.customProviders.list.queryKey(), list: c.customProviders.list.query }));

const PROVIDERS = (t: Trpc) => [t.customProviders.list.queryKey()];

export const useCreateCustomProvider = (onDone: (p: CustomProvider) => void) =>
  useChange((t) => t.customProviders.create, { message: (p) => `Custom provider ${p.slug} created`, onDone, refresh: PROVIDERS, refreshFirst: true });

export const useUpdateCustomProvider = (onDone: (p: CustomProvider) => void) =>
  useChange((t) => t.customProviders.update, { message: (p) => `Custom provider ${p.slug} saved`, onDone, refresh: PROVIDERS, refreshFirst: true });

export const useDeleteCustomProvider = (onDone: () => void) => useChange((t) => t.customProviders.delete, { onDone, refresh: PROVIDERS });

// ------------------------------------------------------------------ prices

export type PriceOverride = RouterOutputs["pricing"]["overrides"][number];

export const usePriceOverrides = () => useWholeList((t, c) => ({ key: t.pricing.overrides.queryKey(), list: c.pricing.overrides.query }));

const OVERRIDES = (t: Trpc) => [t.pricing.overrides.queryKey()];

export const useCreatePriceOverride = (onDone: () => void) =>
  useChange((t) => t.pricing.createOverride, { message: (o) => `Price override for ${o.model} saved`, onDone, refresh: OVERRIDES, refreshFirst: true });

export const useDeletePriceOverride = (onDone: () => void) => useChange((t) => t.pricing.deleteOverride, { onDone, refresh: OVERRIDES });

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

// ------------------------------------------------------------------ masking

export type MaskingRule = RouterOutputs["masking"]["rules"][number];
export type MaskingTest = RouterOutputs["masking"]["test"];

export function useMaskingRules() {
  const trpc = useTRPC();
  return useQuery(trpc.masking.rules.queryOptions());
}

const MASKING = (t: Trpc) => [t.masking.rules.queryKey()];

export const useSetMaskingRule = (onDone?: () => void) =>
  useChange((t) => t.masking.set, {
    message: (r) => `Masking ${r.scope === "project" ? "for the project" : `for ${r.subject}`}: ${r.mode}`,
    onDone,
    refresh: MASKING,
  });

export const useDeleteMaskingRule = (onDone?: () => void) =>
  useChange((t) => t.masking.delete, { message: () => "Masking rule deleted", onDone, refresh: MASKING });

/** Every kind a rule may name (built-in, the operator's analyzer's, the project's own). */
export function useMaskingKinds() {
  const trpc = useTRPC();
  return useQuery({ ...trpc.masking.kinds.queryOptions(), staleTime: 60_000 });
}

/** What masking kept out of the logs of the last 7 days, by kind. */
export function useMaskedUsage() {
  const trpc = useTRPC();
  const [from] = useState(() => new Date(Date.now() - 7 * 86_400_000).toISOString());
  return useQuery(trpc.masking.usage.queryOptions({ from }));
}

/** What the recognizers find in a text (nothing is stored). */
export function useTryMasking() {
  const client = useTRPCClient();
  return useMutation({ mutationFn: (text: string): Promise<MaskingTest> => client.masking.test.query({ text }) });
}

/** The project's maskings of stored data, read every 2 s while one runs. */
export function useMaskingBackfills() {
  const trpc = useTRPC();
  return useQuery({
    ...trpc.masking.backfills.queryOptions(),
    refetchInterval: (q) => (q.state.data?.some((b) => b.status === "QUEUED" || b.status === "RUNNING") ? 2_000 : false),
  });
}

export const useStartMaskingBackfill = () =>
  useChange((t) => t.masking.backfill, {
    message: () => "Masking what is stored: it runs in the background",
    refresh: (t) => [t.masking.backfills.queryKey()],
  });

export type OwnRecognizer = RouterOutputs["masking"]["recognizers"][number];

export function useOwnRecognizers() {
  const trpc = useTRPC();
  return useQuery(trpc.masking.recognizers.queryOptions());
}

const RECOGNIZERS = (t: Trpc) => [t.masking.recognizers.queryKey(), t.masking.rules.queryKey()];

export const useSetOwnRecognizer = (onDone?: () => void) =>
  useChange((t) => t.masking.setRecognizer, { message: (r) => `Recognizer ${r.kind} saved`, onDone, refresh: RECOGNIZERS });

export const useDeleteOwnRecognizer = () => useChange((t) => t.masking.deleteRecognizer, { message: () => "Recognizer deleted", refresh: RECOGNIZERS });
