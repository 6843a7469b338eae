import { DomainError } from "../core/errors";
import { parseJsonKeepingText } from "../lib/json-text";
import { jsonTextTooDeep } from "../core/json-depth";
import { MAX_EMBEDDED_JSON_DEPTH, MAX_UPSTREAM_ERROR_BODY_BYTES } from "../core/limits";
import { pinUpstreamUrl, type ResolveHost, type UpstreamPolicy } from "./upstream-guard";

/** The SSRF policy applied to URLs a tenant chose, and how host names are resolved for it. */
export type UpstreamGuard = { policy: UpstreamPolicy; resolve: ResolveHost };

export type HttpOptions = {
  timeoutMs: number;
  fetch: typeof fetch;
  /**
   * Bytes of a successful answer read whole (HONE_MAX_LOGGED_PAYLOAD_BYTES): past it, an answer is
   * passed through to the client as it arrives (completeOrPass) or refused (complete).
   */
  maxAnswerBytes?: number;
  /** Set for tenant-chosen URLs: checked and pinned before connecting, redirects not followed. */
  guard?: UpstreamGuard;
};

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
    const init: BunFetchRequestInit = {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", ...headers },
      body: JSON.stringify(body),
      signal: controller.signal,
    };
    let target = url;
    if (opts.guard) {
      // Resolved and checked on every call (DNS may have changed since the URL was saved), then
      // connected to the very address that was checked; TLS still verifies the original name.
      const pinned = await untilAborted(pinUpstreamUrl(url, opts.guard.policy, opts.guard.resolve, label), controller.signal);
      target = pinned.url;
      init.headers = { ...(init.headers as Record<string, string>), host: pinned.host };
      if (pinned.serverName) init.tls = { serverName: pinned.serverName };
      // A redirect would lead to an address nobody checked.
      init.redirect = "manual";
    }
    const response = await opts.fetch(target, init);
    if (opts.guard && response.status >= 300 && response.status < 400) {
      await response.body?.cancel().catch(() => {});
      throw new DomainError(
        "UPSTREAM_ERROR",
        `${label} answered with a redirect (HTTP ${response.status}); redirects are not followed, so set the base URL to the final address`,
        { upstreamStatus: 502 },
      );
    }
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

/** The reason a call's deadline aborts it with; `ms` is a shorter deadline than the call's own (a route target's). */
export class UpstreamTimeout extends Error {
  override name = "UpstreamTimeout";
  constructor(readonly ms?: number) {
    super("upstream timeout");
  }
}

export class ClientAborted extends Error {
  override name = "ClientAborted";
}

/** DNS lookups cannot be aborted; the timeout and a departing client still end the wait. */
function untilAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

function fetchFailure(err: unknown, signal: AbortSignal, label: string, timeoutMs: number): Error {
  if (signal.aborted && signal.reason instanceof UpstreamTimeout) return upstreamTimeout(label, signal.reason.ms ?? timeoutMs);
  if (signal.aborted) return new ClientAborted("the client closed the request");
  if (err instanceof DomainError) return err;
  const msg = err instanceof Error ? err.message : String(err);
  return new DomainError("UPSTREAM_ERROR", `Could not reach ${label}: ${msg}`, { upstreamStatus: 502 });
}

function upstreamTimeout(label: string, timeoutMs: number): DomainError {
  return new DomainError("UPSTREAM_TIMEOUT", `${label} did not answer within ${timeoutMs} ms`);
}

/** An answer too large to hold, on its way to the client: read as the client reads it. */
export type PassThroughAnswer = {
  kind: "pass-through";
  /** The answer's bytes: those read already, then the rest as it arrives (pull-based). */
  body: ReadableStream<Uint8Array>;
  /** Settles when the body has ended, broke, or the client left: what the log keeps of it. */
  done: Promise<PassThroughOutcome>;
  /**
   * Set by the caller: called once the upstream has ended and before the answer's last bytes go to
   * the client (the body holds back its latest piece until then), so the call's log is spooled
   * before the client has the whole answer.
   */
  beforeEnd?: (o: PassThroughOutcome) => void;
};

export type PassThroughOutcome = {
  /** Bytes sent to the client. */
  bytes: number;
  /** The answer's beginning as text (at most what was read whole), and its last 64 KiB. */
  head: string;
  tail: string;
  /** null when the whole answer was passed on. */
  error: DomainError | ClientAborted | null;
};

export const isPassThrough = (v: unknown): v is PassThroughAnswer => typeof v === "object" && v !== null && (v as PassThroughAnswer).kind === "pass-through";

const TAIL_CHARS = 64 * 1024;

/**
 * A successful answer's body: parsed when it is at most `maxBytes`; past that, the body becomes a
 * pass-through stream that costs bounded memory (the first `maxBytes` and the last 64 KiB are
 * kept for the log), or, when `pass` is false, an UPSTREAM_ERROR without reading further.
 */
