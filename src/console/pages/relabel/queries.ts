// Relabel runs: a dataset's runs, one run's outputs side by side, starting runs and deciding on
// outputs (each mutation reads the run, its outputs and the dataset's entries again).
import { notifications } from "@mantine/notifications";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type RouterOutputs, useTRPC } from "../../lib/trpc";

export type RelabelRun = RouterOutputs["relabelRuns"]["list"][number];
export type RelabelOutput = RouterOutputs["relabelRuns"]["outputs"]["outputs"][number];

const busy = (r: { status: string } | undefined) => r?.status === "QUEUED" || r?.status === "RUNNING";

export function useRelabelRuns(datasetId: string) {
  const trpc = useTRPC();
  return useQuery(trpc.relabelRuns.list.queryOptions({ datasetId }, { refetchInterval: (q) => (q.state.data?.some(busy) ? 1_000 : false) }));
}

export function useRelabelRun(id: string) {
  const trpc = useTRPC();
  return useQuery(trpc.relabelRuns.get.queryOptions({ id }, { refetchInterval: (q) => (busy(q.state.data) ? 1_000 : false) }));
}

export function useRelabelOutputs(id: string, running: boolean) {
  const trpc = useTRPC();
  return useQuery(trpc.relabelRuns.outputs.queryOptions({ id, first: 200 }, { refetchInterval: running ? 1_000 : false }));
}

export function useStartRelabelRun(onDone: (r: RelabelRun) => void) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return useMutation(
    trpc.relabelRuns.create.mutationOptions({
      onSuccess: async (r) => {
        notifications.show({ message: `Relabel run ${r.name} started` });
        onDone(r);
        await queryClient.invalidateQueries({ queryKey: trpc.relabelRuns.list.queryKey() });
      },
    }),
  );
}

function useRefreshDecided() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.relabelRuns.pathKey() }),
      queryClient.invalidateQueries({ queryKey: trpc.datasets.pathKey() }),
    ]);
}

const outputs = (n: number) => `${n} output${n === 1 ? "" : "s"}`;

export function useAcceptOutputs() {
  const trpc = useTRPC();
  const refresh = useRefreshDecided();
  return useMutation(
    trpc.relabelRuns.accept.mutationOptions({
      onSuccess: async (r) => {
        notifications.show({ message: `${outputs(r.accepted)} accepted${r.stale ? `; ${r.stale} left as edited since the run read them` : ""}` });
        await refresh();
      },
    }),
  );
}

export function useRejectOutputs() {
  const trpc = useTRPC();
  const refresh = useRefreshDecided();
  return useMutation(
    trpc.relabelRuns.reject.mutationOptions({
      onSuccess: async (r) => {
        notifications.show({ message: `${outputs(r.rejected)} rejected` });
        await refresh();
      },
    }),
  );
}
