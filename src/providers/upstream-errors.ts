import { DomainError } from "../core/errors";
import { MAX_UPSTREAM_ERROR_TEXT } from "../core/limits";

/**
 * A body that is not JSON (an HTML error page, a proxy's text) is never passed on or stored whole:
 * it is quoted, cut to MAX_UPSTREAM_ERROR_TEXT characters and labelled as such.
 */
function describeNonJsonBody(label: string, status: number, text: string): string {
  const trimmed = text.trim();
  if (!trimmed) return `${label} returned HTTP ${status} with an empty body`;
  const cut = trimmed.length > MAX_UPSTREAM_ERROR_TEXT;
  const quoted = JSON.stringify(cut ? trimmed.slice(0, MAX_UPSTREAM_ERROR_TEXT) : trimmed);
  return `${label} returned HTTP ${status} with a non-JSON body: ${quoted}${cut ? " (truncated)" : ""}`;
}

/** A body fit to keep in a log: JSON as it came, text as a capped, labelled message. */
export function storableBody(label: string, status: number, body: unknown): unknown {
  if (typeof body !== "string") return body;
  return { error: { message: describeNonJsonBody(label, status, body), type: "upstream_error" } };
}

const capText = (s: string) => (s.length > MAX_UPSTREAM_ERROR_TEXT ? `${s.slice(0, MAX_UPSTREAM_ERROR_TEXT)}… (truncated)` : s);

/**
 * How long an upstream asks to be left alone (`retry-after-ms`, OpenAI's; else `Retry-After` in
 * seconds or as an HTTP date), in ms; undefined when it does not say, or says nonsense.
 */
export function retryAfterMsOf(headers: Headers | undefined, now = Date.now()): number | undefined {
  const ms = headers?.get("retry-after-ms");
  if (ms && /^\d+(\.\d+)?$/.test(ms.trim())) return Math.round(Number(ms));
  const value = headers?.get("retry-after")?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** An upstream's HTTP error, keeping its status, the message its body gives and its Retry-After. */
export function upstreamHttpError(label: string, status: number, body: unknown, headers?: Headers): DomainError {
  const err = (body as { error?: { message?: unknown; type?: unknown; code?: unknown; param?: unknown } } | null)?.error;
  const nested = Array.isArray(body) ? (body[0] as { error?: { message?: unknown } } | undefined)?.error : undefined;
  const message =
    (typeof err?.message === "string" && err.message && capText(err.message)) ||
    (typeof nested?.message === "string" && nested.message && capText(nested.message)) ||
    (typeof body === "string" && describeNonJsonBody(label, status, body)) ||
    `${label} returned HTTP ${status}`;
  return new DomainError("UPSTREAM_ERROR", message, {
    upstreamStatus: status,
    upstreamError: {
      message,
      type: typeof err?.type === "string" ? err.type : "upstream_error",
      code: typeof err?.code === "string" || typeof err?.code === "number" ? err.code : null,
      param: typeof err?.param === "string" ? err.param : null,
    },
    upstreamBody: storableBody(label, status, body),
    retryAfterMs: retryAfterMsOf(headers),
  });
}
