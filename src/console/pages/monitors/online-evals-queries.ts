// The online evaluation section's data: the project's online evaluations (read again while the page
// is open, so the pass rates move with traffic), pass rates over time, and the mutations.
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { type Trpc, useChange } from "../../lib/mutations";
import { useWholeList } from "../../lib/project-lists";
import { type RouterInputs, type RouterOutputs, useTRPC } from "../../lib/trpc";

export type OnlineEval = RouterOutputs["onlineEvals"]["list"][number];
export type PassRatesInput = NonNullable<RouterInputs["onlineEvals"]["passRates"]>;

const LIVE_MS = 5_000;

export const useOnlineEvals = () =>
  useWholeList((t, c) => ({ key: t.onlineEvals.list.queryKey(), list: c.onlineEvals.list.query }), { refetchInterval: LIVE_MS });

/** Pass rates over a window by model, route or route version. */
export function usePassRates(input: PassRatesInput, opts: { enabled: boolean }) {
  const trpc = useTRPC();
  return useQuery(trpc.onlineEvals.passRates.queryOptions(input, { enabled: opts.enabled, placeholderData: keepPreviousData }));
}

const EVALS = (t: Trpc) => [t.onlineEvals.list.queryKey()];

export const useCreateOnlineEval = (onDone: () => void) =>
  useChange((t) => t.onlineEvals.create, { message: (e) => `${e.model} is evaluated online`, color: "teal", onDone, refresh: EVALS });
export const useUpdateOnlineEval = () => useChange((t) => t.onlineEvals.update, { refresh: EVALS });
export const useDeleteOnlineEval = (onDone: () => void) =>
  useChange((t) => t.onlineEvals.delete, { message: () => "Online evaluation deleted", onDone, refresh: EVALS });
