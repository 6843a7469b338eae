import DataLoader from "dataloader";
import { loadLogBodies, type RequestLogBody } from "../../domain/logs";
import { projectCtx, type GqlContext } from "./builder";

// Per-request batch loaders: a list of N logs asking for their bodies costs one query, not N.
export type Loaders = { logBodies: DataLoader<string, RequestLogBody | null> };

const byContext = new WeakMap<GqlContext, Loaders>();

export function loadersOf(context: GqlContext): Loaders {
  let loaders = byContext.get(context);
  if (!loaders) {
    const ctx = projectCtx(context);
    loaders = {
      logBodies: new DataLoader(async (ids) => {
        const found = await loadLogBodies(ctx, ids);
        return ids.map((id) => found.get(id) ?? null);
      }),
    };
    byContext.set(context, loaders);
  }
  return loaders;
}
