import { and, asc, eq } from "drizzle-orm";
import { dbOf, type Ctx } from "../context";
import { datasetEntries, datasets } from "../../db/schema";
import { getLog, loadLogBodies } from "./get-log";
import type { RequestLog, RequestLogBody } from "./inputs";

/** Dataset entries a log fed (at most this many are listed). */
export const MAX_LOG_DATASET_ENTRIES = 50;

/** One choice's criteria results, as the gateway returned them (best of N, `op-criteria`). */
export type LogCriteriaResults = { index: number; results: Record<string, unknown> }[];

export type LogDetail = RequestLog &
  RequestLogBody & {
    /** The dataset entries imported from this log (oldest first, at most 50). */
    datasetEntries: { datasetId: string; datasetName: string; entryId: string }[];
    /** Per choice, the criteria results stored in the response; null when it has none. */
    criteriaResults: LogCriteriaResults | null;
  };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The criteria results of a logged response: `choices[].criteria_results`, keyed by criterion id. */
export function criteriaResultsOf(resp: unknown): LogCriteriaResults | null {
  const choices = isObject(resp) && Array.isArray(resp.choices) ? resp.choices : [];
  const out: LogCriteriaResults = [];
  choices.forEach((c, position) => {
    if (isObject(c) && isObject(c.criteria_results)) {
      out.push({ index: typeof c.index === "number" ? c.index : position, results: c.criteria_results });
    }
  });
  return out.length ? out : null;
}

/** Everything the log detail view shows: the log, its payloads (and originals), the entries it fed and its criteria results. */
export async function getLogDetail(ctx: Ctx, raw: { id: string }): Promise<LogDetail> {
  const log = await getLog(ctx, raw);
  const [bodies, entries] = await Promise.all([
    loadLogBodies(ctx, [log.id]),
    dbOf(ctx)
      .select({ datasetId: datasets.id, datasetName: datasets.name, entryId: datasetEntries.id })
      .from(datasetEntries)
      .innerJoin(datasets, eq(datasets.id, datasetEntries.datasetId))
      .where(and(eq(datasetEntries.sourceLogId, log.id), eq(datasetEntries.projectId, ctx.projectId), eq(datasets.projectId, ctx.projectId)))
      .orderBy(asc(datasetEntries.id))
      .limit(MAX_LOG_DATASET_ENTRIES),
  ]);
  const body = bodies.get(log.id);
  return {
    ...log,
    reqPayload: body?.reqPayload ?? null,
    respPayload: body?.respPayload ?? null,
    reqPayloadOriginal: body?.reqPayloadOriginal ?? null,
    respPayloadOriginal: body?.respPayloadOriginal ?? null,
    datasetEntries: entries,
    criteriaResults: criteriaResultsOf(body?.respPayload),
  };
}
