import { toDomainError } from "../../errors";
import { openAiError } from "./errors";

const encoder = new TextEncoder();

// How long a stream may go without a byte before Hone sends an SSE comment (HONE_SSE_KEEPALIVE_MS):
// a provider that thinks for minutes before its first token must not look like a dead connection
// to the client, its proxies, or the server's own idle timeout. Every SSE client ignores comments.
const KEEPALIVE = encoder.encode(": keep-alive\n\n");

/**
 * An OpenAI-style SSE response: one `data:` event per chunk, written as soon as it is produced,
 * ending with `data: [DONE]`. A failure mid-stream becomes an `error` event (which the openai SDK
 * raises as an APIError) and the stream ends; it never hangs. When the client goes away the
 * generator is stopped, which stops the upstream request too.
 */
export function sseResponse(chunks: AsyncGenerator<unknown>, keepAliveMs: number, headers: Record<string, string> = {}): Response {
  let finished = false;
  /** The chunk being waited for, kept across pulls that only sent a keep-alive. */
  let next: Promise<IteratorResult<unknown>> | null = null;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        next ??= chunks.next();
        let timer: ReturnType<typeof setTimeout> | undefined;
        const quiet = new Promise<"quiet">((resolve) => {
          timer = setTimeout(() => resolve("quiet"), keepAliveMs);
        });
        const first = await Promise.race([next, quiet]).finally(() => clearTimeout(timer));
        if (first === "quiet") {
          controller.enqueue(KEEPALIVE);
          return;
        }
        next = null;
        const { done, value } = first;
        if (done) {
          finished = true;
          controller.enqueue(encoder.encode("data: [DONE]\n\n"));
          controller.close();
          return;
        }
        controller.enqueue(encoder.encode(`data: ${JSON.stringify(value)}\n\n`));
      } catch (err) {
        finished = true;
        controller.enqueue(encoder.encode(`data: ${JSON.stringify({ error: openAiError(toDomainError(err)) })}\n\n`));
        controller.close();
      }
    },
    async cancel() {
      if (finished) return;
      await chunks.return(undefined);
    },
  });
  return new Response(stream, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      connection: "keep-alive",
      ...headers,
    },
  });
}
