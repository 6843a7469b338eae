// The criteria section's data: every query and mutation of its pages, with their keys and what
// each refreshes when it succeeds. Components call these hooks and never tRPC itself.
import { allPages, LIST_PAGE, useCriterionList, useDatasetList } from "../../lib/project-lists";
import { notifications } from "@mantine/notifications";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback } from "react";
import { errorMessageOf, type RouterOutputs, useTRPC, useTRPCClient } from "../../lib/trpc";
import { useChange } from "../../lib/mutations";

export type CriterionDetail = RouterOutputs["criteria"]["get"];
export type AlignmentRow = RouterOutputs["criteria"]["alignmentRows"][number];
export type AlignmentStats = RouterOutputs["criteria"]["alignmentRuns"][number];
export type AlignmentTask = RouterOutputs["criteria"]["alignmentTask"];
export type ImportResult = { rowsImported: number; errors: { line: number; message: string }[] };

const ACTIVE_TASK = new Set(["QUEUED", "RUNNING"]);
export const isActiveTask = (status: string) => ACTIVE_TASK.has(status);

// ------------------------------------------------------------------ criteria and versions

export function useCriteriaList() {
  return useCriterionList();
}

export function useCriterion(criterionId: string) {
  const trpc = useTRPC();
  return useQuery(trpc.criteria.get.queryOptions({ criterionId }));
}

export const useCreateCriterion = (onCreated: (c: { id: string; name: string }) => void) =>
  useChange((t) => t.criteria.create, {
    message: (c) => `Criterion ${c.name} created`,
    onDone: onCreated,
    refresh: (t) => [t.criteria.list.queryKey()],
    refreshFirst: true,
  });

/** Saves a new version; once the criterion is read again, `onSaved` gets the new version's number. */
export const useCreateVersion = (criterionId: string, onSaved: (version: number) => void) =>
  useChange((t) => t.criteria.createVersion, {
    message: (v) => `Version ${v.version} saved`,
    onDone: (v) => onSaved(v.version),
    refresh: (t) => [t.criteria.get.queryKey({ criterionId }), t.criteria.list.queryKey()],
    refreshFirst: true,
  });

export const useDeleteCriterion = (onDeleted: () => void) =>
  useChange((t) => t.criteria.delete, { message: () => "Criterion deleted", onDone: onDeleted, refresh: (t) => [t.criteria.list.queryKey()] });

/** Judges one output with one version (the "Try it" box). */
export function useJudge() {
  const trpc = useTRPC();
  return useMutation(trpc.criteria.judge.mutationOptions());
}

/** A logged call's conversation and answer, read on demand (to try a judge on it). */
export function useReadLog() {
  const client = useTRPCClient();
  return useCallback((id: string) => client.logs.get.query({ id }), [client]);
}

// ------------------------------------------------------------------ the alignment set

/** The whole alignment set (at most 10,000 rows), read a page at a time under the procedure's key. */
export function useAlignmentRows(criterionId: string) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  return useQuery({
    queryKey: trpc.criteria.alignmentRows.queryKey({ criterionId }),
    queryFn: ({ signal }) => allPages((after) => client.criteria.alignmentRows.query({ criterionId, first: LIST_PAGE, after }, { signal })),
  });
}

/** Sets a row's label, updating the cached set at once (and rolling back if the API refuses). */
export function useLabelRow(criterionId: string) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const key = trpc.criteria.alignmentRows.queryKey({ criterionId });
  return useMutation(
    trpc.criteria.labelAlignmentRow.mutationOptions({
      // One at a time, in the order given: a label and its quick undo must reach the server in order.
      scope: { id: `alignment-labels:${criterionId}` },
      onMutate: async ({ rowId, judgement }) => {
        await queryClient.cancelQueries({ queryKey: key });
        const before = queryClient.getQueryData(key);
        queryClient.setQueryData(key, (rows) => rows?.map((r) => (r.id === rowId ? { ...r, judgement } : r)));
        return { before };
      },
      onError: (err, _v, context) => {
        if (context?.before) queryClient.setQueryData(key, context.before);
        notifications.show({ color: "red", title: "Label not saved", message: errorMessageOf(err) });
      },
    }),
  );
}

export function useDeleteAlignmentRows(criterionId: string) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return useMutation(
    trpc.criteria.deleteAlignmentRows.mutationOptions({
      onSuccess: () => void queryClient.invalidateQueries({ queryKey: trpc.criteria.alignmentRows.queryKey({ criterionId }) }),
      onError: (err) => notifications.show({ color: "red", title: "Not deleted", message: errorMessageOf(err) }),
    }),
  );
}

export function useDatasetsList() {
  return useDatasetList();
}

/**
 * The three ways to add rows (a JSONL upload, logged calls, a dataset split's entries), each
 * answering what was added and what was refused; the set is read again after each.
 */
export function useAlignmentImports(criterionId: string) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const queryClient = useQueryClient();
  const refresh = () => void queryClient.invalidateQueries({ queryKey: trpc.criteria.alignmentRows.queryKey({ criterionId }) });
  const fromIds = async (input: { logIds?: string[]; entryIds?: string[] }): Promise<ImportResult> => {
    const r = await client.criteria.importAlignmentRows.mutate({ criterionId, ...input });
    refresh();
    return { rowsImported: r.rowsImported, errors: r.skipped.map((s, i) => ({ line: i + 1, message: `${s.id}: ${s.message}` })) };
  };
  return {
    async jsonl(text: string): Promise<ImportResult> {
      const r = await client.criteria.importAlignmentSet.mutate({ criterionId, jsonl: text });
      refresh();
      return r;
    },
    logs: (logIds: string[]) => fromIds({ logIds }),
    /** Up to 200 entries of the split. */
    async dataset(datasetId: string, split: "TRAIN" | "TEST"): Promise<ImportResult> {
      const page = await client.datasets.listEntries.query({ datasetId, split, first: 200 });
      return fromIds({ entryIds: page.entries.map((e) => e.id) });
    },
  };
}

// ------------------------------------------------------------------ alignment runs

export function useAlignmentRuns(criterionId: string) {
  const trpc = useTRPC();
  return useQuery(trpc.criteria.alignmentRuns.queryOptions({ criterionId }));
}

/** The criterion's background runs, polled while one is queued or running. */
export function useAlignmentTasks(criterionId: string) {
  const trpc = useTRPC();
  return useQuery({
    ...trpc.criteria.alignmentTasks.queryOptions({ criterionId }),
    refetchInterval: (q) => (q.state.data?.some((t) => isActiveTask(t.status)) ? 700 : false),
  });
}

export const useStartAlignmentRun = (criterionId: string) =>
  useChange((t) => t.criteria.startAlignmentRun, { refresh: (t) => [t.criteria.alignmentTasks.queryKey({ criterionId })] });

/** What a finished run changed: its statistics, the rows' verdicts, the list's last F1. */
export function useRefreshAfterRun(criterionId: string) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return useCallback(() => {
    void queryClient.invalidateQueries({ queryKey: trpc.criteria.alignmentRuns.queryKey({ criterionId }) });
    void queryClient.invalidateQueries({ queryKey: trpc.criteria.alignmentRows.queryKey({ criterionId }) });
    void queryClient.invalidateQueries({ queryKey: trpc.criteria.list.queryKey() });
  }, [queryClient, trpc, criterionId]);
}
