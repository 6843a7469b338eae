import { storageMasking } from "../masking";
import { and, eq, sql } from "drizzle-orm";
import { canonicalJson, sha256Hex } from "../../lib/canonical-json";
import { dbOf, type Ctx } from "../context";
import type { Queryable } from "../../db/client";
import type { RejectedOutput } from "../../db/schema/datasets";
import { datasetEntries, datasets, type datasetTasks, models } from "../../db/schema";
import { notFound } from "../../core/errors";
import type { Dataset, DatasetEntry, DatasetEntryInput, DatasetTask, EntrySource, Split } from "./schemas";

// Counted on read so they are always exact; the (dataset_id, id) index makes this an index-only scan.
const entryCount = sql<number>`(select count(*) from ${datasetEntries} where ${datasetEntries.datasetId} = ${datasets.id})::int`;

// The (dataset_id, split) index answers this one from the index alone too; TRAIN is the rest.
const testCount = sql<number>`(select count(*) from ${datasetEntries} where ${datasetEntries.datasetId} = ${datasets.id} and ${datasetEntries.split} = 'TEST')::int`;

const fineTuneCount = sql<number>`(select count(*) from ${models} where ${models.datasetId} = ${datasets.id})::int`;

/** A dataset's columns with its counts, as subqueries of the same statement (a list costs one query). */
export const datasetColumns = {
  id: datasets.id,
  name: datasets.name,
  createdAt: datasets.createdAt,
  updatedAt: datasets.updatedAt,
  entryCount,
  testCount,
  fineTuneCount,
};

type DatasetRow = { id: string; name: string; createdAt: Date; updatedAt: Date; entryCount: number; testCount: number; fineTuneCount: number };

export function toDataset(row: DatasetRow): Dataset {
  const entries = Number(row.entryCount);
  const test = Number(row.testCount);
  return {
    id: row.id,
    name: row.name,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    entryCount: entries,
    trainCount: entries - test,
    testCount: test,
    fineTuneCount: Number(row.fineTuneCount),
  };
}

/** The dataset if it belongs to ctx's project; another project's dataset is simply not found. */
export async function findDataset(ctx: Ctx, datasetId: string): Promise<Dataset> {
  const [row] = await dbOf(ctx)
    .select(datasetColumns)
    .from(datasets)
    .where(and(eq(datasets.id, datasetId), eq(datasets.projectId, ctx.projectId)));
  if (!row) throw notFound("Dataset", datasetId);
  return toDataset(row);
}

export function toDatasetEntry(row: typeof datasetEntries.$inferSelect): DatasetEntry {
  return {
    id: row.id,
    datasetId: row.datasetId,
    split: row.split,
    messages: row.messages,
    tools: row.tools ?? null,
    toolChoice: row.toolChoice ?? null,
    responseFormat: row.responseFormat ?? null,
    metadata: row.metadata,
    createdAt: row.createdAt,
    sourceLogId: row.sourceLogId ?? null,
    source: row.source,
    originalMessages: row.originalMessages ?? null,
    relabeledBy: row.relabeledBy ?? null,
    rejectedOutputs: row.rejectedOutputs ?? [],
    monitorId: row.monitorId ?? null,
  };
}

/**
 * Picks which entries without a split go to TEST: 20% of them in expectation, chosen at random.
 * floor(0.2·n) entries always, plus one more with probability equal to the remainder, so even a
 * request with a single entry lands in TEST one time in five.
 */
export function assignSplits(given: (Split | undefined)[], random: () => number): Split[] {
  const open = given.flatMap((s, i) => (s === undefined ? [i] : []));
  const target = 0.2 * open.length;
  let testCount = Math.floor(target);
  if (random() < target - testCount) testCount += 1;
  // Partial Fisher-Yates: the first testCount slots become a uniform random sample.
  for (let i = 0; i < testCount; i++) {
    const j = i + Math.floor(random() * (open.length - i));
    [open[i], open[j]] = [open[j]!, open[i]!];
  }
  const test = new Set(open.slice(0, testCount));
  return given.map((s, i) => s ?? (test.has(i) ? "TEST" : "TRAIN"));
}

