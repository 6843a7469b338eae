import { type DomainError, toDomainError } from "../../errors";
import { openAiError } from "./errors";

const encoder = new TextEncoder();

// How long a stream may go without a byte before Hone sends an SSE comment (HONE_SSE_KEEPALIVE_MS):
// a provider that thinks for minutes before its first token must not look like a dead connection
// to the client, its proxies, or the server's own idle timeout. Every SSE client ignores comments.
const KEEPALIVE = encoder.encode(": keep-alive\n\n");

/** At most this many ready events are written at once. */
const MAX_EVENTS_PER_WRITE = 64;
const TURN = Symbol("turn");
/** Resolves on the event loop's next turn: whatever is ready before it is ready now. */
const nextTurn = () => new Promise<typeof TURN>((resolve) => setImmediate(() => resolve(TURN)));

/** How a protocol writes its events: each value, the end of the stream, and a failure mid-stream. */
export type SseWire = { event(value: unknown): string; done: string | null; error(err: DomainError): string };

/** OpenAI's chat stream: `data:` events, `[DONE]` at the end, an `error` object on failure. */
export const OPENAI_SSE: SseWire = {
  event: (value) => `data: ${JSON.stringify(value)}\n\n`,
  done: "data: [DONE]\n\n",
  error: (err) => `data: ${JSON.stringify({ error: openAiError(err) })}\n\n`,
};

/** Named events (`event:` then `data:`), as Anthropic's and the Responses API's streams are written. */
export function namedEvents(error: (err: DomainError) => { event: string; data: unknown }): SseWire {
  // An event relayed from a provider carries its data's text as it came: written as it is.
  const write = (e: { event: string; data: unknown; raw?: string }) => `event: ${e.event}\ndata: ${e.raw ?? JSON.stringify(e.data)}\n\n`;
  return { event: (value) => write(value as { event: string; data: unknown }), done: null, error: (err) => write(error(err)) };
}

/**
 * An OpenAI-style SSE response: one `data:` event per chunk, written as soon as it is produced,
 * ending with `data: [DONE]`. A failure mid-stream becomes an `error` event (which the openai SDK
 * raises as an APIError) and the stream ends; it never hangs. When the client goes away the
 * generator is stopped, which stops the upstream request too.
 */
export function sseResponse(chunks: AsyncGenerator<unknown>, keepAliveMs: number, headers: Record<string, string> = {}, wire: SseWire = OPENAI_SSE): Response {
  let finished = false;
  /** The chunk being waited for, kept across pulls that only sent a keep-alive. */
  let next: Promise<IteratorResult<unknown>> | null = null;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      /** What this pull writes: events already produced go out together, in one write. */
      let text = "";
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
        let result: IteratorResult<unknown> = first;
        // Events that are ready now (an upstream often sends several in one packet) join this write;
        // the first that is not is left for the next pull, so nothing waits for anything.
        for (let n = 0; !result.done && n < MAX_EVENTS_PER_WRITE; n++) {
          text += wire.event(result.value);
          const more = chunks.next();
          const ready = await Promise.race([more, nextTurn()]);
          if (ready === TURN) {
            next = more;
            break;
          }
          result = ready;
        }
        if (result.done) {
          finished = true;
          controller.enqueue(encoder.encode(text + (wire.done ?? "")));
          controller.close();
          return;
        }
        controller.enqueue(encoder.encode(text));
      } catch (err) {
        finished = true;
        controller.enqueue(encoder.encode(text + wire.error(toDomainError(err))));
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
