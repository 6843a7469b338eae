// What the Logs page shows first (its first page of rows, the count, the filter suggestions): the
// query keys and fetches the page's hooks use, and a prefetch of them that runs as the console
// starts, alongside the session check and the page's own modules, instead of after them. Kept free
// of components so the shell can hold it without the page.
import type { QueryClient } from "@tanstack/react-query";
import type { Client, RouterOutputs, Trpc } from "../../lib/trpc";
import { type LogFilterInput, parseLogsSearch, toLogFilter } from "./search";

type Page = RouterOutputs["logs"]["list"];

export const PAGE_SIZE = 100;
/** How long a count and the filter suggestions stay fresh. */
export const COUNT_STALE_MS = 5000;
export const FACETS_STALE_MS = 300_000;

/** The key of the infinite list of logs matching `filter`. */
export const logsListKey = (trpc: Trpc, filter: LogFilterInput) => [...trpc.logs.list.pathKey(), "console-infinite", filter] as const;

/** One page of the logs matching `filter`, after the keyset cursor `after` (null: the first). */
export const fetchLogsPage = (client: Client, filter: LogFilterInput, after: string | null, signal?: AbortSignal): Promise<Page> =>
  client.logs.list.query({ filter, first: PAGE_SIZE, after }, { signal });

export const logCountOptions = (trpc: Trpc, filter: LogFilterInput) => trpc.logs.count.queryOptions({ filter }, { staleTime: COUNT_STALE_MS });
export const logFacetsOptions = (trpc: Trpc) => trpc.logs.facets.queryOptions(undefined, { staleTime: FACETS_STALE_MS });

/**
 * Asks for the Logs page's first answers for `search` (the URL's, unparsed) before the page is
 * mounted: the page then finds them in the cache, or joins the calls in flight. Marked
 * `beforeSession`: if nobody is signed in they fail quietly and the sign-in page shows as usual.
 * A relative range ("last hour") is skipped: its bounds are fixed when the page mounts.
 */
export function prefetchLogsPage(queryClient: QueryClient, trpc: Trpc, client: Client, rawSearch: Record<string, unknown>): void {
  const search = parseLogsSearch(rawSearch);
  if (search.range && search.range !== "custom") return;
  const filter = toLogFilter(search);
  const meta = { beforeSession: true };
  void queryClient.prefetchInfiniteQuery({
    queryKey: logsListKey(trpc, filter),
    queryFn: ({ signal }) => fetchLogsPage(client, filter, null, signal),
    initialPageParam: null as string | null,
    meta,
  });
  void queryClient.prefetchQuery({ ...logCountOptions(trpc, filter), meta });
  void queryClient.prefetchQuery({ ...logFacetsOptions(trpc), meta });
}
