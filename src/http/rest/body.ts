import { DomainError } from "../../core/errors";
import { jsonTextTooDeep, tooDeepError } from "../../core/json-depth";
import { parseJsonKeepingText } from "../../lib/json-text";

/**
 * Reads a JSON request body, enforcing the size limit while streaming so an oversized chunked
 * body is cut off without being buffered whole. The Content-Type is not required: curl's `-d`
 * sends form encoding by default, and the body is JSON either way.
 */
export async function readJsonBody(request: Request, limits: BodyLimits): Promise<unknown> {
  const maxDepth = limits.maxDepth;
  const text = await readBodyText(request, limits.maxBytes, limits.idleMs);
  if (text.trim() === "") {
    throw new DomainError("VALIDATION", "Request body is empty: send a JSON object", {
      issues: [{ message: "expected a JSON body" }],
    });
  }
  if (jsonTextTooDeep(text, maxDepth)) throw tooDeepError(maxDepth, "The request body");
  try {
    return parseJsonKeepingText(text);
  } catch (err) {
    throw new DomainError("VALIDATION", "Malformed JSON in request body", {
      issues: [{ message: err instanceof Error ? err.message : "invalid JSON" }],
    });
  }
}

export type BodyLimits = { maxBytes: number; maxDepth: number; idleMs: number };

export function bodyIdle(idleMs: number): DomainError {
  const message = `The request body stopped arriving: nothing for ${idleMs} ms (HONE_BODY_IDLE_TIMEOUT_MS)`;
  return new DomainError("REQUEST_TIMEOUT", message, { issues: [{ message }] });
}

/** Bodies up to this size are read natively, whole, within the idle timeout; larger ones chunk by chunk. */
const NATIVE_READ_MAX = 1024 * 1024;

/** `read` or, after `ms` without it settling, the idle error; the timer never outlives the race. */
async function withinIdle<T>(read: Promise<T>, ms: number, onIdle: () => void = () => {}): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const idle = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      // Rejected first: stopping the read (onIdle) may settle it as ended, which must not win.
      reject(bodyIdle(ms));
      onIdle();
    }, ms);
  });
  try {
    return await Promise.race([read, idle]);
  } finally {
    clearTimeout(timer);
  }
}

export function payloadTooLarge(maxBytes: number): DomainError {
  return new DomainError("PAYLOAD_TOO_LARGE", `Request body exceeds the limit of ${maxBytes} bytes`, {
    issues: [{ message: `body larger than ${maxBytes} bytes (HONE_MAX_BODY_BYTES)` }],
  });
}

async function readBodyText(request: Request, maxBytes: number, idleMs: number): Promise<string> {
  // A declared length was checked against the limit before routing, and the server reads no more
  // than it: a small body is read whole, natively, within the idle timeout. This comes before
  // touching `request.body`, which would build a JS ReadableStream for every request.
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) <= Math.min(maxBytes, NATIVE_READ_MAX)) return withinIdle(request.text(), idleMs);
  return new TextDecoder().decode(await readBodyBytes(request, maxBytes, idleMs));
}

/** A request body's bytes, read chunk by chunk: counted (a 413 past `maxBytes`) and timed per chunk. */
export async function readBodyBytes(request: Request, maxBytes: number, idleMs: number): Promise<Uint8Array> {
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await withinIdle(reader.read(), idleMs, () => void reader.cancel().catch(() => {}));
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw payloadTooLarge(maxBytes);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/**
 * A request whose body is read through a guard: cut off at `maxBytes` while it streams (a body of
 * undeclared length, chunked), and cut off when nothing arrives for `idleMs`. Routes that read the
 * body their own way (the raw fetch handlers /graphql and /trpc, uploads) get it: reading stops at
 * the first byte over the limit or at the idle deadline (the socket is no longer read), and
 * `exceeded()` / `idled()` tell the caller to answer 413 / 408 whatever the handler made of the
 * broken body.
 */
export function guardBodyStream(
  request: Request,
  maxBytes: number,
  idleMs: number,
): { request: Request; exceeded(): boolean; idled(): boolean; consumed(): boolean } {
  const source = request.body!.getReader();
  let size = 0;
  let exceeded = false;
  let idled = false;
  let consumed = false;
  // Pull-based with no queue, so nothing is read ahead of what the handler asks for.
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let chunk: Awaited<ReturnType<typeof source.read>>;
        try {
          chunk = await withinIdle(source.read(), idleMs, () => {
            idled = true;
            void source.cancel().catch(() => {});
          });
        } catch (err) {
          controller.error(err);
          return;
        }
        const { done, value } = chunk;
        if (done) {
          consumed = !idled && !exceeded;
          return controller.close();
        }
        size += value.byteLength;
        if (size > maxBytes) {
          exceeded = true;
          controller.error(payloadTooLarge(maxBytes));
          await source.cancel().catch(() => {});
          return;
        }
        controller.enqueue(value);
      },
      cancel: (reason) => source.cancel(reason),
    },
    { highWaterMark: 0 },
  );
  const limited = new Request(request.url, {
    method: request.method,
    headers: request.headers,
    body,
    signal: request.signal,
    duplex: "half",
  } as RequestInit);
  return { request: limited, exceeded: () => exceeded, idled: () => idled, consumed: () => consumed };
}
