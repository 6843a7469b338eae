// The monitors section's data: the project's monitors (read again while the page is open, so the
// counts move with traffic) and the mutations that change them.
import { useCriterionList, useDatasetList } from "../../lib/project-lists";
import { notifications } from "@mantine/notifications";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type RouterInputs, type RouterOutputs, useTRPC } from "../../lib/trpc";

export type Monitor = RouterOutputs["monitors"]["list"][number];
export type MonitorFilter = NonNullable<RouterInputs["monitors"]["create"]["filter"]>;

const LIVE_MS = 3_000;

export function useMonitors() {
  const trpc = useTRPC();
  return useQuery(trpc.monitors.list.queryOptions(undefined, { refetchInterval: LIVE_MS }));
}

export function useMonitorChoices(enabled: boolean) {
  const datasets = useDatasetList({ enabled });
  const criteria = useCriterionList({ enabled });
  return { datasets, criteria };
}

function useRefresh() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: trpc.monitors.list.queryKey() });
}

export function useCreateMonitor(onDone: (m: Monitor) => void) {
  const trpc = useTRPC();
  const refresh = useRefresh();
  return useMutation(
    trpc.monitors.create.mutationOptions({
      onSuccess: async (m) => {
        notifications.show({ color: "teal", message: `Monitor ${m.name} saved` });
        onDone(m);
        await refresh();
      },
    }),
  );
}

export function useUpdateMonitor() {
  const trpc = useTRPC();
  const refresh = useRefresh();
  return useMutation(trpc.monitors.update.mutationOptions({ onSuccess: () => refresh() }));
}

export function useDeleteMonitor(onDone: () => void) {
  const trpc = useTRPC();
  const refresh = useRefresh();
  return useMutation(
    trpc.monitors.delete.mutationOptions({
      onSuccess: async () => {
        notifications.show({ message: "Monitor deleted" });
        onDone();
        await refresh();
      },
    }),
  );
}

export function useBackfillMonitor(onDone: () => void) {
  const trpc = useTRPC();
  const refresh = useRefresh();
  return useMutation(
    trpc.monitors.backfill.mutationOptions({
      onSuccess: async (r) => {
        notifications.show({
          message: `${r.offered.toLocaleString("en-US")} past call${r.offered === 1 ? "" : "s"} offered${r.capped ? " (the first 100,000: backfill again from the last)" : ""}`,
        });
        onDone();
        await refresh();
      },
    }),
  );
}
