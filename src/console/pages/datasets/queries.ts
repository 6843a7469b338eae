import { useCriterionList, useDatasetList } from "../../lib/project-lists";
import { type InfiniteData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { useCursorPages } from "../../lib/cursor-pages";
import { errorMessageOf, type RouterInputs, type RouterOutputs, useTRPC, useTRPCClient } from "../../lib/trpc";
import { useChange } from "../../lib/mutations";

// The Datasets section's data layer: every query and mutation of its pages, their keys, and what
// each change invalidates. Components call these hooks and handle only what the person sees.

export type Dataset = RouterOutputs["datasets"]["list"][number];
export type EntriesPage = RouterOutputs["datasets"]["listEntries"];
export type Entry = EntriesPage["entries"][number];
export type Task = RouterOutputs["datasets"]["tasks"][number];
export type EntryFilter = NonNullable<RouterInputs["datasets"]["countEntries"]["filter"]>;

/** Entries a page of the table loads (the server allows up to 200). */
export const ENTRIES_PAGE = 100;
/** Ids one bulk call may name: a larger hand-picked selection goes in several calls. */
const IDS_PER_CALL = 1_000;
const ACTIVE_TASK = new Set(["QUEUED", "RUNNING"]);

/** What a bulk action applies to: the rows picked, or every entry matching the filter. */
export type EntrySelection = { ids: Set<string>; allMatching: boolean };
export const NO_SELECTION: EntrySelection = { ids: new Set(), allMatching: false };

function useEntriesKey() {
  const trpc = useTRPC();
  return useCallback(
    (datasetId: string, filter?: EntryFilter) => [...trpc.datasets.listEntries.pathKey(), "console-infinite", datasetId, filter ?? {}],
    [trpc],
  );
}

/**
 * After a change to a dataset's entries: its loaded entry pages start again from the first (a
 * 10,000-row list is not refetched page by page), and every other dataset query is asked again.
 */
export function useRefreshDataset() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const entriesKey = useEntriesKey();
  return useCallback(
    (datasetId: string) => {
      void queryClient.resetQueries({ queryKey: entriesKey(datasetId).slice(0, 3) });
      void queryClient.invalidateQueries({
        queryKey: trpc.datasets.pathKey(),
        predicate: (q) => q.queryKey[1] !== "console-infinite",
      });
    },
    [queryClient, trpc, entriesKey],
  );
}

// ---------------------------------------------------------------- queries

export function useDatasets() {
  return useDatasetList();
}

export function useDataset(datasetId: string) {
  const trpc = useTRPC();
  return useQuery({ ...trpc.datasets.get.queryOptions({ datasetId }), enabled: Boolean(datasetId) });
}

/** The project's criteria (names for verdicts, choices for filters and judging). */
export function useCriteria() {
  const criteria = useCriterionList();
  const names = useMemo(() => new Map((criteria.data ?? []).map((c) => [c.id, c.name])), [criteria.data]);
  return { ...criteria, names };
}

export function useEntryCount(datasetId: string, filter: EntryFilter) {
  const trpc = useTRPC();
  return useQuery(trpc.datasets.countEntries.queryOptions({ datasetId, filter }));
}

/** One entry by id, read only when it is not among the loaded rows (a link to an entry further down). */
export function useEntry(datasetId: string, entryId: string | null, loaded: boolean) {
  const trpc = useTRPC();
  return useQuery({ ...trpc.datasets.entry.queryOptions({ datasetId, entryId: entryId ?? "" }), enabled: Boolean(entryId) && !loaded, retry: false });
}

/** The entries matching a filter, in insertion order, ENTRIES_PAGE at a time as the list scrolls. */
export function useEntries(datasetId: string, filter: EntryFilter) {
  const client = useTRPCClient();
  const entriesKey = useEntriesKey();
  return useCursorPages<EntriesPage, Entry>({
    queryKey: entriesKey(datasetId, filter),
    fetchPage: (after, signal) => client.datasets.listEntries.query({ datasetId, ...filter, first: ENTRIES_PAGE, after }, { signal }),
    itemsOf: entriesOf,
    staleTime: 30_000,
  });
}
const entriesOf = (p: EntriesPage) => p.entries;

