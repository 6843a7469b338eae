// The logs section's data layer: every query and mutation of the Logs pages, their keys and what
// each change invalidates. Components call these hooks; none of them calls useQuery, useMutation
// or invalidateQueries itself.
import { useDatasetList } from "../../lib/project-lists";
import { notifications } from "@mantine/notifications";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { useCursorPages } from "../../lib/cursor-pages";
import { formatNumber } from "../../lib/format";
import { errorMessageOf, type RouterOutputs, useTRPC, useTRPCClient } from "../../lib/trpc";
import { fetchLogsPage, logCountOptions, logFacetsOptions, logsListKey, PAGE_SIZE } from "./first-page";
import type { LogFilterInput } from "./search";

export type LogRow = RouterOutputs["logs"]["list"]["logs"][number];
export type LogDetailData = RouterOutputs["logs"]["get"];
/** The logs chosen in the table: these ids, or every log matching the filter. */
export type Selection = { ids: Set<string>; allMatching: boolean };
type Page = RouterOutputs["logs"]["list"];
type ImportResult = RouterOutputs["datasets"]["importLogs"];

/** Live tail: how often to ask, and how far behind the newest shown log to look (late writes). */
const LIVE_INTERVAL_MS = 2000;
const LIVE_LOOKBACK_MS = 5000;
/** How long a row that arrived live stays highlighted. */
export const NEW_ROW_MS = 3000;
/** The API takes at most this many ids at once; a bigger selection goes in several calls. */
export const IDS_PER_CALL = 1000;
const EXPORT_PAGE = 200;

/** The creation time encoded in a log id (`log_` + UUIDv7 hex: its first 12 digits are ms). */
export function logIdTime(id: string): number {
  const ms = Number.parseInt(id.slice(4, 16), 16);
  return Number.isFinite(ms) ? ms : 0;
}

const logsOfPage = (p: Page) => p.logs;

/** Everything the logs section caches (lists, counts, details, suggestions) sits under this key. */
function useLogsKey() {
  const trpc = useTRPC();
  return useMemo(() => trpc.logs.pathKey(), [trpc]);
}

/** Drops every cached logs answer (after tags changed, logs were imported): they are asked again. */
export function useInvalidateLogs() {
  const queryClient = useQueryClient();
  const key = useLogsKey();
  return useCallback(() => queryClient.invalidateQueries({ queryKey: key }), [queryClient, key]);
}

/**
 * The logs matching a filter, newest first, loaded PAGE_SIZE at a time with the keyset cursor;
 * with `live`, logs newer than the newest shown are asked for every LIVE_INTERVAL_MS and put on top.
 */
export function useLogs(filter: LogFilterInput, live: boolean) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const queryKey = useMemo(() => logsListKey(trpc, filter), [trpc, filter]);
  const { query, items: loaded } = useCursorPages<Page, LogRow>({
    queryKey,
    fetchPage: (after, signal) => fetchLogsPage(client, filter, after, signal),
    itemsOf: logsOfPage,
    staleTime: Number.POSITIVE_INFINITY,
  });

  // Rows that arrived by the live tail, newest first; cleared when the filter changes.
  const [arrived, setArrived] = useState<LogRow[]>([]);
  const [arrivedAt, setArrivedAt] = useState<Map<string, number>>(new Map());
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new filter starts a new list
  useEffect(() => {
    setArrived([]);
    setArrivedAt(new Map());
  }, [queryKey]);

  const rows = useMemo(() => {
    if (!arrived.length) return loaded;
    const seen = new Set(loaded.map((r) => r.id));
    const extra = arrived.filter((r) => !seen.has(r.id));
    return extra.length ? [...extra, ...loaded].sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)) : loaded;
  }, [loaded, arrived]);

  const newestRef = useRef<string | null>(null);
  newestRef.current = rows[0]?.id ?? null;
  const rowsRef = useRef(rows);
  rowsRef.current = rows;

  const liveQuery = useQuery({
    queryKey: [...trpc.logs.list.pathKey(), "console-live", filter],
    enabled: live && query.isSuccess,
    refetchInterval: LIVE_INTERVAL_MS,
    refetchIntervalInBackground: false,
    staleTime: 0,
    gcTime: 0,
    queryFn: async ({ signal }) => {
      const newest = newestRef.current;
      const since = newest ? logIdTime(newest) - LIVE_LOOKBACK_MS : Date.now() - LIVE_LOOKBACK_MS;
      const from = filter.from ? Math.max(new Date(filter.from as string).getTime(), since) : since;
      const page = await client.logs.list.query({ filter: { ...filter, from: new Date(from).toISOString() }, first: PAGE_SIZE }, { signal });
      return page.logs;
    },
  });

  useEffect(() => {
    const fresh = liveQuery.data;
    if (!fresh?.length) return;
    const shown = new Set(rowsRef.current.map((r) => r.id));
    const added = fresh.filter((r) => !shown.has(r.id));
    if (!added.length) return;
    const now = Date.now();
    setArrived((prev) => [...added, ...prev]);
    setArrivedAt((prev) => {
      const next = new Map([...prev].filter(([, t]) => now - t < NEW_ROW_MS));
      for (const r of added) next.set(r.id, now);
      return next;
    });
  }, [liveQuery.data]);

  return { query, rows, arrivedAt, liveError: liveQuery.error };
}

/** How many logs match: exact up to 10,000, an estimate beyond. */
export function useLogCount(filter: LogFilterInput, opts: { live?: boolean; enabled?: boolean } = {}) {
  const trpc = useTRPC();
  return useQuery({ ...logCountOptions(trpc, filter), refetchInterval: opts.live ? 5000 : false, enabled: opts.enabled });
}

