import { type DomainError, toDomainError } from "../../core/errors";
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

/** Events a read at a time (a relayed provider stream gives what each packet completed); `done` with the last. */
export type EventBatches = { next(): Promise<{ events: unknown[]; done: boolean }>; close(): void };

const FAILED = Symbol("failed");

/**
 * A generator's values as batches: the first awaited, then those already produced (an upstream
 * often sends several in one packet) up to MAX_EVENTS_PER_WRITE; the first value that is not ready
 * is left for the next batch, so nothing waits for anything. A failure after some values comes
 * with the next batch, after them.
 */
function batchesOf(chunks: AsyncGenerator<unknown>): EventBatches {
  let held: Promise<IteratorResult<unknown>> | null = null;
  return {
    async next() {
      const first = await (held ?? chunks.next());
      held = null;
      if (first.done) return { events: [], done: true };
      const events = [first.value];
      while (events.length < MAX_EVENTS_PER_WRITE) {
        const more = chunks.next();
        const ready = await Promise.race([more, nextTurn()]).catch(() => FAILED);
        if (ready === TURN || ready === FAILED) {
          held = more;
          break;
        }
        const r = ready as IteratorResult<unknown>;
        if (r.done) return { events, done: true };
        events.push(r.value);
      }
      return { events, done: false };
    },
    close: () => {
      // A generator's own cleanup failing has no one left to tell: the client is gone.
      chunks.return(undefined).catch(() => {});
    },
  };
}

/**
 * An SSE response: the events of each batch written together, as soon as they are produced,
 * ending with the wire's end marker (`data: [DONE]` for OpenAI's chat stream). A failure mid-stream
 * becomes the wire's error event (which the SDKs raise as an error) and the stream ends; it never
 * hangs. When the client goes away the source is stopped, which stops the upstream request too.
 */
export function sseResponse(
  source: AsyncGenerator<unknown> | EventBatches,
  keepAliveMs: number,
  headers: Record<string, string> = {},
  wire: SseWire = OPENAI_SSE,
): Response {
  const batches = Symbol.asyncIterator in source ? batchesOf(source) : source;
  let finished = false;
  /** The batch being waited for, kept across pulls that only sent a keep-alive. */
  let next: Promise<{ events: unknown[]; done: boolean }> | null = null;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        next ??= batches.next();
        let timer: ReturnType<typeof setTimeout> | undefined;
        const quiet = new Promise<"quiet">((resolve) => {
          timer = setTimeout(() => resolve("quiet"), keepAliveMs);
        });
        const batch = await Promise.race([next, quiet]).finally(() => clearTimeout(timer));
        if (batch === "quiet") {
          controller.enqueue(KEEPALIVE);
          return;
        }
        next = null;
        let text = "";
        for (const e of batch.events) text += wire.event(e);
        if (batch.done) {
          finished = true;
          controller.enqueue(encoder.encode(text + (wire.done ?? "")));
          controller.close();
          return;
        }
        controller.enqueue(encoder.encode(text));
      } catch (err) {
        finished = true;
        controller.enqueue(encoder.encode(wire.error(toDomainError(err))));
        controller.close();
      }
    },
    cancel() {
      if (finished) return;
      batches.close();
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
