import { z } from "zod";
import { isConnectionError, sqlStateOf } from "./sql-errors";

// The closed list of failure kinds the domain can report. Transports map each to their own wire
// form (HTTP status, tRPC code, GraphQL extensions.code); the domain never knows about HTTP.
export const ERROR_CODES = [
  "VALIDATION",
  "UNAUTHORIZED",
  "FORBIDDEN",
  "NOT_FOUND",
  "CONFLICT",
  "PAYLOAD_TOO_LARGE",
  /** The client stopped sending its request body (HONE_BODY_IDLE_TIMEOUT_MS): the connection is closed. */
  "REQUEST_TIMEOUT",
  "RATE_LIMITED",
  "UPSTREAM_ERROR",
  "UPSTREAM_TIMEOUT",
  /** A dependency (the database) is unreachable or overloaded for now: worth retrying later. */
  "UNAVAILABLE",
  "INTERNAL",
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export type Issue = { message: string; path?: (string | number)[] };

type ErrorDetails = {
  issues?: Issue[];
  /** HTTP status of an upstream provider error, kept so the REST wire can mirror it. */
  upstreamStatus?: number;
  [key: string]: unknown;
};

export class DomainError extends Error {
  override name = "DomainError";
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: ErrorDetails = {},
  ) {
    super(message);
  }
  get issues(): Issue[] {
    return this.details.issues ?? [];
  }
}

export const VALIDATION_MESSAGE = "Input validation failed";

export function issuesFromZod(error: z.ZodError): Issue[] {
  return error.issues.map((i) => ({
    message: i.path.length ? `${i.path.join(".")}: ${i.message}` : i.message,
    path: i.path.map((p) => (typeof p === "symbol" ? String(p) : p)),
  }));
}

export function validationError(error: z.ZodError): DomainError {
  // A key the input does not have is named in the message itself: a misspelt or foreign word (a
  // filter's `metadata` where the field is `tags`) must be seen, since dropping it would widen what
  // the call does.
  const unknown = error.issues.flatMap((i) =>
    i.code === "unrecognized_keys" ? i.keys.map((k) => [...i.path.map((p) => (typeof p === "symbol" ? String(p) : p)), k].join(".")) : [],
  );
  const message = unknown.length
    ? `${VALIDATION_MESSAGE}: unknown input key${unknown.length > 1 ? "s" : ""} ${unknown.slice(0, 10).join(", ")}`
    : VALIDATION_MESSAGE;
  return new DomainError("VALIDATION", message, { issues: issuesFromZod(error) });
}

/** Parse with a zod schema; failures become a VALIDATION DomainError listing every issue. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const r = schema.safeParse(input);
  if (!r.success) throw validationError(r.error);
  return r.data;
}

export const STATEMENT_TIMEOUT_MESSAGE =
  "The database query took longer than the statement timeout (HONE_DB_STATEMENT_TIMEOUT_MS) and was cancelled; ask for less (smaller pages, narrower filters)";

export const notFound = (what: string, id: string) => new DomainError("NOT_FOUND", `${what} ${id} not found`);

/** Seconds a client is asked to wait before retrying an UNAVAILABLE answer (REST Retry-After). */
export const RETRY_AFTER_SECONDS = 5;

export const unavailable = () =>
  new DomainError("UNAVAILABLE", `The database is unavailable; retry in ${RETRY_AFTER_SECONDS} seconds`, { retryAfterSeconds: RETRY_AFTER_SECONDS });

function dataException(state: string): DomainError {
  const message =
    state === "22021" || state === "22P05"
      ? "The request holds text the database cannot store: a NUL character (U+0000) or an unpaired UTF-16 surrogate; remove it"
      : state === "22003"
        ? "The request holds a number too large for the field it goes into"
        : "The request holds a value the database cannot store in its field";
  return new DomainError("VALIDATION", message, { issues: [{ message }] });
}

/** Normalise anything thrown into a DomainError; unknown errors become INTERNAL with a generic message. */
export function toDomainError(err: unknown): DomainError {
  if (err instanceof DomainError) return err;
  if (err instanceof z.ZodError) return validationError(err);
  // 57014 query_canceled: the session's statement_timeout fired (or an operator cancelled it).
  // The request was too heavy for the server right now, not broken: 503, and the message says why.
  if (sqlStateOf(err) === "57014") return new DomainError("UNAVAILABLE", STATEMENT_TIMEOUT_MESSAGE);
  if (isConnectionError(err)) return unavailable();
  const state = sqlStateOf(err);
  // Class 22 (data exception): the statement was refused for a value it carried, which on every
  // path that reaches here came from the request (a NUL in an id or a name, an unpaired surrogate
  // on PGlite, a number past its column). That is a bad input, not a broken server: a 400 that
  // says what to remove, and nothing stored changed (the statement did not run).
  if (state?.startsWith("22")) return dataException(state);
  // 23503 foreign_key_violation: every verb checks what it refers to before it writes, so this is
  // the race where that thing was deleted in between (seen by the fuzzer: a batch that deletes a
  // dataset while starting a task on it). What it refers to no longer exists: a 404.
  if (state === "23503") {
    return new DomainError("NOT_FOUND", "Something this request refers to no longer exists: it was deleted while the request ran");
  }
  // The only way to run out of stack is data nested too deeply. Inputs are refused past
  // HONE_MAX_JSON_DEPTH at the door; this is the net under that (data stored before the limit).
  if (err instanceof RangeError && /call stack/i.test(err.message)) {
    const message = "The data nests too deeply to be processed (HONE_MAX_JSON_DEPTH)";
    return new DomainError("VALIDATION", message, { issues: [{ message }] });
  }
  return new DomainError("INTERNAL", "Internal server error");
}

/**
 * The HTTP status a failure of this kind answers with: used by the REST transport, and recorded
 * as the status code of a logged call that failed.
 */
export function statusOf(err: DomainError): number {
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
    case "REQUEST_TIMEOUT":
      return 408;
    case "RATE_LIMITED":
      return 429;
    case "UPSTREAM_ERROR": {
      const s = err.details.upstreamStatus;
      return typeof s === "number" && s >= 400 && s <= 599 ? s : 502;
    }
    case "UPSTREAM_TIMEOUT":
      return 504;
    case "UNAVAILABLE":
      return 503;
    case "INTERNAL":
      return 500;
    default: {
      const unreachable: never = code;
      return unreachable;
    }
  }
}
