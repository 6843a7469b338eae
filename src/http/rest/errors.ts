import type { DomainError, ErrorCode, Issue } from "../../errors";

export function httpStatusOf(err: DomainError): number {
  const code: ErrorCode = err.code;
  switch (code) {
    case "VALIDATION":
      return 400;
    case "UNAUTHORIZED":
      return 401;
    case "FORBIDDEN":
      return 403;
    case "NOT_FOUND":
      return 404;
    case "CONFLICT":
      return 409;
    case "PAYLOAD_TOO_LARGE":
      return 413;
    case "RATE_LIMITED":
      return 429;
    case "UPSTREAM_ERROR": {
      const s = err.details.upstreamStatus;
      return typeof s === "number" && s >= 400 && s <= 599 ? s : 502;
    }
    case "UPSTREAM_TIMEOUT":
      return 504;
    case "INTERNAL":
      return 500;
    default: {
      const unreachable: never = code;
      return unreachable;
    }
  }
}

export type ErrorEnvelope = { message: string; code: ErrorCode; issues: Issue[] };

/** The spec's error body: `{message, code, issues}`. */
export function errorEnvelope(err: DomainError): ErrorEnvelope {
  return { message: err.message, code: err.code, issues: err.issues };
}

export function errorResponse(err: DomainError, extra: Record<string, unknown> = {}): Response {
  return Response.json({ ...errorEnvelope(err), ...extra }, { status: httpStatusOf(err) });
}
