import { jsonTextTooDeep } from "../../core/json-depth";
import { MAX_EMBEDDED_JSON_DEPTH, MAX_CRITERIA_PER_REQUEST, MAX_FALLBACKS, MAX_ID_LENGTH, MAX_MODEL_LENGTH } from "../../core/limits";
import { DomainError } from "../../core/errors";
import { checkTagShapes, Tags } from "../logs";
import { CacheMode, type ControlHeaders, type Controls } from "../calls";

/** The `hone` body member of a chat completion or an embeddings request, as its schema parsed it. */
type BodyControls =
  | { cache?: CacheMode | boolean; criteria?: string[]; tags?: Record<string, unknown>; logRequest?: boolean; fallbacks?: string[] }
  | undefined;

function bad(header: string, message: string): DomainError {
  return new DomainError("VALIDATION", `Invalid ${header} header: ${message}`, { issues: [{ message, path: [header] }] });
}

/** legacy `true` = readWrite and `false` = off, as older SDKs send them. */
function cacheModeOf(v: string | boolean): CacheMode | null {
  if (v === true || v === "true") return "readWrite";
  if (v === false || v === "false") return null;
  const r = CacheMode.safeParse(v);
  if (!r.success) throw bad("op-cache", "expected readWrite, readOnly, writeOnly, true or false");
  return r.data;
}

function parseJsonHeader(name: string, text: string): unknown {
  if (jsonTextTooDeep(text, MAX_EMBEDDED_JSON_DEPTH)) throw bad(name, `nested more than ${MAX_EMBEDDED_JSON_DEPTH} levels deep`);
  try {
    return JSON.parse(text);
  } catch {
    throw bad(name, "not valid JSON");
  }
}

/** Request controls from op-* headers and the `hone` body member; headers take precedence. */
export function parseControls(headers: ControlHeaders, body: BodyControls): Controls {
  let logRequest = body?.logRequest;
  if (headers.logRequest != null && headers.logRequest !== "") {
    const v = headers.logRequest.trim().toLowerCase();
    if (v !== "true" && v !== "false") throw bad("op-log-request", "expected true or false");
    logRequest = v === "true";
  }

  let cache = body?.cache !== undefined ? cacheModeOf(body.cache) : null;
  if (headers.cache != null && headers.cache !== "") cache = cacheModeOf(headers.cache.trim());

  let criteria = body?.criteria ?? [];
  if (headers.criteria != null && headers.criteria !== "") {
    const v = parseJsonHeader("op-criteria", headers.criteria);
    if (!Array.isArray(v) || !v.every((x) => typeof x === "string" && x.length > 0)) {
      throw bad("op-criteria", 'expected a JSON array of criterion ids, e.g. ["crit_abc@v1"]');
    }
    criteria = v as string[];
  }
  // Every criterion is a judge call per choice: the list is bounded, and a repeat is refused
  // (a Set, so checking costs the same however the list is built).
  if (criteria.length > MAX_CRITERIA_PER_REQUEST) {
    throw bad("op-criteria", `at most ${MAX_CRITERIA_PER_REQUEST} criteria per request`);
  }
  if (criteria.some((c) => c.length > MAX_ID_LENGTH)) throw bad("op-criteria", `a criterion id may be at most ${MAX_ID_LENGTH} characters`);
  const seen = new Set<string>();
  for (const c of criteria) {
    const id = c.replace(/@v\d+$/, "");
    if (seen.has(id)) throw bad("op-criteria", `criterion ${id} is listed twice`);
    seen.add(id);
  }

  let tags: Record<string, unknown> = body?.tags ?? {};
  if (headers.tags != null && headers.tags !== "") {
    const v = parseJsonHeader("op-tags", headers.tags);
    checkTagShapes(v, ["op-tags"]);
    tags = { ...tags, ...(v as Record<string, unknown>) };
  }
  const checked = Tags.safeParse(tags);
  if (!checked.success) throw bad("op-tags", checked.error.issues.map((i) => i.message).join("; "));

  let fallbacks = body?.fallbacks ?? [];
  if (headers.fallbacks != null && headers.fallbacks !== "") {
    const v = parseJsonHeader("op-fallbacks", headers.fallbacks);
    if (!Array.isArray(v) || !v.every((x) => typeof x === "string" && x.length > 0 && x.length <= MAX_MODEL_LENGTH)) {
      throw bad("op-fallbacks", 'expected a JSON array of model strings, e.g. ["anthropic:claude-sonnet-4-5"]');
    }
    if (v.length > MAX_FALLBACKS) throw bad("op-fallbacks", `at most ${MAX_FALLBACKS} fallbacks per request`);
    fallbacks = v as string[];
  }
  return { logRequest, cache, criteria, tags, fallbacks };
}

/**
 * Whether the call names fallbacks (body or header). A /messages or /responses call that does is
 * served through the chat form, so any target can answer it whatever its protocol.
 */
export function namesFallbacks(headers: ControlHeaders, body: BodyControls): boolean {
  return (headers.fallbacks != null && headers.fallbacks.trim() !== "" && headers.fallbacks.trim() !== "[]") || (body?.fallbacks?.length ?? 0) > 0;
}

/** Whether an embeddings call's log keeps the vectors: `op-log-vectors`, else `hone.logVectors`; default no. */
export function parseLogVectors(header: string | null | undefined, body: boolean | undefined): boolean {
  if (header == null || header === "") return body ?? false;
  const v = header.trim().toLowerCase();
  if (v !== "true" && v !== "false") throw bad("op-log-vectors", "expected true or false");
  return v === "true";
}

/** Tags in the body (`metadata`, `hone.tags`) must be flat before the schema says anything else. */
export function checkBodyTags(body: unknown): void {
  if (!body || typeof body !== "object") return;
  const b = body as { metadata?: unknown; hone?: unknown };
  checkTagShapes(b.metadata, ["metadata"]);
  if (b.hone && typeof b.hone === "object") checkTagShapes((b.hone as { tags?: unknown }).tags, ["hone", "tags"]);
}
