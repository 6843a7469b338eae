// Fixed caps on what one input may carry. Limits an operator may want to move live in config.ts
// (HONE_* variables); these are set so that no legitimate client comes near them, and so that an
// attacker holding a valid key cannot make one request cost unbounded memory or time.
// docs/teams-and-security.md ("Security and limits") lists every one of them.

import { DomainError } from "./errors";

/** Characters in a `model` string (`openai:gpt-4o-mini`, `hone:provider/model`). */
export const MAX_MODEL_LENGTH = 256;
/** Characters in a custom provider's base URL. */
export const MAX_BASE_URL_LENGTH = 2_048;
/** Characters in an id a client sends (completion ids, log ids, request ids). */
export const MAX_ID_LENGTH = 256;
/** The longest trace or span id kept (W3C: 32 and 16 hex digits; a client's own op-trace-id may be longer). */
export const MAX_TRACE_ID_LENGTH = 128;
/** Characters in an API key's name. */
export const MAX_API_KEY_NAME_LENGTH = 100;
/** Criteria one request may name (`op-criteria`, `hone.criteria`). */
export const MAX_CRITERIA_PER_REQUEST = 10;
/** Fallback model strings one request may name (hone.fallbacks, op-fallbacks). */
export const MAX_FALLBACKS = 5;
/** Routes one project may have (a fixed set of configuration, listed whole). */
export const MAX_ROUTES = 100;
/** Upstream attempts one routed call makes at most, over all its targets, keys and retries. */
export const MAX_ATTEMPTS_PER_CALL = 20;
/** Choices one completion may ask for (`n`). */
export const MAX_CHOICES = 16;
/**
 * One embeddings request (`POST /embeddings`): inputs it may carry (OpenAI's own cap), characters in
 * one input string, token ids in one token array, and the largest `dimensions` it may ask for.
 */
export const MAX_EMBEDDING_INPUTS = 2_048;
export const MAX_EMBEDDING_INPUT_CHARS = 100_000;
export const MAX_EMBEDDING_INPUT_TOKENS = 100_000;
export const MAX_EMBEDDING_DIMENSIONS = 65_536;
/** Ids one request may list (`logIds` and the like). */
export const MAX_IDS_PER_REQUEST = 1_000;
/** Tag keys on one call, and the length of a tag key and of a tag value. */
export const MAX_TAGS = 50;
export const MAX_TAG_KEY_LENGTH = 128;
export const MAX_TAG_VALUE_LENGTH = 2_048;
/** Rows one alignment-set import may carry. */
export const MAX_ALIGNMENT_ROWS = 10_000;
/** Bytes in one line of a JSONL upload or import. */
export const MAX_JSONL_LINE_BYTES = 4 * 1024 * 1024;
/**
 * Deepest nesting of JSON Hone parses out of strings (tool-call arguments, op-* headers) and out of
 * upstream answers, where HONE_MAX_JSON_DEPTH (for what clients send) is not at hand.
 */
export const MAX_EMBEDDED_JSON_DEPTH = 128;
/** Bytes of one server-sent event from an upstream (a chunk of a stream is a few hundred). */
export const MAX_SSE_EVENT_BYTES = 16 * 1024 * 1024;
/** Tokens one call may claim in any usage count (reports and provider answers); past it the usage is not kept. */
export const MAX_TOKENS_PER_CALL = 100_000_000;
/** Bytes of JSONL lines (about: characters) a dataset import stores per batch, so memory stays flat. */
export const IMPORT_BATCH_BYTES = 4 * 1024 * 1024;
/** Characters of a non-JSON upstream error body kept in a message or a log. */
export const MAX_UPSTREAM_ERROR_TEXT = 1_000;
/** Largest page a list may ever be configured to return (the ceiling of HONE_MAX_PAGE_SIZE). */
export const MAX_PAGE_SIZE_CEILING = 10_000;

/**
 * Refuses a page larger than the configured maximum (HONE_MAX_PAGE_SIZE) instead of clamping it
 * silently, so a client learns why it got fewer rows than it asked for.
 */
export function checkPageSize(value: number | null | undefined, maxPageSize: number, name = "first"): void {
  if (value != null && value > maxPageSize) {
    const message = `${name}: ${value} exceeds the page size limit of ${maxPageSize} (HONE_MAX_PAGE_SIZE)`;
    throw new DomainError("VALIDATION", message, { issues: [{ message, path: [name] }] });
  }
}
/** Bytes of an upstream error body Hone reads at most (the rest is discarded unread). */
export const MAX_UPSTREAM_ERROR_BODY_BYTES = 64 * 1024;
/** Projects an admin sees in the console's switcher. */
export const MAX_PROJECTS_LISTED = 1000;
/** Log counts are exact up to this many matching logs; beyond it the planner's estimate is given. */
export const LOG_COUNT_EXACT_LIMIT = 10_000;
/** Tag suggestions read the project's newest this-many logs. */
export const TAG_SUGGESTION_SAMPLE = 2_000;
/** Tag keys, and values of one key, suggested at most. */
export const MAX_TAG_KEY_SUGGESTIONS = 100;
export const MAX_TAG_VALUE_SUGGESTIONS = 50;
/** Usage ranges: at most this many days with hourly buckets, and with daily buckets. */
export const MAX_USAGE_DAYS_HOURLY = 31;
export const MAX_USAGE_DAYS_DAILY = 400;
/** Groups of a usage split; the rest are summed into one `other` group. */
export const MAX_USAGE_GROUPS = 20;
/** Logs one statement of a bulk tag update touches (each batch its own short transaction). */
export const TAG_UPDATE_BATCH = 1_000;
/** Logs per page of a JSONL export (each line carries the bodies). */
export const MAX_EXPORT_PAGE = 200;
