import Busboy from "busboy";
import { Readable } from "node:stream";
import { DomainError } from "../../core/errors";
import { MAX_JSONL_LINE_BYTES } from "../../core/limits";
import { payloadTooLarge } from "./body";

function lineTooLong(): DomainError {
  const message = `a line is longer than ${MAX_JSONL_LINE_BYTES} bytes`;
  return new DomainError("VALIDATION", `A line of the file is too long: ${message}`, { issues: [{ message }] });
}

function malformedMultipart(why: string): DomainError {
  return new DomainError("VALIDATION", `Malformed multipart body: ${why}`, { issues: [{ message: why }] });
}

function emptyUpload(): DomainError {
  return new DomainError("VALIDATION", "The upload is empty: send JSONL, one entry per line", { issues: [{ message: "no bytes in the file" }] });
}

/**
 * Lines of a byte stream as they arrive (\n or \r\n), enforcing a total size limit. An upload of no
 * bytes at all is a 400: a client that meant to send a file sent nothing.
 *
 * Newlines are looked for in each chunk's bytes only, and a line is decoded once, when it is
 * whole: a line of megabytes arriving in 64 KiB pieces is neither rescanned nor copied per piece.
 */
export async function* linesOf(chunks: AsyncIterable<Uint8Array>, maxBytes: number): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  /** Pieces of the line not yet ended, and their length. */
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  let total = 0;
  const take = (last: Uint8Array): string => {
    const bytes = pending.length ? Buffer.concat([...pending, last]) : last;
    pending = [];
    pendingBytes = 0;
    const text = decoder.decode(bytes);
    return text.endsWith("\r") ? text.slice(0, -1) : text;
  };
  for await (const chunk of readable(chunks)) {
    total += chunk.byteLength;
    if (total > maxBytes) throw payloadTooLarge(maxBytes);
    let from = 0;
    for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, from)) {
      if (pendingBytes + nl - from > MAX_JSONL_LINE_BYTES) throw lineTooLong();
      yield take(chunk.subarray(from, nl));
      from = nl + 1;
    }
    if (from < chunk.byteLength) {
      pending.push(chunk.subarray(from));
      pendingBytes += chunk.byteLength - from;
      // A line without its end is held whole: past the cap the upload stops here.
      if (pendingBytes > MAX_JSONL_LINE_BYTES) throw lineTooLong();
    }
  }
  if (total === 0) throw emptyUpload();
  if (pendingBytes) yield take(new Uint8Array(0));
}

/** The chunks, with a failure to read them (the client went away mid-upload) as a 400 that says so. */
async function* readable(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  try {
    yield* chunks;
  } catch (err) {
    if (err instanceof DomainError) throw err;
    const why = err instanceof Error ? err.message : String(err);
    throw new DomainError("VALIDATION", `The upload could not be read to its end: ${why}`, { issues: [{ message: why }] });
  }
}

/**
 * The first file of a multipart/form-data body, streamed (busboy): it is never buffered whole.
 *
 * Every stream involved (the request body, busboy, the file part) has an error listener for as
 * long as it lives, including after the caller stopped reading: busboy reports a truncated body
 * ("Unexpected end of form") on the parser and on the file part, sometimes after the file was
 * handed over, and an error event nobody listens to ends the process. Whatever way the body is
 * malformed (no boundary, the boundary never seen, no file part, cut short), the caller gets a
 * VALIDATION error.
 */
export async function* multipartFileChunks(request: Request): AsyncGenerator<Uint8Array> {
  const type = request.headers.get("content-type") ?? "";
  if (!/;\s*boundary=/i.test(type)) {
    throw malformedMultipart("the Content-Type has no boundary= parameter (multipart/form-data; boundary=...)");
  }
  if (!request.body) throw emptyUpload();
  let parser: ReturnType<typeof Busboy>;
  try {
    parser = Busboy({ headers: { "content-type": type }, limits: { files: 1 } });
  } catch (err) {
    throw malformedMultipart(err instanceof Error ? err.message : "the Content-Type could not be read");
  }
  const source = Readable.fromWeb(request.body as never);
  let failure: DomainError | null = null;
  let wake: (() => void) | null = null;
  const fail = (err: unknown) => {
    failure ??= err instanceof DomainError ? err : malformedMultipart(err instanceof Error ? err.message : String(err));
    wake?.();
  };
  // Attached before anything flows and never removed.
  source.on("error", fail);
  parser.on("error", fail);
  let file: Readable | null = null;
  let closed = false;
  parser.on("file", (_name, stream) => {
    stream.on("error", fail);
    if (file) {
      stream.resume(); // only the first file is read
      return;
    }
    file = stream;
    wake?.();
  });
  parser.on("close", () => {
    closed = true;
    wake?.();
  });
  source.pipe(parser);
  try {
    while (!file && !failure && !closed) await new Promise<void>((resolve) => (wake = resolve));
    wake = null;
    if (failure) throw failure;
    if (!file) {
      throw new DomainError("VALIDATION", "The multipart body holds no file: send the JSONL as a file field", {
        issues: [{ message: "no file part (or the boundary was never seen)" }],
      });
    }
    const part: Readable = file;
    for await (const chunk of part) {
      if (failure) throw failure;
      yield chunk as Uint8Array;
    }
    // The file part can end cleanly while the parser still finds the body cut short: wait for its verdict.
    while (!closed && !failure) await new Promise<void>((resolve) => (wake = resolve));
    if (failure) throw failure;
  } catch (err) {
    if (err instanceof DomainError) throw err;
    throw failure ?? malformedMultipart(err instanceof Error ? err.message : String(err));
  } finally {
    wake = null;
    // Stops reading the request (a consumer that gave up, or a failure); the listeners stay.
    source.unpipe(parser);
    source.destroy();
    if (!closed) parser.destroy();
  }
}