/** The dataset's judge and relabel tasks, polled while one runs; `onSettled` fires when one ends. */
export function useDatasetTasks(datasetId: string) {
  const trpc = useTRPC();
  const refresh = useRefreshDataset();
  const tasks = useQuery({
    ...trpc.datasets.tasks.queryOptions({ datasetId }),
    refetchInterval: (q) => (q.state.data?.some((t) => ACTIVE_TASK.has(t.status)) ? 800 : false),
  });
  // A task that ends (or is first seen already ended, when it ran faster than a poll) changes the
  // entries' verdicts or answers: the page reads them again.
  const seen = useRef<Map<string, string> | null>(null);
  const state = tasks.data?.map((t) => `${t.id}:${t.status}`).join(",") ?? null;
  useEffect(() => {
    if (state === null) return;
    const now = new Map(state ? state.split(",").map((x) => x.split(":") as [string, string]) : []);
    const before = seen.current;
    seen.current = now;
    if (before && [...now].some(([id, status]) => !ACTIVE_TASK.has(status) && before.get(id) !== status)) refresh(datasetId);
  }, [state, refresh, datasetId]);
  const running = tasks.data?.filter((t) => ACTIVE_TASK.has(t.status)) ?? [];
  return { ...tasks, running };
}

/** How many logged calls an import would take (only successful calls become entries). */
export function useImportPreview(filter: RouterInputs["logs"]["count"]["filter"]) {
  const trpc = useTRPC();
  return useQuery(trpc.logs.count.queryOptions({ filter: { ...filter, statusCode: 200 } }));
}

// ---------------------------------------------------------------- dataset mutations

export const useCreateDataset = () => useChange((t) => t.datasets.create, { refresh: (t) => [t.datasets.list.queryKey()] });

export const useRenameDataset = () => useChange((t) => t.datasets.rename, { refresh: (t) => [t.datasets.pathKey()] });

export const useDeleteDataset = () => useChange((t) => t.datasets.delete, { refresh: (t) => [t.datasets.list.queryKey()] });

// ---------------------------------------------------------------- entry mutations

/** Ids in calls of at most IDS_PER_CALL. */
const chunks = (ids: string[]) => Array.from({ length: Math.ceil(ids.length / IDS_PER_CALL) }, (_, i) => ids.slice(i * IDS_PER_CALL, (i + 1) * IDS_PER_CALL));

type Target = { datasetId: string; selection: EntrySelection; filter: EntryFilter };

/** A change to the selected entries (their ids, or every entry the filter matches); the dataset is read again after. */
function useEntriesChange<V extends Target, R>(run: (client: ReturnType<typeof useTRPCClient>, v: V) => Promise<R>) {
  const client = useTRPCClient();
  const refresh = useRefreshDataset();
  return useMutation({ mutationFn: (v: V) => run(client, v), onSettled: (_r, _e, v) => refresh(v.datasetId) });
}

/** Calls `call` a chunk of the selected ids at a time, adding up the counts each answers. */
async function inChunks<K extends string>(ids: Set<string>, keys: K[], call: (entryIds: string[]) => Promise<Record<K, number>>) {
  const total = Object.fromEntries(keys.map((k) => [k, 0])) as Record<K, number>;
  for (const entryIds of chunks([...ids])) {
    const r = await call(entryIds);
    for (const k of keys) total[k] += r[k];
  }
  return total;
}

/** Deletes the selection. */
export const useDeleteEntries = () =>
  useEntriesChange((client, { datasetId, selection, filter }: Target) =>
    selection.allMatching
      ? client.datasets.deleteEntries.mutate({ datasetId, filter })
      : inChunks(selection.ids, ["deleted"], (entryIds) => client.datasets.deleteEntries.mutate({ datasetId, entryIds })),
  );

/** Moves the selection to TRAIN or TEST. */
export const useSetSplit = () =>
  useEntriesChange((client, { datasetId, selection, filter, split }: Target & { split: "TRAIN" | "TEST" }) =>
    selection.allMatching
      ? client.datasets.setSplit.mutate({ datasetId, filter, split })
      : inChunks(selection.ids, ["updated"], (entryIds) => client.datasets.setSplit.mutate({ datasetId, entryIds, split })),
  );

/**
 * Splits the selection at random: round(testRatio x n) to TEST (the server draws them). Over 1,000
 * picked rows, each call draws its own exact share, so the whole is within a row per call.
 */
export const useResplit = () =>
  useEntriesChange((client, { datasetId, selection, filter, testRatio }: Target & { testRatio: number }) =>
    selection.allMatching
      ? client.datasets.resplit.mutate({ datasetId, filter, testRatio })
      : inChunks(selection.ids, ["matched", "test", "train"], (entryIds) => client.datasets.resplit.mutate({ datasetId, entryIds, testRatio })),
  );

/**
 * Saves an edited entry. The loaded pages get the saved entry in place (no refetch, the list keeps
 * its scroll); the dataset's counts are asked again.
 */
