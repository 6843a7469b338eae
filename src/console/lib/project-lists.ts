// The project's lists the console shows whole (datasets, criteria, models, evaluations): the API
// answers them a page at a time (HONE_MAX_PAGE_SIZE at most), so each is read page by page, newest
// first, until a short page, under the procedure's own query key (so invalidating it still works).
import { useQuery } from "@tanstack/react-query";
import { type RouterOutputs, useTRPC, useTRPCClient } from "./trpc";

/** Items asked for per page (below the smallest HONE_MAX_PAGE_SIZE an operator is likely to set). */
export const LIST_PAGE = 100;
/** Pages read at most: 10,000 items. */
const MAX_PAGES = 100;

export async function allPages<T>(
  page: (after: string | null) => Promise<T[]>,
  cursorOf: (item: T) => string = (item) => (item as { id: string }).id,
): Promise<T[]> {
  const out: T[] = [];
  let after: string | null = null;
  for (let i = 0; i < MAX_PAGES; i++) {
    const items = await page(after);
    out.push(...items);
    if (items.length < LIST_PAGE) break;
    after = cursorOf(items.at(-1)!);
  }
  return out;
}

type Trpc = ReturnType<typeof useTRPC>;
type Client = ReturnType<typeof useTRPCClient>;

/**
 * A list the API pages (first/after) that a page shows whole: read page by page under the
 * procedure's own key (so a change that invalidates it still does). `pick` names the procedure:
 * `(t, c) => ({ key: t.routes.list.queryKey(), list: c.routes.list.query })`.
 */
export function useWholeList<T>(
  pick: (
    trpc: Trpc,
    client: Client,
  ) => {
    key: readonly unknown[];
    list: (input: { first: number; after: string | null }, opts: { signal: AbortSignal }) => Promise<T[]>;
  },
  opts: { cursorOf?: (item: T) => string; enabled?: boolean; refetchInterval?: number; staleTime?: number } = {},
) {
  const { key, list } = pick(useTRPC(), useTRPCClient());
  return useQuery({
    queryKey: key,
    queryFn: ({ signal }) => allPages((after) => list({ first: LIST_PAGE, after }, { signal }), opts.cursorOf),
    enabled: opts.enabled,
    refetchInterval: opts.refetchInterval,
    staleTime: opts.staleTime,
  });
}

type ListOpts<T> = { enabled?: boolean; refetchInterval?: (data: T[] | undefined) => number | false };
const intervalOf =
  <T>(opts: ListOpts<T>) =>
  (q: { state: { data: T[] | undefined } }) =>
    opts.refetchInterval ? opts.refetchInterval(q.state.data) : false;

export type DatasetItem = RouterOutputs["datasets"]["list"][number];
export type CriterionItem = RouterOutputs["criteria"]["list"][number];
export type ModelItem = RouterOutputs["models"]["list"][number];
export type EvaluationItem = RouterOutputs["evaluations"]["list"][number];

export function useDatasetList(opts: ListOpts<DatasetItem> = {}) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  return useQuery({
    queryKey: trpc.datasets.list.queryKey(),
    queryFn: ({ signal }) => allPages((after) => client.datasets.list.query({ first: LIST_PAGE, after }, { signal })),
    enabled: opts.enabled,
    refetchInterval: intervalOf(opts),
  });
}

export function useCriterionList(opts: ListOpts<CriterionItem> = {}) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  return useQuery({
    queryKey: trpc.criteria.list.queryKey(),
    queryFn: ({ signal }) => allPages((after) => client.criteria.list.query({ first: LIST_PAGE, after }, { signal })),
    enabled: opts.enabled,
    refetchInterval: intervalOf(opts),
  });
}

export function useModelList(opts: ListOpts<ModelItem> = {}) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  return useQuery({
    queryKey: trpc.models.list.queryKey(),
    queryFn: ({ signal }) => allPages((after) => client.models.list.query({ first: LIST_PAGE, after }, { signal })),
    enabled: opts.enabled,
    refetchInterval: intervalOf(opts),
  });
}

export function useEvaluationList(opts: ListOpts<EvaluationItem> = {}) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  return useQuery({
    queryKey: trpc.evaluations.list.queryKey(),
    queryFn: ({ signal }) => allPages((after) => client.evaluations.list.query({ first: LIST_PAGE, after }, { signal })),
    enabled: opts.enabled,
    refetchInterval: intervalOf(opts),
  });
}
