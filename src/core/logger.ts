// One JSON object per line on stdout: easy to ship to any log collector. Secrets never reach it:
// callers log ids, not keys or bodies.
export type LogLevel = "debug" | "info" | "warn" | "error";
export type LogFields = Record<string, unknown>;
export type Logger = {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /** Whether a line at this level is written: lets hot paths skip building fields. */
  enabled(level: LogLevel): boolean;
};

const ORDER: Record<LogLevel | "silent", number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export function createLogger(level: LogLevel | "silent", write: (line: string) => void = (line) => process.stdout.write(`${line}\n`)): Logger {
  const min = ORDER[level];
  const at = (lvl: LogLevel) => (msg: string, fields?: LogFields) => {
    if (ORDER[lvl] < min) return;
    write(JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, ...fields }));
  };
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error"), enabled: (lvl) => ORDER[lvl] >= min };
}

/** Errors serialised for logs: message and stack, plus a driver's SQLSTATE when there is one. */
export function errorFields(err: unknown): LogFields {
  if (!(err instanceof Error)) return { error: String(err) };
  const cause = (err as { cause?: { code?: unknown; message?: unknown } }).cause;
  return {
    error: err.message,
    errorName: err.name,
    stack: err.stack,
    ...(cause && typeof cause === "object" ? { cause: String(cause.message ?? ""), sqlState: cause.code } : {}),
  };
}