export async function readAnswer(call: UpstreamCall, label: string, timeoutMs: number, maxBytes: number | undefined, pass: boolean): Promise<unknown> {
  if (maxBytes === undefined || !call.response.ok || !call.response.body) return readCallBody(call, label, timeoutMs);
  const reader = call.response.body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  const failure = (err: unknown) => (call.controller.signal.aborted ? fetchFailure(err, call.controller.signal, label, timeoutMs) : brokenBody(label, err));
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        call.release();
        const text = new TextDecoder().decode(Buffer.concat(chunks));
        if (jsonTextTooDeep(text, MAX_EMBEDDED_JSON_DEPTH)) return text;
        try {
          return parseJsonKeepingText(text);
        } catch {
          return text;
        }
      }
      chunks.push(value);
      bytes += value.byteLength;
      if (bytes > maxBytes) break;
    }
  } catch (err) {
    call.release();
    throw failure(err);
  }
  if (!pass) {
    call.controller.abort();
    call.release();
    throw new DomainError(
      "UPSTREAM_ERROR",
      `${label} answered with more than ${maxBytes} bytes, more than Hone holds for this call (HONE_MAX_LOGGED_PAYLOAD_BYTES)`,
      { upstreamStatus: 502 },
    );
  }
  return passThrough(call, reader, chunks, failure);
}

function passThrough(
  call: UpstreamCall,
  reader: ReadableStreamDefaultReader<Uint8Array>,
  read: Uint8Array[],
  failure: (err: unknown) => DomainError | ClientAborted | Error,
): PassThroughAnswer {
  const head = new TextDecoder().decode(Buffer.concat(read));
  const tailDecoder = new TextDecoder();
  let tail = head.slice(-TAIL_CHARS);
  let bytes = 0;
  // Sent first: what was read before the answer proved too large, but for its last piece, which
  // is held back like every latest piece (below).
  const pending = read.slice(0, -1);
  let settle!: (o: PassThroughOutcome) => void;
  const done = new Promise<PassThroughOutcome>((resolve) => (settle = resolve));
  let finished = false;
  const finish = (error: PassThroughOutcome["error"]): PassThroughOutcome | null => {
    if (finished) return null;
    finished = true;
    call.release();
    const outcome = { bytes, head, tail, error };
    settle(outcome);
    return outcome;
  };
  // The latest piece read, sent only once the next one came or the upstream ended (after beforeEnd).
  let held: Uint8Array | null = read.at(-1) ?? null;
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const next = pending.shift();
        if (next) {
          bytes += next.byteLength;
          controller.enqueue(next);
          return;
        }
        try {
          for (;;) {
            const { done: end, value } = await reader.read();
            if (end) {
              const last = held;
              held = null;
              if (last) bytes += last.byteLength;
              const outcome = finish(null);
              if (outcome) answer.beforeEnd?.(outcome);
              if (last) controller.enqueue(last);
              controller.close();
              return;
            }
            tail = (tail + tailDecoder.decode(value, { stream: true })).slice(-TAIL_CHARS);
            const out = held;
            held = value;
            if (out) {
              bytes += out.byteLength;
              controller.enqueue(out);
              return;
            }
          }
        } catch (err) {
          const e = failure(err);
          finish(e instanceof DomainError || e instanceof ClientAborted ? e : brokenBody("the upstream", e));
          controller.error(e);
        }
      },
      async cancel() {
        // The client went away: stop reading the upstream too.
        call.controller.abort();
        await reader.cancel().catch(() => {});
        finish(new ClientAborted("the client closed the request"));
      },
    },
    { highWaterMark: 0 },
  );
  const answer: PassThroughAnswer = { kind: "pass-through", body, done };
  return answer;
}

function brokenBody(label: string, err: unknown): DomainError {
  return new DomainError("UPSTREAM_ERROR", `${label} response broke: ${err instanceof Error ? err.message : String(err)}`, { upstreamStatus: 502 });
}

/**
 * Reads a JSON body, tolerating upstreams that answer with text. An error body is read only up to
 * MAX_UPSTREAM_ERROR_BODY_BYTES: an upstream (or whatever a tenant pointed Hone at) must not make
 * Hone buffer an unbounded error page.
 */
export async function readUpstreamBody(response: Response): Promise<unknown> {
  const text = response.ok ? await response.text() : await readCapped(response, MAX_UPSTREAM_ERROR_BODY_BYTES);
  // Nested past any real answer's depth: kept as text, so nothing walks it (and it is no completion).
  if (jsonTextTooDeep(text, MAX_EMBEDDED_JSON_DEPTH)) return text;
  try {
    return parseJsonKeepingText(text);
  } catch {
    return text;
  }
}

async function readCapped(response: Response, maxBytes: number): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let bytes = 0;
  try {
    while (bytes < maxBytes) {
      const { done, value } = await reader.read();
      if (done) return text + decoder.decode();
      const room = maxBytes - bytes;
      const part = value.byteLength > room ? value.subarray(0, room) : value;
      bytes += part.byteLength;
      text += decoder.decode(part, { stream: true });
    }
    await reader.cancel().catch(() => {});
    return text + decoder.decode();
  } finally {
    reader.releaseLock();
  }
}