export function useUpdateEntry() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const entriesKey = useEntriesKey();
  return useMutation(
    trpc.datasets.updateEntry.mutationOptions({
      onSuccess: (saved) => {
        queryClient.setQueriesData<InfiniteData<EntriesPage>>({ queryKey: entriesKey(saved.datasetId).slice(0, 3) }, (old) =>
          old ? { ...old, pages: old.pages.map((p) => ({ ...p, entries: p.entries.map((e) => (e.id === saved.id ? saved : e)) })) } : old,
        );
        void queryClient.invalidateQueries({ queryKey: trpc.datasets.pathKey(), predicate: (q) => q.queryKey[1] !== "console-infinite" });
      },
    }),
  );
}

export function useAddEntries() {
  const trpc = useTRPC();
  const refresh = useRefreshDataset();
  return useMutation(trpc.datasets.addEntries.mutationOptions({ onSuccess: (_r, v) => refresh(v.datasetId) }));
}

export function useImportLogs() {
  const trpc = useTRPC();
  const refresh = useRefreshDataset();
  return useMutation(trpc.datasets.importLogs.mutationOptions({ onSuccess: (_r, v) => refresh(String(v.datasetId)) }));
}

export function useAcceptRelabel(datasetId: string) {
  const trpc = useTRPC();
  const refresh = useRefreshDataset();
  return useMutation(trpc.datasets.acceptRelabel.mutationOptions({ onSuccess: () => refresh(datasetId) }));
}

export function useRevertEntry(datasetId: string) {
  const trpc = useTRPC();
  const refresh = useRefreshDataset();
  return useMutation(trpc.datasets.revertEntry.mutationOptions({ onSuccess: () => refresh(datasetId) }));
}

/** Judge and relabel start tasks; the task list is asked again to show their progress. */
export function useQualityTasks(datasetId: string) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const onSuccess = () => queryClient.invalidateQueries({ queryKey: trpc.datasets.tasks.queryKey({ datasetId }) });
  const judge = useMutation(trpc.datasets.judgeEntries.mutationOptions({ onSuccess }));
  const relabel = useMutation(trpc.datasets.relabelEntries.mutationOptions({ onSuccess }));
  return { judge, relabel };
}

// ---------------------------------------------------------------- files

export type UploadState = {
  linesDone: number;
  linesTotal: number;
  created: number;
  errors: { line: number; message: string }[];
  done: boolean;
  failed?: string;
};
/** Lines per importJsonl call: small enough for the body limit, large enough to be quick. */
const CHUNK_LINES = 500;

/** Uploads a JSONL file in chunks of lines; the state (progress, bad lines) as it goes. */
export function useJsonlUpload(datasetId: string) {
  const client = useTRPCClient();
  const refresh = useRefreshDataset();
  const [state, setState] = useState<UploadState | null>(null);
  const upload = async (file: File) => {
    const lines = (await file.text()).split("\n");
    if (lines.at(-1) === "") lines.pop();
    const s: UploadState = { linesDone: 0, linesTotal: lines.length, created: 0, errors: [], done: false };
    setState({ ...s });
    try {
      for (let start = 0; start < lines.length; start += CHUNK_LINES) {
        const chunk = lines.slice(start, start + CHUNK_LINES);
        const r = await client.datasets.importJsonl.mutate({ datasetId, jsonl: chunk.join("\n"), firstLine: start + 1 });
        s.linesDone += chunk.length;
        s.created += r.entriesCreated;
        s.errors.push(...r.errors);
        setState({ ...s });
      }
      s.done = true;
    } catch (err) {
      s.failed = errorMessageOf(err);
    }
    setState({ ...s });
    refresh(datasetId);
  };
  return { state, upload };
}

/** Reads the JSONL export of the entries matching `filter`, page by page; `onProgress` gets the lines so far. */
export function useExportLines(datasetId: string) {
  const client = useTRPCClient();
  return async (filter: EntryFilter, onProgress: (lines: number) => void): Promise<string[]> => {
    const { split, source, verdict, search } = filter;
    const lines: string[] = [];
    let after: string | null = null;
    for (;;) {
      const page: { lines: string[]; endCursor: string | null; hasNextPage: boolean } = await client.datasets.exportPage.query({
        datasetId,
        split,
        source,
        verdict,
        search,
        after,
        first: 500,
      });
      lines.push(...page.lines);
      onProgress(lines.length);
      if (!page.hasNextPage) return lines;
      after = page.endCursor;
    }
  };
}
