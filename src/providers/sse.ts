import { createParser, type EventSourceMessage } from "eventsource-parser";
import { DomainError } from "../core/errors";
import { jsonTextTooDeep } from "../core/json-depth";
import { MAX_EMBEDDED_JSON_DEPTH, MAX_SSE_EVENT_BYTES } from "../core/limits";
import { ClientAborted, type UpstreamCall } from "./http";
import { upstreamHttpError } from "./upstream-errors";

/** Values a chunk of a stream at a time: each read gives what the next bytes completed; `done` with the last. */
export type Batches<T> = {
  next(): Promise<{ events: T[]; done: boolean }>;
  /** Stops reading (and the upstream request) early; idempotent. */
  close(): void;
};

/** How long the end of a body may follow a stream's last event before the request is aborted. */
const BODY_END_GRACE_MS = 1_000;

/**
 * Server-sent events from a call's body. A stream has no total deadline (a long answer that keeps
 * arriving is progress); instead an idle gap longer than timeoutMs between bytes ends it with
 * UPSTREAM_TIMEOUT, the caller's signal ends it as ClientAborted, and a dropped connection ends it
 * with UPSTREAM_ERROR.
 */
export function readSse(call: UpstreamCall, label: string, timeoutMs: number): AsyncGenerator<EventSourceMessage> {
  return eventsOf(readSseBatches(call, label, timeoutMs));
}

async function* eventsOf<T>(batches: Batches<T>): AsyncGenerator<T> {
  try {
    for (;;) {
      const { events, done } = await batches.next();
      yield* events;
      if (done) return;
    }
  } finally {
    batches.close();
  }
}

/**
 * The same, a read of the upstream at a time: each `next()` reads until at least one event is
 * whole (an upstream often sends several in one packet, which come back together), so relaying a
 * stream costs one wait per packet, not several per event.
 */
export function readSseBatches(call: UpstreamCall, label: string, timeoutMs: number): Batches<EventSourceMessage> & { finish(): void } {
  // At once, not on the first read: the total deadline must not fire between headers and reading.
  call.endDeadline();
  const { response, controller } = call;
  let closed = false;
  /** The body was read to its end: the request is over, nothing left to stop. */
  let ended = false;
  const reader = response.body?.getReader() ?? null;
  const close = () => {
    if (closed) return;
    closed = true;
    // Stopping early (client gone, error) must also stop the upstream request. Aborting one that
    // already ended stops nothing and costs the serving thread several µs a call (its listeners run).
    if (!ended) controller.abort();
    call.release();
    // A body read to its end holds nothing: its reader goes with it.
    if (ended) return;
    try {
      reader?.releaseLock();
    } catch {
      // already released by the abort
    }
  };
  let queue: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (e) => queue.push(e) });
  const decoder = new TextDecoder();
  /** Bytes fed since the last whole event. */
  let pending = 0;
  const take = (): EventSourceMessage[] => {
    const events = queue;
    queue = [];
    if (events.length) pending = 0;
    // Nothing downstream walks JSON deeper than any real event nests.
    for (const e of events) {
      if (jsonTextTooDeep(e.data, MAX_EMBEDDED_JSON_DEPTH)) {
        throw new DomainError("UPSTREAM_ERROR", `${label} sent a stream event nested more than ${MAX_EMBEDDED_JSON_DEPTH} levels deep`, {
          upstreamStatus: 502,
        });
      }
    }
    return events;
  };
  const read = async (r: ReadableStreamDefaultReader<Uint8Array>) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const idle = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new DomainError("UPSTREAM_TIMEOUT", `${label} sent nothing for ${timeoutMs} ms in the middle of a stream`)), timeoutMs);
    });
    try {
      return await Promise.race([r.read(), idle]);
    } catch (err) {
      if (err instanceof DomainError) throw err;
      if (controller.signal.aborted) throw new ClientAborted("the client closed the request");
      throw new DomainError("UPSTREAM_ERROR", `${label} stream broke: ${err instanceof Error ? err.message : String(err)}`, { upstreamStatus: 502 });
    } finally {
      clearTimeout(timer);
    }
  };
  return {
    async next() {
      if (closed || !reader) {
        close();
        return { events: [], done: true };
      }
      try {
        for (;;) {
          const result = await read(reader);
          if (result.done) {
            ended = true;
            parser.feed(decoder.decode());
            const events = take();
            close();
            return { events, done: true };
          }
          // One event is buffered whole by the parser: an upstream that never ends its event would
          // make Hone hold an unbounded line.
          pending += result.value.byteLength;
          if (pending > MAX_SSE_EVENT_BYTES) {
            throw new DomainError("UPSTREAM_ERROR", `${label} sent a stream event larger than ${MAX_SSE_EVENT_BYTES} bytes`, { upstreamStatus: 502 });
          }
          parser.feed(decoder.decode(result.value, { stream: true }));
          const events = take();
          if (events.length) return { events, done: false };
        }
      } catch (err) {
        close();
        throw err;
      }
    },
    close,
    /**
     * After the stream's last event: its body's end, which normally follows at once, is read in
     * the background, so a finished request is released rather than aborted. A body that goes on
     * past the last event, or does not end within BODY_END_GRACE_MS, is aborted.
     */
    finish() {
      if (closed || !reader) return close();
      const timer = setTimeout(close, BODY_END_GRACE_MS);
      reader
        .read()
        .then(
          (r) => {
            if (r.done) ended = true;
          },
          // A read that fails (the body broke after the last event) leaves `ended` false: the
          // request is aborted below; the client already has its whole stream.
          () => {},
        )
        .finally(() => {
          clearTimeout(timer);
          close();
        });
    },
  };
}

