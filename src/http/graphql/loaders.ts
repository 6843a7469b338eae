import DataLoader from "dataloader";
import { loadDatasets, loadEntriesBySourceLog, type Dataset, type DatasetEntry } from "../../domain/datasets";
import { loadLogBodies, loadLogs, type RequestLog, type RequestLogBody } from "../../domain/logs";
import { projectCtx, type GqlContext } from "./builder";

// Per-request batch loaders: N parents asking for a related object cost one query, not N.
export type Loaders = {
  logBodies: DataLoader<string, RequestLogBody | null>;
  logs: DataLoader<string, RequestLog | null>;
  entriesBySourceLog: DataLoader<string, DatasetEntry[]>;
  datasets: DataLoader<string, Dataset | null>;
};

const byContext = new WeakMap<GqlContext, Loaders>();

function batch<V>(load: (ids: readonly string[]) => Promise<Map<string, V>>, missing: V): DataLoader<string, V> {
  return new DataLoader(async (ids) => {
    const found = await load(ids);
    return ids.map((id) => found.get(id) ?? missing);
  });
}

export function loadersOf(context: GqlContext): Loaders {
  let loaders = byContext.get(context);
  if (!loaders) {
    const ctx = projectCtx(context);
    loaders = {
      logBodies: batch((ids) => loadLogBodies(ctx, ids), null),
      logs: batch((ids) => loadLogs(ctx, ids), null),
      entriesBySourceLog: batch((ids) => loadEntriesBySourceLog(ctx, ids), []),
      datasets: batch((ids) => loadDatasets(ctx, ids), null),
    };
    byContext.set(context, loaders);
  }
  return loaders;
}
