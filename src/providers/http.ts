import { createParser, type EventSourceMessage } from "eventsource-parser";
import { DomainError } from "../errors";
import { parseJsonKeepingText } from "../json-text";

export type HttpOptions = { timeoutMs: number; fetch: typeof fetch };

/**
 * One upstream call in flight. Until it is released, its deadline (HONE_UPSTREAM_TIMEOUT_MS from
 * the moment the request was sent) and the caller's signal (the client going away) both abort it,
 * whether it is still waiting for headers or reading the body.
 */
export type UpstreamCall = {
  response: Response;
  controller: AbortController;
  /** Stops the total deadline only: a stream switches to its idle timer, the caller's abort still applies. */
  endDeadline(): void;
  /** The call is over: nothing aborts it any more. */
  release(): void;
};

/**
 * POSTs JSON upstream and resolves with the headers. The deadline keeps running (and the caller's
 * signal stays linked) until the caller releases the call, so a body that stalls after the headers
 * is cut off too, not only a slow first byte. Failures become DomainErrors the gateway can report.
 */
export async function postJson(
  url: string,
  headers: Record<string, string>,
  body: unknown,
  label: string,
  signal: AbortSignal,
  opts: HttpOptions,
): Promise<UpstreamCall> {
  const controller = new AbortController();
  const onAbort = () => controller.abort(signal.reason);
  if (signal.aborted) controller.abort(signal.reason);
  else signal.addEventListener("abort", onAbort, { once: true });
  let timer: ReturnType<typeof setTimeout> | undefined = setTimeout(() => controller.abort(new UpstreamTimeout()), opts.timeoutMs);
  const endDeadline = () => {
    clearTimeout(timer);
    timer = undefined;
  };
  const release = () => {
    endDeadline();
    signal.removeEventListener("abort", onAbort);
  };
  try {
    const response = await opts.fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", ...headers },
      body: JSON.stringify(body),
      signal: controller.signal,
    });
    return { response, controller, endDeadline, release };
  } catch (err) {
    release();
    throw fetchFailure(err, controller.signal, label, opts.timeoutMs);
  }
}

/**
 * Reads the whole body of a call under its deadline and the caller's signal, then releases it. A
 * body that stalls ends as UPSTREAM_TIMEOUT, a client that left as ClientAborted; either way the
 * upstream connection is closed.
 */
export async function readCallBody(call: UpstreamCall, label: string, timeoutMs: number): Promise<unknown> {
  try {
    return await readUpstreamBody(call.response);
  } catch (err) {
    if (call.controller.signal.aborted) throw fetchFailure(err, call.controller.signal, label, timeoutMs);
    throw new DomainError("UPSTREAM_ERROR", `${label} response broke: ${err instanceof Error ? err.message : String(err)}`, { upstreamStatus: 502 });
  } finally {
    call.release();
  }
}

class UpstreamTimeout extends Error {
  override name = "UpstreamTimeout";
}

export class ClientAborted extends Error {
  override name = "ClientAborted";
}

function fetchFailure(err: unknown, signal: AbortSignal, label: string, timeoutMs: number): Error {
  if (signal.aborted && signal.reason instanceof UpstreamTimeout) return upstreamTimeout(label, timeoutMs);
  if (signal.aborted) return new ClientAborted("the client closed the request");
  const msg = err instanceof Error ? err.message : String(err);
  return new DomainError("UPSTREAM_ERROR", `Could not reach ${label}: ${msg}`, { upstreamStatus: 502 });
}

export function upstreamTimeout(label: string, timeoutMs: number): DomainError {
  return new DomainError("UPSTREAM_TIMEOUT", `${label} did not answer within ${timeoutMs} ms`);
}

/** Reads a JSON body, tolerating upstreams that answer with text. */
export async function readUpstreamBody(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return parseJsonKeepingText(text);
  } catch {
    return text;
  }
}

/** An upstream's HTTP error, keeping its status and the message its body gives. */
export function upstreamHttpError(label: string, status: number, body: unknown): DomainError {
  const err = (body as { error?: { message?: unknown; type?: unknown; code?: unknown; param?: unknown } } | null)?.error;
  const nested = Array.isArray(body) ? (body[0] as { error?: { message?: unknown } } | undefined)?.error : undefined;
  const message =
    (typeof err?.message === "string" && err.message) ||
    (typeof nested?.message === "string" && nested.message) ||
    (typeof body === "string" && body.trim().slice(0, 500)) ||
    `${label} returned HTTP ${status}`;
  return new DomainError("UPSTREAM_ERROR", message, {
    upstreamStatus: status,
    upstreamError: {
      message,
      type: typeof err?.type === "string" ? err.type : "upstream_error",
      code: typeof err?.code === "string" || typeof err?.code === "number" ? err.code : null,
      param: typeof err?.param === "string" ? err.param : null,
    },
    upstreamBody: body,
  });
}

/**
 * Server-sent events from a call's body. A stream has no total deadline (a long answer that keeps
 * arriving is progress); instead an idle gap longer than timeoutMs between bytes ends it with
 * UPSTREAM_TIMEOUT, the caller's signal ends it as ClientAborted, and a dropped connection ends it
 * with UPSTREAM_ERROR.
 */
export function readSse(call: UpstreamCall, label: string, timeoutMs: number): AsyncGenerator<EventSourceMessage> {
  // At once, not on the first read: the total deadline must not fire between headers and iteration.
  call.endDeadline();
  return sseEvents(call, label, timeoutMs);
}

async function* sseEvents(call: UpstreamCall, label: string, timeoutMs: number): AsyncGenerator<EventSourceMessage> {
  const { response, controller } = call;
  if (!response.body) {
    call.release();
    return;
  }
  const reader = response.body.getReader();
  const queue: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (e) => queue.push(e) });
  const decoder = new TextDecoder();
  try {
    for (;;) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const idle = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new DomainError("UPSTREAM_TIMEOUT", `${label} sent nothing for ${timeoutMs} ms in the middle of a stream`)), timeoutMs);
      });
      let result: Awaited<ReturnType<typeof reader.read>>;
      try {
        result = await Promise.race([reader.read(), idle]);
      } catch (err) {
        if (err instanceof DomainError) throw err;
        if (controller.signal.aborted) throw new ClientAborted("the client closed the request");
        throw new DomainError("UPSTREAM_ERROR", `${label} stream broke: ${err instanceof Error ? err.message : String(err)}`, {
          upstreamStatus: 502,
        });
      } finally {
        clearTimeout(timer);
      }
      if (result.done) break;
      parser.feed(decoder.decode(result.value, { stream: true }));
      while (queue.length) yield queue.shift()!;
    }
    parser.feed(decoder.decode());
    while (queue.length) yield queue.shift()!;
  } finally {
    // Stopping early (client gone, error) must also stop the upstream request.
    controller.abort();
    call.release();
    try {
      reader.releaseLock();
    } catch {
      // already released by the abort
    }
  }
}
