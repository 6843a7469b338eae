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
