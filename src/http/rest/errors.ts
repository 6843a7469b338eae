import { RETRY_AFTER_SECONDS, statusOf, type DomainError, type ErrorCode, type Issue } from "../../errors";

type ErrorEnvelope = { message: string; code: ErrorCode; issues: Issue[] };

/** The spec's error body: `{message, code, issues}`. */
export function errorEnvelope(err: DomainError): ErrorEnvelope {
  return { message: err.message, code: err.code, issues: err.issues };
}

// A 503 says when to come back, so well-behaved clients (and the OpenPipe SDKs' retries) back off.
// A 408 (a body that stopped arriving) closes the connection: its unread rest is not waited for.
function headersOf(err: DomainError): HeadersInit | undefined {
  if (err.code === "REQUEST_TIMEOUT") return { connection: "close" };
  return err.code === "UNAVAILABLE" ? { "retry-after": String(err.details.retryAfterSeconds ?? RETRY_AFTER_SECONDS) } : undefined;
}

export function errorResponse(err: DomainError, extra: Record<string, unknown> = {}): Response {
  return Response.json({ ...errorEnvelope(err), ...extra }, { status: statusOf(err), headers: headersOf(err) });
}

type OpenAiError = { message: string; type: string; code: unknown; param: unknown };

/**
 * OpenAI's `error` object, which OpenAI client libraries read (`error.message`, `error.type`,
 * `error.code`): in /chat/completions error bodies and in a stream's error event alike. Upstream
 * errors keep the upstream's own.
 */
export function openAiError(err: DomainError): OpenAiError {
  const upstream = err.details.upstreamError as OpenAiError | undefined;
  return upstream ?? { message: err.message, type: err.code.toLowerCase(), code: err.code, param: null };
}

/** /chat/completions errors: the envelope plus OpenAI's `error` object. */
export function openAiErrorResponse(err: DomainError): Response {
  return Response.json({ ...errorEnvelope(err), error: openAiError(err) }, { status: statusOf(err), headers: headersOf(err) });
}
