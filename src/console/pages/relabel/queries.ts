// Relabel runs: a dataset's runs, one run's outputs side by side, starting runs and deciding on
// outputs (each mutation reads the run, its outputs and the dataset's entries again).
import { useQuery } from "@tanstack/react-query";
import { type Trpc, useChange } from "../../lib/mutations";
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

export const useStartRelabelRun = (onDone: (r: RelabelRun) => void) =>
  useChange((t) => t.relabelRuns.create, { message: (r) => `Relabel run ${r.name} started`, onDone, refresh: (t) => [t.relabelRuns.list.queryKey()] });

/** What deciding on outputs makes stale: the runs and the datasets' entries. */
const DECIDED = (t: Trpc) => [t.relabelRuns.pathKey(), t.datasets.pathKey()];

const outputs = (n: number) => `${n} output${n === 1 ? "" : "s"}`;

export const useAcceptOutputs = () =>
  useChange((t) => t.relabelRuns.accept, {
    message: (r) => `${outputs(r.accepted)} accepted${r.stale ? `; ${r.stale} left as edited since the run read them` : ""}`,
    refresh: DECIDED,
  });
export const useRejectOutputs = () => useChange((t) => t.relabelRuns.reject, { message: (r) => `${outputs(r.rejected)} rejected`, refresh: DECIDED });
