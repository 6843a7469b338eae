import { RETRY_AFTER_SECONDS, statusOf, type DomainError, type ErrorCode, type Issue } from "../../core/errors";

type ErrorEnvelope = { message: string; code: ErrorCode; issues: Issue[] };

/** The spec's error body: `{message, code, issues}`. */
export function errorEnvelope(err: DomainError): ErrorEnvelope {
  return { message: err.message, code: err.code, issues: err.issues };
}

/**
 * Seconds a client should wait before retrying, when the failure says so: a 503 (so well-behaved
 * clients and the OpenPipe SDKs' retries back off), a 429 of the sign-in throttle, and what a
 * provider's own 429 or 503 asked for (passed on, in whole seconds).
 */
export function retryAfterOf(err: DomainError): number | undefined {
  const seconds = err.details.retryAfterSeconds;
  if (typeof seconds === "number") return seconds;
  const ms = err.details.retryAfterMs;
  if (typeof ms === "number") return Math.ceil(ms / 1000);
  return err.code === "UNAVAILABLE" ? RETRY_AFTER_SECONDS : undefined;
}

/**
 * The headers an error response carries besides its body: Retry-After when it applies; a 408 (a
 * body that stopped arriving) closes the connection, its unread rest is not waited for.
 */
export function errorHeaders(err: DomainError): Record<string, string> | undefined {
  if (err.code === "REQUEST_TIMEOUT") return { connection: "close" };
  const seconds = retryAfterOf(err);
  // A limit's refusal carries the rate-limit headers of the limit that refused.
  const own = err.details.headers as Record<string, string> | undefined;
  if (seconds === undefined) return own;
  return { ...own, "retry-after": String(seconds) };
}

export function errorResponse(err: DomainError, extra: Record<string, unknown> = {}): Response {
  return Response.json({ ...errorEnvelope(err), ...extra }, { status: statusOf(err), headers: errorHeaders(err) });
}

type OpenAiError = { message: string; type: string; code: unknown; param: unknown };

/**
 * OpenAI's `error` object, which OpenAI client libraries read (`error.message`, `error.type`,
 * `error.code`): in /chat/completions error bodies and in a stream's error event alike. Upstream
 * errors keep the upstream's own.
 */
export function openAiError(err: DomainError): OpenAiError {
  const upstream = (err.details.upstreamError ?? err.details.openAiError) as OpenAiError | undefined;
  return upstream ?? { message: err.message, type: err.code.toLowerCase(), code: err.code, param: null };
}

/** /chat/completions errors: the envelope plus OpenAI's `error` object. */
export function openAiErrorResponse(err: DomainError): Response {
  return Response.json({ ...errorEnvelope(err), error: openAiError(err) }, { status: statusOf(err), headers: errorHeaders(err) });
}

const ANTHROPIC_TYPES: Record<ErrorCode, string> = {
  VALIDATION: "invalid_request_error",
  UNAUTHORIZED: "authentication_error",
  FORBIDDEN: "permission_error",
  NOT_FOUND: "not_found_error",
  CONFLICT: "invalid_request_error",
  PAYLOAD_TOO_LARGE: "request_too_large",
  REQUEST_TIMEOUT: "timeout_error",
  RATE_LIMITED: "rate_limit_error",
  UPSTREAM_ERROR: "api_error",
  UPSTREAM_TIMEOUT: "timeout_error",
  UNAVAILABLE: "overloaded_error",
  INTERNAL: "api_error",
};
const ANTHROPIC_TYPE_NAMES = new Set(Object.values(ANTHROPIC_TYPES));

/**
 * Anthropic's error body, `{"type":"error","error":{"type","message"}}`, which the Anthropic SDK and
 * Claude Code read: on /messages, and as its stream's `error` event. The message names the fields
 * at fault; an error Anthropic itself answered keeps Anthropic's type.
 */
export function anthropicError(err: DomainError): { type: "error"; error: { type: string; message: string } } {
  const upstreamType = (err.details.upstreamError as { type?: unknown } | undefined)?.type;
  const type = typeof upstreamType === "string" && ANTHROPIC_TYPE_NAMES.has(upstreamType) ? upstreamType : ANTHROPIC_TYPES[err.code];
  const issues = err.issues.map((i) => i.message).join("; ");
  const message = issues && !err.message.includes(issues) ? `${err.message}: ${issues}` : err.message;
  return { type: "error", error: { type, message } };
}

export function anthropicErrorResponse(err: DomainError): Response {
  return Response.json(anthropicError(err), { status: statusOf(err), headers: errorHeaders(err) });
}

/** The Responses API's error object (OpenAI's), for /responses and /embeddings. */
export function openAiOnlyErrorResponse(err: DomainError): Response {
  return Response.json({ error: openAiError(err) }, { status: statusOf(err), headers: errorHeaders(err) });
}
