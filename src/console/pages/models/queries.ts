import { useCriterionList, useDatasetList, useModelList } from "../../lib/project-lists";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type RouterInputs, type RouterOutputs, useTRPC } from "../../lib/trpc";
import { useChange } from "../../lib/mutations";

// The Models section's data layer: its queries (polled while a fine-tune is on its way), its
// mutations, and what each change invalidates. Components only show and ask.

export type Model = RouterOutputs["models"]["list"][number];
export type BaseModel = RouterOutputs["models"]["catalogue"][number];
export type EstimateInput = RouterInputs["models"]["estimate"];
export type TrainingProgress = RouterOutputs["trainers"]["events"][number];

/** Statuses of a fine-tune still on its way. */
export const ACTIVE = new Set(["PENDING", "QUEUED", "TRAINING"]);

export function useModels() {
  // Polled while any fine-tune is still on its way.
  return useModelList({ refetchInterval: (data) => ((data ?? []).some((m) => ACTIVE.has(m.status)) ? 2000 : false) });
}

export function useModel(slug: string) {
  const trpc = useTRPC();
  return useQuery({
    ...trpc.models.get.queryOptions({ slug }),
    // Follows the fine-tune until it ends, without a reload.
    refetchInterval: (q) => (q.state.data && ACTIVE.has(q.state.data.status) ? 1500 : false),
  });
}

/** Every figure a Hone trainer reported, by step: polled while it trains. */
export function useTrainingEvents(slug: string, enabled: boolean, active: boolean) {
  const trpc = useTRPC();
  return useQuery({ ...trpc.trainers.events.queryOptions({ slug }), enabled, refetchInterval: active ? 2000 : false });
}

/** Who trained a trainer model, its weights, and the vLLM servers of its base (polled: sync reports every 30 s). */
export function useModelServing(slug: string, enabled: boolean) {
  const trpc = useTRPC();
  return useQuery({ ...trpc.trainers.serving.queryOptions({ slug }), enabled, refetchInterval: 15_000 });
}

/** A deployed fine-tune's calls over the last 30 days, and what its pruning rules saved on them. */
export function useModelUsage(slug: string, enabled: boolean) {
  const trpc = useTRPC();
  return useQuery({ ...trpc.models.usage.queryOptions({ slug }), enabled });
}

export function useBaseModels() {
  const trpc = useTRPC();
  return useQuery({ ...trpc.models.catalogue.queryOptions(), staleTime: Number.POSITIVE_INFINITY });
}

/** Datasets to train on (the Datasets section's list, same cache). */
export function useDatasetChoices() {
  return useDatasetList();
}

/** One dataset's name and counts (a model's page names its dataset). */
export function useDatasetOf(datasetId: string | null | undefined) {
  const trpc = useTRPC();
  return useQuery({ ...trpc.datasets.get.queryOptions({ datasetId: datasetId ?? "" }), enabled: Boolean(datasetId) });
}

/** Criteria whose failures a fine-tune can leave out. */
export function useCriterionChoices() {
  return useCriterionList();
}

export function useEstimate(input: EstimateInput, enabled: boolean) {
  const trpc = useTRPC();
  return useQuery({ ...trpc.models.estimate.queryOptions(input), enabled });
}

/** Trains a failed model again from the same settings: the model and the list change. */
export const useRetryModel = () =>
  useChange((t) => t.models.retry, {
    refreshFirst: true,
    refresh: (t, m) => [t.models.get.queryKey({ slug: m.slug }), t.models.list.queryKey()],
    message: (m) => `${m.slug} is training again`,
  });

/** Starts a fine-tune: the models list, and the datasets' fine-tune counts, change. */
export const useCreateModel = () => useChange((t) => t.models.create, { refresh: (t) => [t.datasets.list.queryKey(), t.models.list.queryKey()] });

export function useDeleteModel() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return useMutation(
    trpc.models.delete.mutationOptions({
      onSuccess: async (_r, v) => {
        queryClient.removeQueries({ queryKey: trpc.models.get.queryKey({ slug: v.slug }) });
        void queryClient.invalidateQueries({ queryKey: trpc.datasets.list.queryKey() });
        await queryClient.invalidateQueries({ queryKey: trpc.models.list.queryKey() });
      },
    }),
  );
}
