import { dbOf, type Ctx } from "../../context";
import { MAX_JSONL_LINE_BYTES } from "../../limits";
import { issuesFromZod, parseInput } from "../../errors";
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
 * they stream in, 500 at a time, so a file of any size is never held in memory whole. Bad lines
 * are reported with their numbers; good lines are stored. Rows without a split get 20% TEST at
 * random within each batch. `firstLine` (default 1) is the number of the first line given, for a
 * file sent in chunks of lines.
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
  let batch: DatasetEntryInput[] = [];
  const flush = async () => {
    if (!batch.length) return;
    const splits = assignSplits(
      batch.map((e) => e.split),
      ctx.deps.random,
    );
    const entries: NewEntry[] = batch.map((entry, i) => ({ entry, split: splits[i]!, hash: entryContentHash(entry), source: "upload" }));
    await dbOf(ctx).transaction(async (tx) => {
      await touchDataset(ctx, tx, datasetId);
      await insertEntries(ctx, tx, datasetId, entries);
    });
    result.entriesCreated += entries.length;
    batch = [];
  };
  // A chunk of a bigger file numbers its lines from where it starts in the file.
  let lineNo = (firstLine ?? 1) - 1;
  for await (const text of input.lines) {
    lineNo++;
    if (!text.trim()) continue;
    // A UTF-8 character is at most 3 bytes per UTF-16 unit: shorter lines need no count.
    if (text.length > MAX_JSONL_LINE_BYTES / 3 && Buffer.byteLength(text) > MAX_JSONL_LINE_BYTES) {
      fail(lineNo, `line longer than ${MAX_JSONL_LINE_BYTES} bytes`);
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
    batch.push(r.data);
    if (batch.length >= BATCH) await flush();
  }
  await flush();
  return result;
}
