import { toDomainError } from "../../errors";
import { openAiError } from "./errors";

const encoder = new TextEncoder();

/**
 * An OpenAI-style SSE response: one `data:` event per chunk, written as soon as it is produced,
 * ending with `data: [DONE]`. A failure mid-stream becomes an `error` event (which the openai SDK
 * raises as an APIError) and the stream ends; it never hangs. When the client goes away the
 * generator is stopped, which stops the upstream request too.
 */
export function sseResponse(chunks: AsyncGenerator<unknown>, headers: Record<string, string> = {}): Response {
  let finished = false;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await chunks.next();
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
