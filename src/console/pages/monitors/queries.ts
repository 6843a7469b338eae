// The monitors section's data: the project's monitors (read again while the page is open, so the
// counts move with traffic) and the mutations that change them.
import { useCriterionList, useDatasetList, useWholeList } from "../../lib/project-lists";
import { type Trpc, useChange } from "../../lib/mutations";
import type { RouterInputs, RouterOutputs } from "../../lib/trpc";

export type Monitor = RouterOutputs["monitors"]["list"][number];
export type MonitorFilter = NonNullable<RouterInputs["monitors"]["create"]["filter"]>;

const LIVE_MS = 3_000;

export const useMonitors = () => useWholeList((t, c) => ({ key: t.monitors.list.queryKey(), list: c.monitors.list.query }), { refetchInterval: LIVE_MS });

export function useMonitorChoices(enabled: boolean) {
  const datasets = useDatasetList({ enabled });
  const criteria = useCriterionList({ enabled });
  return { datasets, criteria };
}

const MONITORS = (t: Trpc) => [t.monitors.list.queryKey()];

export const useCreateMonitor = (onDone: (m: Monitor) => void) =>
  useChange((t) => t.monitors.create, { message: (m) => `Monitor ${m.name} saved`, color: "teal", onDone, refresh: MONITORS });
export const useUpdateMonitor = () => useChange((t) => t.monitors.update, { refresh: MONITORS });
export const useDeleteMonitor = (onDone: () => void) => useChange((t) => t.monitors.delete, { message: () => "Monitor deleted", onDone, refresh: MONITORS });
export const useBackfillMonitor = (onDone: () => void) =>
  useChange((t) => t.monitors.backfill, {
    message: (r) =>
      `${r.offered.toLocaleString("en-US")} past call${r.offered === 1 ? "" : "s"} offered${r.capped ? " (the first 100,000: backfill again from the last)" : ""}`,
    onDone,
    refresh: MONITORS,
  });
