import { type InfiniteData, type QueryKey, useInfiniteQuery } from "@tanstack/react-query";
import { useMemo } from "react";

/** A keyset page as every list procedure answers it: its items under some name, and where to go on. */
export type CursorPage = { hasNextPage: boolean; endCursor: string | null };

/**
 * One hook for the console's long lists (logs, dataset entries, evaluation entries): pages of a
 * keyset-paged procedure, loaded as the list scrolls. `fetchPage` gets the cursor (null first) and
 * the signal; `itemsOf` picks the items out of a page. The items of every loaded page come flat.
 */
export function useCursorPages<P extends CursorPage, T>(opts: {
  queryKey: QueryKey;
  fetchPage: (after: string | null, signal: AbortSignal) => Promise<P>;
  itemsOf: (page: P) => T[];
  enabled?: boolean;
  staleTime?: number;
  /** Keep the old pages on screen while a new key loads (a filter change). */
  keepPrevious?: boolean;
}) {
  const query = useInfiniteQuery<P, Error, InfiniteData<P, string | null>, QueryKey, string | null>({
    queryKey: opts.queryKey,
    initialPageParam: null,
    queryFn: ({ pageParam, signal }) => opts.fetchPage(pageParam, signal),
    getNextPageParam: (last) => (last.hasNextPage ? last.endCursor : undefined),
    enabled: opts.enabled,
    staleTime: opts.staleTime,
    ...(opts.keepPrevious ? { placeholderData: (old: InfiniteData<P, string | null> | undefined) => old } : {}),
  });
  const { itemsOf } = opts;
  const items = useMemo(() => query.data?.pages.flatMap((p) => itemsOf(p)) ?? [], [query.data, itemsOf]);
  return { query, items };
}
