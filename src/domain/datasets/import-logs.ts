import { and, asc, eq, inArray, ne, sql } from "drizzle-orm";
import { z } from "zod";
import { dbOf, type Ctx } from "../context";
import { datasetEntries, requestLogBodies, requestLogs } from "../../db/schema";
import { parseInput } from "../../core/errors";
import { IMPORT_BATCH_BYTES, MAX_ID_LENGTH, MAX_IDS_PER_REQUEST } from "../../core/limits";
import { logToEntry, payloadSizes, LogFilter, logConditions, whereAll } from "../logs";
import type { RejectedOutput } from "../../db/schema/datasets";
import { assignSplits, assistantOutput, entryContentHash, findDataset, insertEntries, MAX_REJECTED_OUTPUTS, touchDataset, type NewEntry } from "./internal";
import { createDataset } from "./create-dataset";
import { CreateDatasetInput, type DatasetEntryInput, DatasetId } from "./schemas";

const MAX_LOGS_PER_IMPORT = 100_000;

export const ImportLogsInput = z
  .strictObject({
    /** The dataset to add to; or give newDatasetName to create one in the same call. */
    datasetId: DatasetId.nullish(),
    newDatasetName: CreateDatasetInput.shape.name.nullish(),
    /** Which logs: a filter, a selection (filter.ids or logIds), or both. */
    filter: LogFilter.nullish(),
    logIds: z
      .array(z.string().min(1).max(MAX_ID_LENGTH))
      .max(MAX_IDS_PER_REQUEST, `at most ${MAX_IDS_PER_REQUEST} log ids per request; use a filter for more`)
      .nullish(),
    /**
     * Import a uniform random sample of this many of the matching logs (all of them when fewer
     * match): every subset of that size is equally likely (ORDER BY random() LIMIT n).
     */
    sampleSize: z.number().int().min(1).max(MAX_LOGS_PER_IMPORT).nullish(),
    /** The former name of sampleSize, still accepted (sampleSize wins when both are given). */
    limit: z.number().int().min(1).max(MAX_LOGS_PER_IMPORT).nullish(),
  })
  .superRefine((v, c) => {
    if ((v.datasetId == null) === (v.newDatasetName == null)) {
      c.addIssue({ code: "custom", path: ["datasetId"], message: "give either datasetId or newDatasetName" });
    }
  });
export type ImportLogsInput = z.input<typeof ImportLogsInput>;

export type ImportLogsResult = {
  /** The dataset the entries went to (the new one, with newDatasetName). */
  datasetId: string;
  entriesCreated: number;
  /** Logs whose content already was in the dataset (or twice in this import). */
  duplicatesSkipped: number;
  /** Logs that could not become an entry (no messages, no answer, invalid format). */
  invalidLogs: number;
  errors: { logId: string; message: string }[];
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The losers of a judged best-of-N call: the logged choices carry `criteria_results` and come
 * sorted by their summed score, best first; every choice scoring below the first is a rejected
 * output of the entry the call becomes. A call that was not judged, or with one choice, has none.
 */
export function bestOfNLosers(resp: unknown): Record<string, unknown>[] {
  const choices = isObject(resp) ? resp.choices : undefined;
  if (!Array.isArray(choices) || choices.length < 2) return [];
  const scoreOf = (c: unknown): number | null => {
    if (!isObject(c) || !isObject(c.criteria_results)) return null;
    let total = 0;
    for (const r of Object.values(c.criteria_results)) if (isObject(r) && typeof r.score === "number") total += r.score;
    return total;
  };
  const best = scoreOf(choices[0]);
  if (best === null) return [];
  const losers: Record<string, unknown>[] = [];
  for (const c of choices.slice(1)) {
    const score = scoreOf(c);
    const message = isObject(c) ? c.message : undefined;
    if (score !== null && score < best && isObject(message)) losers.push(assistantOutput(message));
  }
  return losers;
}

/** Whether an import names Hone's own calls itself; otherwise they are left out. */
export function asksForInternal(input: { filter?: LogFilter | null; logIds?: readonly string[] | null }): boolean {
  const f = input.filter;
  return f?.internal === true || f?.source === "internal" || f?.internalKind != null || (f?.ids?.length ?? 0) > 0 || (input.logIds?.length ?? 0) > 0;
}

/** Logs read together: 500, or fewer when their payloads pass IMPORT_BATCH_BYTES (at least one). */
export async function byteBoundedBatches(ctx: Ctx, ids: string[]): Promise<string[][]> {
  const batches: string[][] = [];
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    const sizes = await payloadSizes(dbOf(ctx), ctx.projectId, chunk);
    let batch: string[] = [];
    let bytes = 0;
    for (const id of chunk) {
      const s = sizes.get(id);
      const size = s ? s.req + s.resp : 0;
      if (batch.length && bytes + size > IMPORT_BATCH_BYTES) {
        batches.push(batch);
        batch = [];
        bytes = 0;
      }
      batch.push(id);
      bytes += size;
    }
    if (batch.length) batches.push(batch);
  }
  return batches;
}

