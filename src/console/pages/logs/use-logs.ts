import { type InfiniteData, useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { useEffect, useMemo, useRef, useState } from "react";
import { type RouterOutputs, useTRPC, useTRPCClient } from "../../lib/trpc";
import type { LogFilterInput } from "./search";

export type LogRow = RouterOutputs["logs"]["list"]["logs"][number];
type Page = RouterOutputs["logs"]["list"];

export const PAGE_SIZE = 100;
/** Live tail: how often to ask, and how far behind the newest shown log to look (late writes). */
const LIVE_INTERVAL_MS = 2000;
const LIVE_LOOKBACK_MS = 5000;
/** How long a row that arrived live stays highlighted. */
export const NEW_ROW_MS = 3000;

/** The creation time encoded in a log id (`log_` + UUIDv7 hex: its first 12 digits are ms). */
export function logIdTime(id: string): number {
  const ms = Number.parseInt(id.slice(4, 16), 16);
  return Number.isFinite(ms) ? ms : 0;
}

/**
 * The logs matching a filter, newest first, loaded PAGE_SIZE at a time with the keyset cursor;
 * with `live`, logs newer than the newest shown are asked for every LIVE_INTERVAL_MS and put on top.
 */
export function useLogs(filter: LogFilterInput, live: boolean) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const queryKey = useMemo(() => [...trpc.logs.list.pathKey(), "console-infinite", filter] as const, [trpc, filter]);
  const query = useInfiniteQuery<Page, Error, InfiniteData<Page, string | null>, typeof queryKey, string | null>({
    queryKey,
    initialPageParam: null,
    queryFn: ({ pageParam, signal }) => client.logs.list.query({ filter, first: PAGE_SIZE, after: pageParam }, { signal }),
    getNextPageParam: (last) => (last.hasNextPage ? last.endCursor : undefined),
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
    const loaded = query.data?.pages.flatMap((p) => p.logs) ?? [];
    if (!arrived.length) return loaded;
    const seen = new Set(loaded.map((r) => r.id));
    const extra = arrived.filter((r) => !seen.has(r.id));
    return extra.length ? [...extra, ...loaded].sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)) : loaded;
  }, [query.data, arrived]);

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

  return { query, rows, arrivedAt, liveError: liveQuery.error, queryKey };
}