/** A provider's stream event: its name, its data parsed, and the data's text as it came (relayed as it is). */
export type NativeEvent = { event: string; data: Record<string, unknown>; raw: string };

/** One of a provider's own named stream events, parsed; an `error` event is thrown. */
function nativeEvent(e: { event?: string; data: string }, label: string): NativeEvent {
  let data: Record<string, unknown>;
  try {
    data = JSON.parse(e.data) as Record<string, unknown>;
  } catch {
    throw new DomainError("UPSTREAM_ERROR", `${label} sent a stream event that is not JSON`, { upstreamStatus: 502 });
  }
  const event = e.event ?? String(data.type ?? "");
  if (event === "error") throw upstreamHttpError(label, 502, "error" in data ? data : { error: data });
  return { event, data, raw: e.data };
}

const unfinished = (label: string) => new DomainError("UPSTREAM_ERROR", `${label} stream ended before it was finished`, { upstreamStatus: 502 });

/**
 * A provider's own named stream events, parsed, for clients that speak that provider's protocol:
 * each yielded as it is; an `error` event is thrown; a stream that stops before `isEnd` saw its
 * last event is a broken one.
 */
export async function* nativeJsonEvents(
  events: AsyncGenerator<{ event?: string; data: string }>,
  label: string,
  isEnd: (event: string) => boolean,
): AsyncGenerator<NativeEvent> {
  for await (const e of events) {
    const n = nativeEvent(e, label);
    yield n;
    if (isEnd(n.event)) return;
  }
  throw unfinished(label);
}

/** The same, a batch at a time (relayed as they come: see readSseBatches); the batch with `isEnd`'s event is the last. */
export function nativeJsonBatches(
  batches: Batches<EventSourceMessage> & { finish(): void },
  label: string,
  isEnd: (event: string) => boolean,
): Batches<NativeEvent> {
  let ended = false;
  return {
    async next() {
      if (ended) return { events: [], done: true };
      const { events, done } = await batches.next();
      const out: NativeEvent[] = [];
      for (const e of events) {
        const n = nativeEvent(e, label);
        out.push(n);
        if (isEnd(n.event)) {
          ended = true;
          batches.finish();
          return { events: out, done: true };
        }
      }
      if (done) throw unfinished(label);
      return { events: out, done: false };
    },
    close: () => batches.close(),
  };
}
