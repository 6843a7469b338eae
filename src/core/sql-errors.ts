// Drivers wrap Postgres errors differently (Drizzle puts the driver error in `cause`); the
// SQLSTATE is what tells a unique violation apart.
export function sqlStateOf(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

export const isUniqueViolation = (err: unknown) => sqlStateOf(err) === "23505";

/**
 * What a failed statement is logged with: the SQLSTATE and the driver's own message (cut at 300
 * characters), never Drizzle's message, which quotes the statement's parameters (the payloads).
 */
export function statementErrorFields(err: unknown): { sqlState: string | null; error: string } {
  const cause = (err as { cause?: unknown }).cause;
  const driver = cause instanceof Error ? cause : err;
  const message = driver instanceof Error ? driver.message : String(driver);
  return { sqlState: sqlStateOf(err) ?? null, error: message.slice(0, 300) };
}

// Socket-level failures (Node/Bun) and postgres.js's own codes for a connection it lost or could
// not open: none carries a SQLSTATE.
const CONNECTION_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ConnectionRefused",
  "ConnectionClosed",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
]);

/**
 * True when the database could not be reached or went away (server down, restarting, refusing
 * connections, pool closed): the same statement may well succeed later, so it is worth a retry,
 * and a client is told 503 rather than 500.
 */
export function isConnectionError(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    const errno = (e as { errno?: unknown }).errno;
    if (typeof code === "string") {
      // 08: connection exception; 57P01-03: admin/crash shutdown, cannot connect now; 53300: too many connections.
      if (/^08[0-9A-Z]{3}$/.test(code) || /^57P0[123]$/.test(code) || code === "53300") return true;
      if (CONNECTION_CODES.has(code)) return true;
    }
    if (typeof errno === "string" && CONNECTION_CODES.has(errno)) return true;
    const message = (e as { message?: unknown }).message;
    // PGlite (in process) has no codes: a closed instance is its only way to be unreachable.
    if (typeof message === "string" && message === "PGlite is closed") return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}
