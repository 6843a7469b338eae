import { DomainError } from "../../errors";
import { jsonTextTooDeep, tooDeepError } from "../../json-depth";
import { parseJsonKeepingText } from "../../json-text";

/**
 * Reads a JSON request body, enforcing the size limit while streaming so an oversized chunked
 * body is cut off without being buffered whole. The Content-Type is not required: curl's `-d`
 * sends form encoding by default, and the body is JSON either way.
 */
export async function readJsonBody(request: Request, maxBytes: number, maxDepth: number): Promise<unknown> {
  const text = await readBodyText(request, maxBytes);
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

export function payloadTooLarge(maxBytes: number): DomainError {
  return new DomainError("PAYLOAD_TOO_LARGE", `Request body exceeds the limit of ${maxBytes} bytes`, {
    issues: [{ message: `body larger than ${maxBytes} bytes (HONE_MAX_BODY_BYTES)` }],
  });
}

async function readBodyText(request: Request, maxBytes: number): Promise<string> {
  // A declared length was checked against the limit before routing, and the server reads no more
  // than it: the body is read whole, natively. This comes before touching `request.body`, which
  // would build a JS ReadableStream for every request. Only chunked bodies are counted while they stream.
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) <= maxBytes) return request.text();
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw payloadTooLarge(maxBytes);
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

/**
 * A request whose body of undeclared length (chunked) is cut off at `maxBytes` while it streams.
 * Every route gets it, the raw fetch handlers (/graphql, /trpc) included, which read bodies
 * their own way: reading stops at the first byte over the limit (the socket is no longer read),
 * and `exceeded()` tells the caller to answer 413 whatever the handler made of the broken body.
 */
export function limitBodyStream(request: Request, maxBytes: number): { request: Request; exceeded(): boolean } {
  const source = request.body!.getReader();
  let size = 0;
  let exceeded = false;
  // Pull-based with no queue, so nothing is read ahead of what the handler asks for.
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const { done, value } = await source.read();
        if (done) return controller.close();
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
  return { request: limited, exceeded: () => exceeded };
}
