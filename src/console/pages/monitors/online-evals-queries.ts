// The online evaluation section's data: the project's online evaluations (read again while the page
// is open, so the pass rates move with traffic), pass rates over time, and the mutations.
import { notifications } from "@mantine/notifications";
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type RouterInputs, type RouterOutputs, useTRPC } from "../../lib/trpc";

export type OnlineEval = RouterOutputs["onlineEvals"]["list"][number];
export type PassRatesInput = NonNullable<RouterInputs["onlineEvals"]["passRates"]>;

const LIVE_MS = 5_000;

export function useOnlineEvals() {
  const trpc = useTRPC();
  return useQuery(trpc.onlineEvals.list.queryOptions(undefined, { refetchInterval: LIVE_MS }));
}

/** Pass rates over a window by model, route or route version. */
export function usePassRates(input: PassRatesInput, opts: { enabled: boolean }) {
  const trpc = useTRPC();
  return useQuery(trpc.onlineEvals.passRates.queryOptions(input, { enabled: opts.enabled, placeholderData: keepPreviousData }));
}

function useRefresh() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: trpc.onlineEvals.list.queryKey() });
}

export function useCreateOnlineEval(onDone: () => void) {
  const trpc = useTRPC();
  const refresh = useRefresh();
  return useMutation(
    trpc.onlineEvals.create.mutationOptions({
      onSuccess: async (e) => {
        notifications.show({ color: "teal", message: `${e.model} is evaluated online` });
        onDone();
        await refresh();
      },
    }),
  );
}

export function useUpdateOnlineEval() {
  const trpc = useTRPC();
  const refresh = useRefresh();
  return useMutation(trpc.onlineEvals.update.mutationOptions({ onSuccess: () => refresh() }));
}

export function useDeleteOnlineEval(onDone: () => void) {
  const trpc = useTRPC();
  const refresh = useRefresh();
  return useMutation(
    trpc.onlineEvals.delete.mutationOptions({
      onSuccess: async () => {
        notifications.show({ message: "Online evaluation deleted" });
        onDone();
        await refresh();
      },
    }),
  );
}