/** What makes two entries the same training example (metadata and split do not). */
export function entryContentHash(e: Pick<DatasetEntryInput, "messages" | "tools" | "tool_choice" | "response_format">): string {
  return sha256Hex(
    canonicalJson({ messages: e.messages, tools: e.tools ?? null, tool_choice: e.tool_choice ?? null, response_format: e.response_format ?? null }),
  );
}

export type NewEntry = {
  entry: DatasetEntryInput;
  split: Split;
  hash: string;
  sourceLogId?: string | null;
  source: EntrySource;
  /** The JSONL upload storing it (see importDatasetJsonl). */
  importId?: string;
  /** The monitor that added it. */
  monitorId?: string;
  /** Preference data it comes with (a judged best-of-N call's losers). */
  rejectedOutputs?: RejectedOutput[];
};

/** Inserts validated entries into a dataset of ctx's project, 500 rows per statement. */
export async function insertEntries(ctx: Ctx, db: Queryable, datasetId: string, given: NewEntry[]): Promise<void> {
  const now = ctx.deps.clock();
  // Under the project's masking rule an entry is stored with placeholders (domain/masking), its
  // content hash of what is stored.
  const mask = await storageMasking(
    ctx,
    given.map((e) => [e.entry, e.rejectedOutputs]),
  );
  const entries = mask ? given.map((e) => maskedEntry(e, mask)) : given;
  for (let i = 0; i < entries.length; i += 500) {
    await db.insert(datasetEntries).values(
      entries.slice(i, i + 500).map(({ entry, split, hash, sourceLogId, source, importId, monitorId, rejectedOutputs }) => ({
        id: ctx.deps.ids("datasetEntry"),
        datasetId,
        projectId: ctx.projectId,
        messages: entry.messages,
        tools: entry.tools ?? null,
        toolChoice: entry.tool_choice ?? null,
        responseFormat: entry.response_format ?? null,
        metadata: entry.metadata ?? {},
        split,
        createdAt: now,
        sourceLogId: sourceLogId ?? null,
        source,
        contentHash: hash,
        importId: importId ?? null,
        monitorId: monitorId ?? null,
        rejectedOutputs: rejectedOutputs ?? [],
      })),
    );
  }
}

function maskedEntry(e: NewEntry, mask: <T>(v: T) => T): NewEntry {
  const masked = mask({ entry: e.entry, rejectedOutputs: e.rejectedOutputs ?? null });
  if (masked.entry === e.entry && masked.rejectedOutputs === (e.rejectedOutputs ?? null)) return e;
  return { ...e, entry: masked.entry, hash: entryContentHash(masked.entry), ...(masked.rejectedOutputs ? { rejectedOutputs: masked.rejectedOutputs } : {}) };
}

/** Marks the dataset changed, failing with NOT_FOUND when it is not the project's; locks its row. */
export async function touchDataset(ctx: Ctx, db: Queryable, datasetId: string): Promise<void> {
  const [row] = await db
    .update(datasets)
    .set({ updatedAt: ctx.deps.clock() })
    .where(and(eq(datasets.id, datasetId), eq(datasets.projectId, ctx.projectId)))
    .returning({ id: datasets.id });
  if (!row) throw notFound("Dataset", datasetId);
}

export const toDatasetTask = (r: typeof datasetTasks.$inferSelect): DatasetTask => ({
  id: r.id,
  datasetId: r.datasetId,
  kind: r.kind,
  criterionId: r.criterionId,
  criterionVersion: r.criterionVersion,
  model: r.model,
  status: r.status,
  progress: { done: r.done, total: r.total },
  errorMessage: r.errorMessage,
  createdAt: r.createdAt,
});

/** Rejected outputs an entry keeps (the oldest go first). */
export const MAX_REJECTED_OUTPUTS = 10;

/** An output added to an entry's rejected ones (preference data), the oldest dropped past MAX_REJECTED_OUTPUTS. */
export function withRejected(list: RejectedOutput[], out: RejectedOutput): RejectedOutput[] {
  return [...list, out].slice(-MAX_REJECTED_OUTPUTS);
}

/** A model's message as an entry's answer: the assistant's content and its tool calls, nothing else. */
export function assistantOutput(m: { content?: unknown; tool_calls?: unknown }): Record<string, unknown> {
  const out: Record<string, unknown> = { role: "assistant", content: m.content ?? null };
  if (Array.isArray(m.tool_calls) && m.tool_calls.length) out.tool_calls = m.tool_calls;
  return out;
}