/** Models and providers of the newest logs (filter suggestions). */
export function useLogFacets() {
  const trpc = useTRPC();
  return useQuery(logFacetsOptions(trpc));
}

/** Tag keys of the newest logs, most frequent first. */
export function useTagKeys() {
  const trpc = useTRPC();
  return useQuery(trpc.logs.tagKeys.queryOptions(undefined, { staleTime: 60_000 }));
}

/** The most frequent values of one tag key (none asked for while the key is empty). */
export function useTagValues(key: string) {
  const trpc = useTRPC();
  return useQuery(trpc.logs.tagValues.queryOptions({ key }, { enabled: key.length > 0, staleTime: 60_000 }));
}

/** One log with its payloads, dataset entries and criteria results. */
export function useLog(id: string) {
  const trpc = useTRPC();
  return useQuery(trpc.logs.get.queryOptions({ id }));
}

/** Sets or removes tags on one log (the drawer's editor); the lists and the detail are asked again. */
export function useSetLogTags(opts: { onSuccess?: () => void } = {}) {
  const trpc = useTRPC();
  const invalidate = useInvalidateLogs();
  const onSuccess = opts.onSuccess;
  return useMutation(
    trpc.logs.setTags.mutationOptions({
      onSuccess: async () => {
        onSuccess?.();
        await invalidate();
      },
      onError: (err) => notifications.show({ color: "red", title: "Could not change the tags", message: errorMessageOf(err) }),
    }),
  );
}

/** Sets or removes one tag on every log of a selection (several calls for a large one). */
export function useBulkSetTags() {
  const client = useTRPCClient();
  const invalidate = useInvalidateLogs();
  return useMutation({
    mutationFn: async ({ filters, mode, key, value }: { filters: LogFilterInput[]; mode: "set" | "remove"; key: string; value: string }) => {
      let updated = 0;
      for (const filter of filters) {
        const r = await client.logs.setTags.mutate(mode === "set" ? { filter, set: { [key]: value } } : { filter, remove: [key] });
        updated += r.updated;
      }
      return { updated };
    },
    onSuccess: () => invalidate(),
  });
}

/** The project's datasets (to add logs to), asked for only while `enabled`. */
export function useDatasetChoices(enabled: boolean) {
  return useDatasetList({ enabled });
}

export type AddToDatasetResult = ImportResult & { dataset: { id: string; name: string } };

/**
 * Imports logs into a dataset, one call per filter (a large selection is several id lists): into
 * the dataset of that id, or a new one of that name (created by the first call). Datasets and the
 * logs' detail (its dataset entries) are asked again.
 */
export function useAddToDataset() {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const queryClient = useQueryClient();
  const invalidateLogs = useInvalidateLogs();
  return useMutation({
    mutationFn: async ({ filters, existing, name }: { filters: LogFilterInput[]; existing: { id: string; name: string } | null; name: string }) => {
      let datasetId = existing?.id ?? null;
      const total: ImportResult = { datasetId: datasetId ?? "", entriesCreated: 0, duplicatesSkipped: 0, invalidLogs: 0, errors: [] };
      for (const filter of filters) {
        const r = await client.datasets.importLogs.mutate(datasetId ? { datasetId, filter } : { newDatasetName: name, filter });
        datasetId = r.datasetId;
        total.datasetId = r.datasetId;
        total.entriesCreated += r.entriesCreated;
        total.duplicatesSkipped += r.duplicatesSkipped;
        total.invalidLogs += r.invalidLogs;
        total.errors.push(...r.errors.slice(0, 100 - total.errors.length));
      }
      return { ...total, dataset: { id: total.datasetId, name: existing?.name ?? name } } satisfies AddToDatasetResult;
    },
    onSuccess: async () => {
      await Promise.all([queryClient.invalidateQueries({ queryKey: trpc.datasets.pathKey() }), invalidateLogs()]);
    },
  });
}

function downloadBlob(parts: BlobPart[], name: string) {
  const url = URL.createObjectURL(new Blob(parts, { type: "application/x-ndjson" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Exports logs as a .jsonl download, a page of logs.exportPage at a time, with progress. */
export function useJsonlExport() {
  const client = useTRPCClient();
  const [progress, setProgress] = useState<{ done: number; total: number } | null>(null);
  const run = async (filters: LogFilterInput[], total: number) => {
    setProgress({ done: 0, total });
    const parts: string[] = [];
    let done = 0;
    try {
      for (const f of filters) {
        let after: string | null = null;
        for (;;) {
          const page: RouterOutputs["logs"]["exportPage"] = await client.logs.exportPage.query({ filter: f, first: EXPORT_PAGE, after });
          for (const line of page.lines) parts.push(`${line}\n`);
          done += page.lines.length;
          setProgress({ done, total: Math.max(total, done) });
          if (!page.hasNextPage || !page.endCursor) break;
          after = page.endCursor;
        }
      }
      downloadBlob(parts, `hone-logs-${new Date().toISOString().replace(/[:.]/g, "-")}.jsonl`);
      notifications.show({ color: "teal", title: "Export ready", message: `${formatNumber(done)} ${done === 1 ? "log" : "logs"} exported` });
    } catch (err) {
      notifications.show({ color: "red", title: "Export failed", message: errorMessageOf(err) });
    } finally {
      setProgress(null);
    }
  };
  return { run, progress };
}
