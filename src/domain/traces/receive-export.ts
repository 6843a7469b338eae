import { gunzipSync } from "node:zlib";
import type { Ctx } from "../context";
import { DomainError } from "../../core/errors";
import { type DecodedSpans, decodeJson, decodeProtobuf, OtlpDecodeError } from "../../lib/otlp/decode";
import { parseJsonKeepingText } from "../../lib/json-text";
import { checkIngestRoom, type IngestResult, ingestSpans } from "./ingest-spans";

// One OTLP/HTTP trace export, as the receiver read it (docs/traces.md): unpacked, decoded and
// stored. Where that happens: on Postgres, the server hands it to the ingest thread
// (src/background/ingest-thread.ts, connected as deps.traceIngest.thread) so decoding and
// rebuilding model calls never take the serving thread's time; on PGlite, or when the thread is
// not running, here, in this thread's ingest lanes.

export type ExportRequest = {
  /** The body as sent (gzip or not). */
  bytes: Uint8Array;
  protobuf: boolean;
  /** content-encoding, lower-cased: "" | "identity" | "gzip". */
  encoding: string;
};

/** The ingest thread, as the server sees it: room to check before a body is read, and an export to store. */
export type TraceIngestThread = {
  /** Throws the 429 an export would get now (what waits for the thread is full). */
  room(): void;
  run(ctx: Ctx, req: ExportRequest): Promise<IngestResult>;
};

const decodeLimits = (maxSpans: number) => ({ maxSpans, maxAttributes: 512, maxEvents: 128, maxDepth: 8 });

function bad(message: string): DomainError {
  return new DomainError("VALIDATION", message, { issues: [{ message }] });
}

/** Unpacks and decodes an export: a 400 for a body that is not one, a 413 past four times HONE_OTLP_MAX_BYTES unpacked. */
export function decodeExport(ctx: Ctx, req: ExportRequest): DecodedSpans {
  const max = ctx.deps.config.otlpMaxBytes;
  let bytes = req.bytes;
  if (req.encoding === "gzip") {
    try {
      bytes = gunzipSync(bytes, { maxOutputLength: max * 4 });
    } catch (err) {
      const large = err instanceof RangeError || (err as { code?: string }).code === "ERR_BUFFER_TOO_LARGE";
      throw large
        ? new DomainError("PAYLOAD_TOO_LARGE", `The export unpacks to more than ${max * 4} bytes (four times HONE_OTLP_MAX_BYTES): send smaller batches`)
        : bad("content-encoding gzip, but the body is not gzip");
    }
  } else if (req.encoding && req.encoding !== "identity") {
    throw bad(`content-encoding ${req.encoding} is not supported: send gzip or none`);
  }
  const limits = decodeLimits(ctx.deps.config.otlpMaxSpans);
  try {
    if (req.protobuf) return decodeProtobuf(bytes, limits);
    let value: unknown;
    try {
      value = parseJsonKeepingText(new TextDecoder().decode(bytes));
    } catch {
      throw new OtlpDecodeError("malformed JSON");
    }
    return decodeJson(value, limits);
  } catch (err) {
    if (err instanceof OtlpDecodeError) throw bad(`not an OTLP trace export: ${err.message}`);
    throw err;
  }
}

/** Throws the 429 an export would get now, before its body is read (memory stays bounded whatever exporters send). */
export function checkExportRoom(ctx: Ctx): void {
  const thread = ctx.deps.traceIngest.thread;
  if (thread) thread.room();
  else checkIngestRoom();
}

/** Stores one export for the project, on the ingest thread when one runs, else here. */
export async function receiveExport(ctx: Ctx, req: ExportRequest): Promise<IngestResult> {
  const thread = ctx.deps.traceIngest.thread;
  if (thread) return thread.run(ctx, req);
  return ingestSpans(ctx, decodeExport(ctx, req), req.bytes.byteLength);
}