/**
 * Adds logged calls to a dataset (an existing one, or one created here with newDatasetName): logs
 * chosen by a filter and/or ids, only status 200, optionally a uniform random sample (sampleSize).
 * Each entry remembers its source log (source "log"); content already in the dataset is skipped and
 * counted.
 */
export async function importLogsToDataset(ctx: Ctx, raw: ImportLogsInput): Promise<ImportLogsResult> {
  const input = parseInput(ImportLogsInput, raw);
  const datasetId = input.datasetId ?? (await createDataset(ctx, { name: input.newDatasetName! })).id;
  if (input.datasetId) await findDataset(ctx, datasetId);
  await ctx.deps.logWriter.flush();
  const db = dbOf(ctx);
  const where = logConditions(ctx.projectId, input.filter);
  where.push(eq(requestLogs.statusCode, 200));
  // Hone's own calls (a judge's "You are an evaluator…") are not training data unless asked for:
  // by the filter (internal, an internal source or kind) or by naming the logs.
  if (!asksForInternal(input)) where.push(ne(requestLogs.source, "internal"));
  if (input.logIds) where.push(inArray(requestLogs.id, input.logIds.length ? input.logIds : ["-"]));
  // A sample: the database gives every matching row a fresh uniform random key and keeps the n
  // smallest (a top-n sort, memory bound by n), so every n-subset of the matches is equally likely.
  // Without one, the first MAX_LOGS_PER_IMPORT matches by id.
  const sampleSize = input.sampleSize ?? input.limit;
  const picked = await db
    .select({ id: requestLogs.id })
    .from(requestLogs)
    .where(whereAll(where))
    .orderBy(sampleSize ? sql`random()` : asc(requestLogs.id))
    .limit(sampleSize ?? MAX_LOGS_PER_IMPORT);

  const result: ImportLogsResult = { datasetId, entriesCreated: 0, duplicatesSkipped: 0, invalidLogs: 0, errors: [] };
  const seen = new Set<string>();
  for (const ids of await byteBoundedBatches(
    ctx,
    picked.map((p) => p.id),
  )) {
    const rows = await db
      .select({ id: requestLogs.id, tags: requestLogs.tags, req: requestLogBodies.reqPayload, resp: requestLogBodies.respPayload })
      .from(requestLogs)
      .innerJoin(requestLogBodies, eq(requestLogBodies.logId, requestLogs.id))
      .where(inArray(requestLogs.id, ids));
    const candidates: { entry: DatasetEntryInput; hash: string; logId: string; resp: unknown }[] = [];
    for (const row of rows) {
      const entry = logToEntry(row.req, row.resp, row.tags);
      if (typeof entry === "string") {
        result.invalidLogs++;
        if (result.errors.length < 100) result.errors.push({ logId: row.id, message: entry });
        continue;
      }
      const hash = entryContentHash(entry);
      if (seen.has(hash)) {
        result.duplicatesSkipped++;
        continue;
      }
      seen.add(hash);
      candidates.push({ entry, hash, logId: row.id, resp: row.resp });
    }
    await db.transaction(async (tx) => {
      await touchDataset(ctx, tx, datasetId);
      const existing = candidates.length
        ? await tx
            .select({ hash: datasetEntries.contentHash })
            .from(datasetEntries)
            .where(
              and(
                eq(datasetEntries.datasetId, datasetId),
                inArray(
                  datasetEntries.contentHash,
                  candidates.map((c) => c.hash),
                ),
              ),
            )
        : [];
      const taken = new Set(existing.map((e) => e.hash));
      const fresh = candidates.filter((c) => !taken.has(c.hash));
      result.duplicatesSkipped += candidates.length - fresh.length;
      const splits = assignSplits(
        fresh.map(() => undefined),
        ctx.deps.random,
      );
      const at = ctx.deps.clock().toISOString();
      const entries: NewEntry[] = fresh.map((c, j) => ({
        entry: c.entry,
        split: splits[j]!,
        hash: c.hash,
        sourceLogId: c.logId,
        source: "log",
        rejectedOutputs: rejectedOf(c.resp, c.logId, at),
      }));
      await insertEntries(ctx, tx, datasetId, entries);
      result.entriesCreated += entries.length;
    });
  }
  return result;
}

/** A judged best-of-N call's losers as an entry's rejected outputs. */
export function rejectedOf(resp: unknown, logId: string, at: string): RejectedOutput[] {
  return bestOfNLosers(resp)
    .slice(-MAX_REJECTED_OUTPUTS)
    .map((message) => ({ message, source: "best-of-n" as const, ref: logId, at }));
}
