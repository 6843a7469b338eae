import Busboy from "busboy";
import { Readable } from "node:stream";
import { DomainError } from "../../errors";
import { MAX_JSONL_LINE_BYTES } from "../../limits";
import { payloadTooLarge } from "./body";

function lineTooLong(): DomainError {
  const message = `a line is longer than ${MAX_JSONL_LINE_BYTES} bytes`;
  return new DomainError("VALIDATION", `A line of the file is too long: ${message}`, { issues: [{ message }] });
}

/** Lines of a byte stream as they arrive (\n or \r\n), enforcing a total size limit. */
export async function* linesOf(chunks: AsyncIterable<Uint8Array>, maxBytes: number): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buf = "";
  let total = 0;
  for await (const chunk of chunks) {
    total += chunk.byteLength;
    if (total > maxBytes) throw payloadTooLarge(maxBytes);
    buf += decoder.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = buf.indexOf("\n")) >= 0) {
      if (nl > MAX_JSONL_LINE_BYTES) throw lineTooLong();
      yield buf.slice(0, nl).replace(/\r$/, "");
      buf = buf.slice(nl + 1);
    }
    // A line without its end is held whole: past the cap the upload stops here (a character is
    // at least a byte, so more characters than the cap's bytes is always over it).
    if (buf.length > MAX_JSONL_LINE_BYTES) throw lineTooLong();
  }
  buf += decoder.decode();
  if (buf) yield buf.replace(/\r$/, "");
}

/**
 * The first file of a multipart/form-data body, streamed (busboy): it is never buffered whole.
 */
export async function* multipartFileChunks(request: Request): AsyncGenerator<Uint8Array> {
  if (!request.body) return;
  const busboy = Busboy({ headers: { "content-type": request.headers.get("content-type") ?? "" }, limits: { files: 1 } });
  const file = new Promise<Readable | null>((resolve, reject) => {
    busboy.on("file", (_name, stream) => resolve(stream));
    busboy.on("error", (err) => reject(new DomainError("VALIDATION", `Malformed multipart body: ${(err as Error).message}`)));
    busboy.on("close", () => resolve(null));
  });
  Readable.fromWeb(request.body as never).pipe(busboy);
  const stream = await file;
  if (!stream) throw new DomainError("VALIDATION", "The multipart body holds no file: send the JSONL as a file field", { issues: [{ message: "no file" }] });
  for await (const chunk of stream) yield chunk as Uint8Array;
}
