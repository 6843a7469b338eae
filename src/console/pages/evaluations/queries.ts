// The evaluations section's data: every query and mutation of its pages, with their keys and what
// each refreshes. Components call these hooks and never tRPC itself.
import { useCriterionList, useDatasetList, useEvaluationList, useModelList } from "../../lib/project-lists";
import { useQuery } from "@tanstack/react-query";
import { useCursorPages } from "../../lib/cursor-pages";
import { type RouterOutputs, useTRPC, useTRPCClient } from "../../lib/trpc";
import { useChange } from "../../lib/mutations";

export type Evaluation = RouterOutputs["evaluations"]["list"][number];
export type EvaluationDetail = RouterOutputs["evaluations"]["get"];
export type SummaryRow = EvaluationDetail["summary"][number];
export type EvaluationResult = RouterOutputs["evaluations"]["results"][number];
type EntriesPage = RouterOutputs["evaluations"]["entries"];
export type EvaluationEntry = EntriesPage["entries"][number];

export const ACTIVE = new Set(["QUEUED", "RUNNING"]);
/** The pseudo-model whose answers are the dataset entries' own (the reference, never ranked). */
export const DATASET_MODEL = "dataset";

/** Keys of what is not a plain tRPC query (the entries, loaded page by page as they scroll). */
const keys = {
  entries: (id: string, onlyDifferent: boolean, done: number) => ["evaluations", "entries", id, { onlyDifferent, done }] as const,
};

/** Every evaluation, polled while one is queued or running. */
export function useEvaluationsList() {
  return useEvaluationList({ refetchInterval: (data) => (data?.some((e) => ACTIVE.has(e.status)) ? 1500 : false) });
}

/** One evaluation with its summary, polled while it runs. */
export function useEvaluation(id: string) {
  const trpc = useTRPC();
  return useQuery({
    ...trpc.evaluations.get.queryOptions({ id }),
    refetchInterval: (q) => (q.state.data && ACTIVE.has(q.state.data.status) ? 1000 : false),
  });
}

export const useCreateEvaluation = (onCreated: (id: string) => void) =>
  useChange((t) => t.evaluations.create, {
    message: (e) => `Evaluation ${e.name} started`,
    onDone: (e) => onCreated(e.id),
    refresh: (t) => [t.evaluations.list.queryKey()],
    refreshFirst: true,
  });

export const useCancelEvaluation = (id: string) =>
  useChange((t) => t.evaluations.cancel, { refresh: (t) => [t.evaluations.get.queryKey({ id }), t.evaluations.list.queryKey()] });

/**
 * The evaluation entry by entry, ten at a time as the list is scrolled; read again as the run
 * progresses (`done`), keeping the old pages on screen meanwhile.
 */
export function useEvaluationEntries(id: string, onlyDifferent: boolean, done: number) {
  const client = useTRPCClient();
  return useCursorPages<EntriesPage, EvaluationEntry>({
    queryKey: keys.entries(id, onlyDifferent, done),
    fetchPage: (after, signal) => client.evaluations.entries.query({ id, first: 10, after, onlyDifferent }, { signal }),
    itemsOf: entriesOf,
    keepPrevious: true,
  });
}
const entriesOf = (p: EntriesPage) => p.entries;

export function useHeadToHead(id: string, modelA: string, modelB: string) {
  const trpc = useTRPC();
  return useQuery({ ...trpc.evaluations.headToHead.queryOptions({ id, modelA, modelB }), enabled: modelA !== modelB });
}

export function useCriteriaList() {
  return useCriterionList();
}

/** Criterion ids to names. */
export function useCriterionNames(): Map<string, string> {
  const criteria = useCriteriaList();
  return new Map((criteria.data ?? []).map((c) => [c.id, c.name]));
}

export function useDatasetsList() {
  return useDatasetList();
}

/** Model strings to suggest: the dataset's own answers, deployed fine-tunes, models seen in the logs. */
export function useModelSuggestions(): string[] {
  const trpc = useTRPC();
  const models = useModelList();
  const facets = useQuery(trpc.logs.facets.queryOptions());
  return [
    ...new Set([
      DATASET_MODEL,
      ...(models.data ?? []).filter((m) => m.status === "DEPLOYED").map((m) => `hone:${m.slug}`),
      // Models that answered in the recent logs: a string seen only in failed calls is a typo, not a choice.
      ...(facets.data?.models ?? []).filter((m) => m.answered > 0).map((m) => m.value),
      "openai:gpt-4o-mini",
    ]),
  ];
}
