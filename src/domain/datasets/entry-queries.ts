import { and, asc, eq, inArray, isNotNull, isNull, type SQL, sql } from "drizzle-orm";
import { dbOf, type Ctx } from "../context";
import type { Queryable } from "../../db/client";
import { datasetEntries, entryVerdicts } from "../../db/schema";
import { DomainError } from "../../core/errors";
import type { EntryFilter, EntryVerdict, VerdictFilter } from "./schemas";

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

/** The named entries of one dataset of the project (ids named twice count once; others' never match). */
export function namedEntries(ctx: Ctx, datasetId: string, entryIds: readonly string[]): SQL {
  return and(eq(datasetEntries.datasetId, datasetId), eq(datasetEntries.projectId, ctx.projectId), inArray(datasetEntries.id, [...new Set(entryIds)]))!;
}
