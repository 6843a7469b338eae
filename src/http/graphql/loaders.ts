import DataLoader from "dataloader";
import {
  loadDatasets,
  loadEntriesBySourceLog,
  loadEntryPages,
  loadEntryVerdicts,
  type Dataset,
  type DatasetEntry,
  type DatasetEntryPage,
  type EntryPageArgs,
  type EntryVerdict,
} from "../../domain/datasets";
import { loadLogBodies, loadLogs, type RequestLog, type RequestLogBody } from "../../domain/logs";
import { loadModelsByDataset, type Model } from "../../domain/models";
import { loadRouteSeries, loadRouteStats, type RouteSeries, type RouteVersionStats, statsWindow } from "../../domain/routing";
import { type AlignmentRowPageArgs, type AlignmentStats, loadAlignmentRowPages, loadAlignmentRunsByCriterion } from "../../domain/criteria";
import {
  type EvaluationResult,
  type EvaluationSummaryRow,
  loadEvaluationResultPages,
  loadEvaluationSummaries,
  type ResultPageArgs,
} from "../../domain/evaluations";
import type { AlignmentRow, AlignmentVerdict } from "../../domain/criteria";
import { projectCtx, type GqlContext } from "./builder";

// Per-request batch loaders: N parents asking for a related object cost one query, not N.
type Loaders = {
  /** A log's request payload (and its original), and its response payload (and its original). */
  logRequests: DataLoader<string, RequestLogBody | null>;
  logResponses: DataLoader<string, RequestLogBody | null>;
  logs: DataLoader<string, RequestLog | null>;
  entriesBySourceLog: DataLoader<string, DatasetEntry[]>;
  datasets: DataLoader<string, Dataset | null>;
  /** Criterion id -> its versions' last alignment runs: a list of criteria costs one query. */
  alignmentRunsByCriterion: DataLoader<string, (AlignmentStats & { createdAt: Date })[]>;
  /** Dataset id -> the models fine-tuned on it: a page of datasets costs one query. */
  modelsByDataset: DataLoader<string, Model[]>;
  /** Entry id -> the latest verdict of each criterion: a page of entries costs one query. */
  entryVerdicts: DataLoader<string, EntryVerdict[]>;
  /** Route slug -> each version's figures over a window; one loader (one pair of queries) per window asked for. */
  routeStats(window: { from?: Date | null; to?: Date | null }): DataLoader<string, RouteVersionStats[]>;
  /** Route slug -> each version's figures per time bucket; as routeStats. */
  routeSeries(window: { from?: Date | null; to?: Date | null }): DataLoader<string, RouteSeries | null>;
  /** Dataset id -> one page of its entries; one loader per distinct page arguments. */
  entryPages(args: EntryPageArgs): DataLoader<string, DatasetEntryPage>;
  /** Criterion id -> one page of its alignment rows; one loader per distinct page arguments. */
  alignmentRowPages(args: AlignmentRowPageArgs): DataLoader<string, (AlignmentRow & { verdicts: AlignmentVerdict[] })[]>;
  /** Evaluation id -> one page of its results; one loader per distinct page arguments. */
  evaluationResultPages(args: ResultPageArgs): DataLoader<string, EvaluationResult[]>;
  /** Evaluation id -> its summary: a page of evaluations costs two queries. */
  evaluationSummaries: DataLoader<string, EvaluationSummaryRow[]>;
};

const byContext = new WeakMap<GqlContext, Loaders>();

function batch<V>(load: (ids: readonly string[]) => Promise<Map<string, V>>, missing: V): DataLoader<string, V> {
  return new DataLoader(async (ids) => {
    const found = await load(ids);
    return ids.map((id) => found.get(id) ?? missing);
  });
}

/**
 * The same for stored content (payloads, entries): no cache, so a key asked for twice (two aliases,
 * two places in the answer) reaches the verb twice, which charges its size to the answer for each
 * place it will appear in, while still reading it once.
 */
function content<V>(load: (ids: readonly string[]) => Promise<Map<string, V>>, missing: V): DataLoader<string, V> {
  return new DataLoader(
    async (ids) => {
      const found = await load(ids);
      return ids.map((id) => found.get(id) ?? missing);
    },
    { cache: false },
  );
}

/** One loader per distinct argument set: parents asking for the same page batch into one query. */
function perArguments<A, V>(make: (args: A) => DataLoader<string, V>): (args: A) => DataLoader<string, V> {
  const byArgs = new Map<string, DataLoader<string, V>>();
  return (args) => {
    const key = JSON.stringify(args);
    let loader = byArgs.get(key);
    if (!loader) byArgs.set(key, (loader = make(args)));
    return loader;
  };
}

export function loadersOf(context: GqlContext): Loaders {
  let loaders = byContext.get(context);
  if (!loaders) {
    const ctx = projectCtx(context);
    loaders = {
      logRequests: content((ids) => loadLogBodies(ctx, ids, "request"), null),
      logResponses: content((ids) => loadLogBodies(ctx, ids, "response"), null),
      logs: batch((ids) => loadLogs(ctx, ids), null),
      entriesBySourceLog: content((ids) => loadEntriesBySourceLog(ctx, ids), []),
      datasets: batch((ids) => loadDatasets(ctx, ids), null),
      modelsByDataset: batch((ids) => loadModelsByDataset(ctx, ids), []),
      alignmentRunsByCriterion: batch((ids) => loadAlignmentRunsByCriterion(ctx, ids), []),
      entryVerdicts: batch((ids) => loadEntryVerdicts(ctx, ids), []),
      // The default window ends when the batch runs: the same for every route of the request.
      routeStats: perArguments((w) => batch((slugs) => loadRouteStats(ctx, slugs, statsWindow(ctx, w)), [])),
      routeSeries: perArguments((w) => batch((slugs) => loadRouteSeries(ctx, slugs, statsWindow(ctx, w)), null)),
      entryPages: perArguments((args) => content((ids) => loadEntryPages(ctx, ids, args), { entries: [], hasNextPage: false, endCursor: null })),
      alignmentRowPages: perArguments((args) => content((ids) => loadAlignmentRowPages(ctx, ids, args), [])),
      evaluationResultPages: perArguments((args) => content((ids) => loadEvaluationResultPages(ctx, ids, args), [])),
      evaluationSummaries: batch((ids) => loadEvaluationSummaries(ctx, ids), []),
    };
    byContext.set(context, loaders);
  }
  return loaders;
}
