import { and, eq, inArray } from "drizzle-orm";
import { dbOf, type Ctx } from "../context";
import { datasetEntries } from "../../db/schema";
import { IMPORT_BATCH_BYTES, MAX_JSONL_LINE_BYTES } from "../../core/limits";
import { DomainError, issuesFromZod, parseInput } from "../../core/errors";
import { jsonTextTooDeep, tooDeepError } from "../../core/json-depth";
import { errorFields } from "../../core/logger";
import { assignSplits, entryContentHash, findDataset, insertEntries, touchDataset, type NewEntry } from "./internal";
import { DatasetEntryInput, DatasetIdInput, ImportDatasetJsonlInput } from "./schemas";

type JsonlImportResult = {
  entriesCreated: number;
  /** Lines that could not be imported (the first 1,000 are listed). */
  errorCount: number;
  errors: { line: number; message: string }[];
};

const BATCH = 500;
const MAX_LISTED_ERRORS = 1_000;

/**
 * Imports JSONL rows `{messages, tools?, tool_choice?, response_format?, split?, metadata?}` as
 * they stream in, stored a batch at a time (500 entries or IMPORT_BATCH_BYTES of lines, whichever
 * comes first), so a file of any size is never held in memory whole. Bad lines are reported with
 * their numbers; good lines are stored. Rows without a split get 20% TEST at random within each
 * batch. `firstLine` (default 1) is the number of the first line given, for a file sent in chunks
 * of lines.
 *
 * If reading the lines fails (an upload cut short, a malformed multipart body, a line over the
 * cap), the entries this import already stored are deleted again before the error is thrown: a
 * failed upload changes nothing, and sending it again does not store anything twice.
 */
export async function importDatasetJsonl(
  ctx: Ctx,
  input: { datasetId: string; lines: AsyncIterable<string> | Iterable<string>; firstLine?: number | null },
): Promise<JsonlImportResult> {
  // The lines are a stream, read once below: only the id (and where the lines start) is checked up front.
  const { datasetId, firstLine } = parseInput(DatasetIdInput.extend({ firstLine: ImportDatasetJsonlInput.shape.firstLine }), {
    datasetId: input.datasetId,
    firstLine: input.firstLine,
  });
  await findDataset(ctx, datasetId);
  const result: JsonlImportResult = { entriesCreated: 0, errorCount: 0, errors: [] };
  const fail = (line: number, message: string) => {
    result.errorCount++;
    if (result.errors.length < MAX_LISTED_ERRORS) result.errors.push({ line, message });
  };
  const importId = ctx.deps.ids("datasetImport");
  let batch: DatasetEntryInput[] = [];
  let batchBytes = 0;
  const flush = async () => {
    if (!batch.length) return;
    const splits = assignSplits(
      batch.map((e) => e.split),
      ctx.deps.random,
    );
    const entries: NewEntry[] = batch.map((entry, i) => ({ entry, split: splits[i]!, hash: entryContentHash(entry), source: "upload", importId }));
    batch = [];
    batchBytes = 0;
    await dbOf(ctx).transaction(async (tx) => {
      await touchDataset(ctx, tx, datasetId);
      await insertEntries(ctx, tx, datasetId, entries);
    });
    result.entriesCreated += entries.length;
  };
  try {
    await readLines(input.lines, (firstLine ?? 1) - 1, ctx.deps.config.maxJsonDepth, fail, async (entry, bytes) => {
      // A batch never passes the byte bound (an entry larger than it goes alone).
      if (batch.length && batchBytes + bytes > IMPORT_BATCH_BYTES) await flush();
      batch.push(entry);
      batchBytes += bytes;
      if (batch.length >= BATCH) await flush();
    });
    await flush();
  } catch (err) {
    if (result.entriesCreated > 0) await undoImport(ctx, datasetId, importId);
    throw err;
  }
  return result;
}

/** Deletes what a failed import stored, a batch at a time. */
async function undoImport(ctx: Ctx, datasetId: string, importId: string): Promise<void> {
  const db = dbOf(ctx);
  try {
    for (;;) {
      const ids = db
        .select({ id: datasetEntries.id })
        .from(datasetEntries)
        .where(and(eq(datasetEntries.importId, importId), eq(datasetEntries.datasetId, datasetId), eq(datasetEntries.projectId, ctx.projectId)))
        .limit(1_000);
      const gone = await db.delete(datasetEntries).where(inArray(datasetEntries.id, ids)).returning({ id: datasetEntries.id });
      if (gone.length < 1_000) return;
    }
  } catch (err) {
    ctx.deps.logger.error("a failed import could not be undone", { datasetId, importId, ...errorFields(err) });
    throw new DomainError("UNAVAILABLE", `The upload failed and the entries it had stored could not all be removed (import ${importId}); retry later`);
  }
}

/** Parses and checks each line, handing good entries on with their size in bytes (about). */
async function readLines(
  lines: AsyncIterable<string> | Iterable<string>,
  before: number,
  maxDepth: number,
  fail: (line: number, message: string) => void,
  take: (entry: DatasetEntryInput, bytes: number) => Promise<void>,
): Promise<void> {
  // A chunk of a bigger file numbers its lines from where it starts in the file.
  let lineNo = before;
  for await (const text of lines) {
    lineNo++;
    if (!text.trim()) continue;
    // A UTF-8 character is at most 3 bytes per UTF-16 unit: shorter lines need no count.
    if (text.length > MAX_JSONL_LINE_BYTES / 3 && Buffer.byteLength(text) > MAX_JSONL_LINE_BYTES) {
      fail(lineNo, `line longer than ${MAX_JSONL_LINE_BYTES} bytes`);
      continue;
    }
    if (jsonTextTooDeep(text, maxDepth)) {
      fail(lineNo, tooDeepError(maxDepth, "The line").message);
      continue;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      fail(lineNo, "not valid JSON");
      continue;
    }
    const r = DatasetEntryInput.safeParse(value);
    if (!r.success) {
      fail(
        lineNo,
        issuesFromZod(r.error)
          .map((i) => i.message)
          .join("; "),
      );
      continue;
    }
    await take(r.data, text.length);
  }
}
