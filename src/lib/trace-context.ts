import { randomBytes } from "node:crypto";

// The caller's trace (docs/traces.md): a gateway call joins it from the W3C `traceparent` header
// (`00-<trace id: 32 hex>-<the caller's span: 16 hex>-<flags>`) or the client's own `op-trace-id`,
// and its session from `op-session-id`. Tracing never fails a call: a malformed header is left
// out, as W3C Trace Context asks, and the log's warning says so.

export type TraceContext = {
  traceId: string | null;
  /** The caller's span: the call's own span is its child. */
  parentSpanId: string | null;
  sessionId: string | null;
  /** What was left out and why (the log's warning); null: nothing. */
  warning: string | null;
};

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ALL_ZERO = /^0+$/;
/** A client's own trace or session id: letters, digits and ._:- up to 128 characters. */
const OWN_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The trace context of a request's headers, or null when it names none. */
export function traceContextOf(header: (name: string) => string | null): TraceContext | null {
  const parent = header("traceparent")?.trim().toLowerCase() || null;
  const own = header("op-trace-id")?.trim() || null;
  const session = header("op-session-id")?.trim() || null;
  if (!parent && !own && !session) return null;
  const out: TraceContext = { traceId: null, parentSpanId: null, sessionId: null, warning: null };
  const left: string[] = [];
  if (parent) {
    const m = TRACEPARENT.exec(parent);
    // Version ff is invalid; a later version may carry more after the flags (kept compatible).
    if (!m || m[1] === "ff" || (m[1] === "00" && m[5]) || ALL_ZERO.test(m[2]!) || ALL_ZERO.test(m[3]!)) left.push("traceparent (not W3C Trace Context)");
    else {
      out.traceId = m[2]!;
      out.parentSpanId = m[3]!;
    }
  }
  // op-trace-id names the trace when traceparent does not.
  if (own && !out.traceId) {
    if (OWN_ID.test(own)) out.traceId = own;
    else left.push("op-trace-id (letters, digits and ._:- up to 128 characters)");
  }
  if (session) {
    if (OWN_ID.test(session)) out.sessionId = session;
    else left.push("op-session-id (letters, digits and ._:- up to 128 characters)");
  }
  if (left.length) out.warning = `left out of the trace: ${left.join(", ")}`;
  return out;
}

/** A new span id: 16 hex digits, never all zero. */
export function newSpanId(): string {
  const id = randomBytes(8).toString("hex");
  return ALL_ZERO.test(id) ? newSpanId() : id;
}

/** A new W3C trace id: 32 hex digits, never all zero. */
export function newTraceId(): string {
  const id = randomBytes(16).toString("hex");
  return ALL_ZERO.test(id) ? newTraceId() : id;
}
