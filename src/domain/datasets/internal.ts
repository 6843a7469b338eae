import { and, asc, eq, inArray, isNotNull, isNull, type SQL, sql } from "drizzle-orm";
import { canonicalJson, sha256Hex } from "../../canonical-json";
import { dbOf, type Ctx } from "../../context";
import type { Queryable } from "../../db/client";
import type { RejectedOutput } from "../../db/schema/datasets";
import { datasetEntries, datasets, type datasetTasks, entryVerdicts, models } from "../../db/schema";
import { DomainError, notFound } from "../../errors";
import type { Dataset, DatasetEntry, DatasetEntryInput, DatasetTask, EntryFilter, EntrySource, EntryVerdict, Split, VerdictFilter } from "./schemas";

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
 * The latest verdict of each criterion on each of these entries, in one statement. Scoped by the
 * entry's project, so ids of another project's entries simply find nothing.
 */
export async function verdictsOfEntries(db: Queryable, projectId: string, entryIds: readonly string[]): Promise<Map<string, EntryVerdict[]>> {
  const out = new Map<string, EntryVerdict[]>();
  if (!entryIds.length) return out;
  const rows = await db
    .select({
      entryId: entryVerdicts.entryId,
      criterionId: entryVerdicts.criterionId,
      version: entryVerdicts.version,
      judgement: entryVerdicts.judgement,
      explanation: entryVerdicts.explanation,
      error: entryVerdicts.error,
      judgedAt: entryVerdicts.createdAt,
    })
    .from(entryVerdicts)
    .innerJoin(datasetEntries, eq(datasetEntries.id, entryVerdicts.entryId))
    .where(and(inArray(entryVerdicts.entryId, [...entryIds]), eq(datasetEntries.projectId, projectId)))
    .orderBy(asc(entryVerdicts.entryId), asc(entryVerdicts.criterionId));
  for (const { entryId, ...v } of rows) {
    const list = out.get(entryId) ?? [];
    list.push({ ...v, score: v.judgement === "PASS" ? 1 : v.judgement === "FAIL" ? 0 : null });
    out.set(entryId, list);
  }
  return out;
}

/**
 * The condition "the latest verdict of this criterion on the entry is this judgement" (one verdict
 * row per entry and criterion: a new judgement replaces it). ERROR: the judge gave none; NONE: the
 * criterion never judged the entry.
 */
export function verdictCondition(v: VerdictFilter): SQL {
  const criterionId = v.criterionId.replace(/@v\d+$/, "");
  const of = sql`select 1 from ${entryVerdicts} v where v.entry_id = ${datasetEntries.id} and v.criterion_id = ${criterionId}`;
  switch (v.judgement) {
    case "NONE":
      return sql`not exists (${of})`;
    case "ERROR":
      return sql`exists (${of} and v.judgement is null)`;
    default:
      return sql`exists (${of} and v.judgement = ${v.judgement})`;
  }
}

/**
 * Text in an entry's messages, case-insensitive: message contents (strings or text parts), tool
 * call names and arguments, legacy function calls and refusals. Keys and roles are not searched.
 * The term is a literal (jsonpath like_regex with flag q), passed as a JSON string literal inside
 * a bound jsonpath parameter, so neither SQL nor the path language can be injected.
 */
function searchCondition(term: string): SQL {
  const q = JSON.stringify(term);
  const m = (path: string) => `${path} like_regex ${q} flag "iq"`;
  const path = `$[*] ? (${[
    m("@.content"),
    m("@.content[*].text"),
    m("@.content[*].refusal"),
    m("@.tool_calls[*].function.name"),
    m("@.tool_calls[*].function.arguments"),
    m("@.function_call.name"),
    m("@.function_call.arguments"),
    m("@.refusal"),
  ].join(" || ")})`;
  return sql`jsonb_path_exists(${datasetEntries.messages}, ${path}::jsonpath)`;
}

/** The conditions of an entry filter (the dataset and project conditions are the caller's). */
export function entryConditions(f: Partial<EntryFilter> | null | undefined): SQL[] {
  const where: SQL[] = [];
  if (!f) return where;
  if (f.split) where.push(eq(datasetEntries.split, f.split));
  if (f.source) where.push(eq(datasetEntries.source, f.source));
  if (f.verdict) where.push(verdictCondition(f.verdict));
  if (f.pendingReview != null) where.push(f.pendingReview ? isNotNull(datasetEntries.originalMessages) : isNull(datasetEntries.originalMessages));
  if (f.search?.trim()) where.push(searchCondition(f.search.trim()));
  return where;
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

export function encodeCursor(id: string): string {
  return Buffer.from(id, "utf8").toString("base64url");
}

export function decodeCursor(cursor: string): string {
  const id = Buffer.from(cursor, "base64url").toString("utf8");
  if (!/^[a-z]+_[0-9a-f]{32}$/.test(id)) {
    throw new DomainError("VALIDATION", "Input validation failed", {
      issues: [{ message: "after: not a cursor returned by this API", path: ["after"] }],
    });
  }
  return id;
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
export async function insertEntries(ctx: Ctx, db: Queryable, datasetId: string, entries: NewEntry[]): Promise<void> {
  const now = ctx.deps.clock();
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

/**
 * An entry's stored size in bytes (kept by a trigger on every write; measured by the database for
 * entries older than the column), what reading it costs an answer (HONE_MAX_RESPONSE_BYTES).
 */
export const ENTRY_SIZE = sql<number>`coalesce(${datasetEntries.bytes}, octet_length(${datasetEntries.messages}::text)
  + coalesce(octet_length(${datasetEntries.tools}::text), 0) + coalesce(octet_length(${datasetEntries.toolChoice}::text), 0)
  + coalesce(octet_length(${datasetEntries.responseFormat}::text), 0) + coalesce(octet_length(${datasetEntries.metadata}::text), 0)
  + coalesce(octet_length(${datasetEntries.originalMessages}::text), 0))`;

/** Entries of the project by id, in id order (the second step of a read that was sized first). */
export async function entriesByIds(ctx: Ctx, ids: readonly string[]): Promise<(typeof datasetEntries.$inferSelect)[]> {
  if (!ids.length) return [];
  return dbOf(ctx)
    .select()
    .from(datasetEntries)
    .where(and(inArray(datasetEntries.id, [...ids]), eq(datasetEntries.projectId, ctx.projectId)))
    .orderBy(asc(datasetEntries.id));
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

/** The named entries of one dataset of the project (ids named twice count once; others' never match). */
export function namedEntries(ctx: Ctx, datasetId: string, entryIds: readonly string[]): SQL {
  return and(eq(datasetEntries.datasetId, datasetId), eq(datasetEntries.projectId, ctx.projectId), inArray(datasetEntries.id, [...new Set(entryIds)]))!;
}

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
