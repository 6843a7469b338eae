import type { LogAttempt } from "./attempts";
import { z } from "zod";
import { DomainError } from "../../core/errors";
import { FilterDate } from "../filter-date";
import { INTERNAL_KINDS } from "../../core/internal-kinds";
/** The protocols a logged call can come in by. */
export const LOG_APIS = ["chat", "responses", "messages", "embeddings"] as const;
export type LogApi = (typeof LOG_APIS)[number];

import {
  MAX_ID_LENGTH,
  MAX_IDS_PER_REQUEST,
  MAX_MODEL_LENGTH,
  MAX_PAGE_SIZE_CEILING,
  MAX_TAG_KEY_LENGTH,
  MAX_TAG_VALUE_LENGTH,
  MAX_TAGS,
  MAX_TRACE_ID_LENGTH,
} from "../../core/limits";

// A report's times are Date.now() of the client: anything before 2000 or after 2100 is a mistake
// (0, or seconds instead of milliseconds), answered 400 rather than stored as 1970.
const EARLIEST_MS = Date.UTC(2000, 0, 1);
const LATEST_MS = Date.UTC(2100, 0, 1);
const UnixMs = z
  .number({ error: "must be a Unix timestamp in milliseconds (a number)" })
  .finite()
  .min(EARLIEST_MS, "must be a Unix timestamp in milliseconds (Date.now()) after 2000-01-01; seconds are not accepted")
  .max(LATEST_MS, "must be a Unix timestamp in milliseconds before 2100-01-01");

const TagValue = z.union([
  z.string().max(MAX_TAG_VALUE_LENGTH, `a tag value may be at most ${MAX_TAG_VALUE_LENGTH} characters`),
  z.number(),
  z.boolean(),
  z.null(),
]);
const TagKey = z.string().max(MAX_TAG_KEY_LENGTH, `a tag key may be at most ${MAX_TAG_KEY_LENGTH} characters`);
export const Tags = z
  .record(TagKey, TagValue, { error: "must be an object of string, number or boolean values" })
  .refine((t) => Object.keys(t).length <= MAX_TAGS, `at most ${MAX_TAGS} tags`);

/** The merged tags of one log (every source together), held to the same caps as each source. */
export const MergedTags = z
  .record(TagKey, z.string().max(MAX_TAG_VALUE_LENGTH, `a tag value may be at most ${MAX_TAG_VALUE_LENGTH} characters`))
  .refine((t) => Object.keys(t).length <= MAX_TAGS, `at most ${MAX_TAGS} tags in all (tags, metadata and the request's metadata)`);

/** A trace, span or session id a client sends: W3C hex ids, or its own (letters, digits, ._:-). */
const TraceIdText = z
  .string()
  .regex(/^[A-Za-z0-9._:-]{1,128}$/, "letters, digits and ._:- up to 128 characters (W3C trace ids are 32 hex digits, span ids 16)");

/** POST /report. Payloads may be anything, null included; they are stored as they came. */
export const ReportInput = z.looseObject({
  requestedAt: UnixMs.nullish(),
  receivedAt: UnixMs.nullish(),
  reqPayload: z.unknown().optional(),
  respPayload: z.unknown().optional(),
  statusCode: z.number().int().min(0).max(999).nullish(),
  errorMessage: z.string().nullish(),
  tags: Tags.nullish(),
  /** Where the reported call sits in a trace (docs/traces.md); the traceparent header says the same. */
  traceId: TraceIdText.nullish(),
  spanId: TraceIdText.nullish(),
  parentSpanId: TraceIdText.nullish(),
  sessionId: TraceIdText.nullish(),
});

/** What a report's payloads name, checked where they become indexed columns. */
export const ReportedModel = z.string().max(MAX_MODEL_LENGTH, `model may be at most ${MAX_MODEL_LENGTH} characters`);
export const ReportedCompletionId = z.string().max(MAX_ID_LENGTH, `id may be at most ${MAX_ID_LENGTH} characters`);

// Anthropic payloads are converted to chat-completion form; where the conversion expects an
// object (a message, a content block, a tool), anything else is a 400 naming the place.
const Block = z.looseObject({});
const Blocks = z.union([z.string(), z.array(Block)]);
export const AnthropicRequestShape = z.looseObject({
  system: Blocks.nullish(),
  messages: z.array(z.looseObject({ content: z.union([z.string(), z.array(z.looseObject({ content: Blocks.nullish() }))]).nullish() })).nullish(),
  tools: z.array(Block).nullish(),
  tool_choice: Block.nullish(),
});
export const AnthropicMessageShape = z.looseObject({ content: z.array(Block).nullish(), usage: Block.nullish() });
export type ReportInput = z.input<typeof ReportInput>;

/** POST /report-anthropic: the same, with Anthropic payloads and `metadata`. */
export const AnthropicReportInput = ReportInput.extend({ metadata: Tags.nullish() });
export type AnthropicReportInput = z.input<typeof AnthropicReportInput>;

/** Which logs an update of tags applies to: `model`, `completionId`, or a tag (`metadata.<key>` or `tags.<key>`, as the wire spells it). */
const TagUpdateFilter = z.strictObject({
  field: z
    .string()
    .max(MAX_TAG_KEY_LENGTH + 9)
    .regex(/^(model|completionId|(metadata|tags)\..+)$/, "field must be model, completionId, metadata.<key> or tags.<key>"),
  equals: z.union([z.string().max(MAX_TAG_VALUE_LENGTH), z.number(), z.boolean()]),
});

export const UpdateTagsInput = z.strictObject({
  filters: z.array(TagUpdateFilter).max(50),
  tags: z.record(TagKey.min(1), TagValue).refine((t) => Object.keys(t).length <= MAX_TAGS, `at most ${MAX_TAGS} tags`),
});
export type UpdateTagsInput = z.input<typeof UpdateTagsInput>;

export const CheckCacheInput = z.looseObject({
  requestedAt: UnixMs,
  reqPayload: z.unknown().optional(),
  tags: Tags.optional(),
});

/** A status class: 2xx..5xx, or `none` for calls with no HTTP status (null, or 0 = no response). */
export const STATUS_CLASSES = ["2xx", "3xx", "4xx", "5xx", "none"] as const;
export type StatusClass = (typeof STATUS_CLASSES)[number];

/** Why Hone refused a call before any upstream: a rate limit, a spent budget, a cost cap that cannot price it, a model the key may not call, a scope it lacks. */
export const REFUSAL_KINDS = ["rate_limit", "budget", "unpriced", "model", "scope", "masking"] as const;
export type RefusalKind = (typeof REFUSAL_KINDS)[number];

/** Where a log comes from: the gateway, a report (either format), or Hone itself. */
export const LOG_SOURCES = ["gateway", "report", "report-anthropic", "otel", "internal"] as const;
export type LogSource = (typeof LOG_SOURCES)[number];

const TagPair = z.strictObject({ key: z.string().min(1).max(MAX_TAG_KEY_LENGTH), equals: z.string().max(MAX_TAG_VALUE_LENGTH) });

/** Fields a filter can exclude: a log matches when it differs from every value given. */
export const LogFilterNot = z.strictObject({
  model: z.string().max(MAX_MODEL_LENGTH).nullish(),
  statusCode: z.number().int().min(0).max(999).nullish(),
  statusClass: z.enum(STATUS_CLASSES, { error: `statusClass must be one of ${STATUS_CLASSES.join(", ")}` }).nullish(),
  completionId: z.string().max(MAX_ID_LENGTH).nullish(),
  source: z.enum(LOG_SOURCES).nullish(),
  provider: z.string().max(100).nullish(),
  internalKind: z.enum(INTERNAL_KINDS).nullish(),
  api: z.enum(LOG_APIS).nullish(),
});

export const LogFilter = z.strictObject({
  /** A selection: only these logs (of the project); an empty list matches none. */
  ids: z.array(z.string().min(1).max(MAX_ID_LENGTH)).max(MAX_IDS_PER_REQUEST, `at most ${MAX_IDS_PER_REQUEST} log ids; use a filter for more`).nullish(),
  model: z.string().max(MAX_MODEL_LENGTH).nullish(),
  statusCode: z.number().int().min(0).max(999).nullish(),
  statusClass: z.enum(STATUS_CLASSES, { error: `statusClass must be one of ${STATUS_CLASSES.join(", ")}` }).nullish(),
  completionId: z.string().max(MAX_ID_LENGTH).nullish(),
  source: z.enum(LOG_SOURCES, { error: `source must be one of ${LOG_SOURCES.join(", ")}` }).nullish(),
  provider: z.string().max(100).nullish(),
  cacheHit: z.boolean().nullish(),
  /** true: only Hone's own calls (judges, evaluations, ...); false: only the application's; absent: both. */
  internal: z.boolean().nullish(),
  internalKind: z.enum(INTERNAL_KINDS, { error: `internalKind must be one of ${INTERNAL_KINDS.join(", ")}` }).nullish(),
  /** The protocol the client spoke: chat, responses, messages or embeddings. */
  api: z.enum(LOG_APIS, { error: `api must be one of ${LOG_APIS.join(", ")}` }).nullish(),
  /** true: only the calls Hone refused before any upstream (limits, budgets, allowed models, scopes); false: only the others. */
  refused: z.boolean().nullish(),
  /** Only the calls refused for this reason. */
  refusal: z.enum(REFUSAL_KINDS, { error: `refusal must be one of ${REFUSAL_KINDS.join(", ")}` }).nullish(),
  /** true: only logs in which masking replaced something (domain/masking); false: only the others. */
  masked: z.boolean().nullish(),
  /** Only logs in which values of this kind were masked (EMAIL, CARD, OPENAI_KEY, ...). */
  maskedKind: z
    .string()
    .regex(/^[A-Z][A-Z0-9_]{0,40}$/, "maskedKind is a kind's name in capitals, such as EMAIL or CARD")
    .nullish(),
  /** The calls of one trace, and of one session. */
  traceId: z.string().min(1).max(MAX_TRACE_ID_LENGTH).nullish(),
  sessionId: z.string().min(1).max(MAX_ID_LENGTH).nullish(),
  /** true: only calls in a trace; false: only the others. */
  traced: z.boolean().nullish(),
  /** true: only the last call of each trace (an agent run's final answer, with the whole conversation before it). */
  lastInTrace: z.boolean().nullish(),
  /** Calls to this route (its slug), and of them those a target of this rollout version answered. */
  route: z.string().min(1).max(MAX_ID_LENGTH).nullish(),
  routeVersion: z.string().min(1).max(64).nullish(),
  /** Logged at or after / at or before (ISO 8601 times, or Dates). */
  from: FilterDate.nullish(),
  to: FilterDate.nullish(),
  /** Tag pairs a log must have, every one. */
  tags: z.array(TagPair).max(20).nullish(),
  /** Tag pairs a log must not have (a log without the key matches). */
  tagsNot: z.array(TagPair).max(20).nullish(),
  /** Tag keys a log must not have at all. */
  tagsAbsent: z.array(z.string().min(1).max(MAX_TAG_KEY_LENGTH)).max(20).nullish(),
  /** Field values a log must differ from ("is not"). */
  not: LogFilterNot.nullish(),
  /** Case-insensitive text search in the request and response bodies. */
  search: z.string().min(1).max(500).nullish(),
});
export type LogFilter = z.input<typeof LogFilter>;
export { FilterDate };

export const ListLogsInput = z.strictObject({
  filter: LogFilter.nullish(),
  first: z.number().int().min(1).max(MAX_PAGE_SIZE_CEILING).nullish(),
  after: z.string().max(200).nullish(),
});
export type ListLogsInput = z.input<typeof ListLogsInput>;

export const LogIdInput = z.strictObject({ id: z.string().min(1).max(100) });

export type RequestLog = {
  id: string;
  source: string;
  /** For source `internal`: what Hone made the call for. */
  internalKind: string | null;
  /** The protocol the client spoke: chat | responses | messages | embeddings. */
  api: string;
  provider: string | null;
  model: string | null;
  completionId: string | null;
  statusCode: number | null;
  errorMessage: string | null;
  requestedAt: Date | null;
  receivedAt: Date | null;
  durationMs: number | null;
  inputTokens: number | null;
  outputTokens: number | null;
  /** Of inputTokens: read from the provider's prompt cache, and written to it. */
  cachedInputTokens: number | null;
  cacheWriteTokens: number | null;
  /** Of outputTokens: spent on reasoning. */
  reasoningTokens: number | null;
  costUsd: number | null;
  /** Tokens and cost per billed class: `<class>_tokens`, `<class>_usd` (null: no usage, a cache hit, or an older log). */
  classes: Record<string, number> | null;
  /** The price the cost was reckoned with. */
  priceVersion: string | null;
  /** Why an answered call has no plain cost: no_usage or no_price. */
  costFlag: string | null;
  cacheHit: boolean;
  tags: Record<string, string>;
  createdAt: Date;
  /** Why some of the call's figures were not kept (impossible token counts, a payload cut short). */
  warning: string | null;
  /** The last user message and the first answer, short (null when the payloads hold none). */
  inputPreview: string | null;
  outputPreview: string | null;
  /** Bytes of the stored request and response payloads (null on logs older than the columns). */
  reqBytes: number | null;
  respBytes: number | null;
  /** Calls with fallbacks or a route: every attempt, in order (null: a call to one model, tried once). */
  attempts: LogAttempt[] | null;
  /** The route called (its slug) and the version of the target that answered. */
  route: string | null;
  routeVersion: string | null;
  /** Why Hone refused the call before any upstream (null: it did not), and how many calls the row counts (more than 1: a key's refusals of a minute folded). */
  refusal: RefusalKind | null;
  refusals: number | null;
  /** Sensitive values masked in what is stored, by kind (never the values); null: none. */
  masked: Record<string, number> | null;
  /** The masking mode the call ran under (mask_stored, mask_upstream, block); null: off. */
  masking: string | null;
  /** Where the call sits in a trace: its trace, its own span, the caller's span it is a child of; its session (docs/traces.md). Null: not known. */
  traceId: string | null;
  spanId: string | null;
  parentSpanId: string | null;
  sessionId: string | null;
};

export type RequestLogBody = { reqPayload: unknown; respPayload: unknown; reqPayloadOriginal: unknown; respPayloadOriginal: unknown };

export type RequestLogPage = { logs: RequestLog[]; hasNextPage: boolean; endCursor: string | null };

function kindOf(v: unknown): string {
  if (Array.isArray(v)) return "an array";
  if (typeof v === "object") return "an object";
  return `a ${typeof v}`;
}

/**
 * Tags must be flat: a value that is an array or an object is refused before anything else
 * happens (nothing goes upstream, nothing is logged), with OpenPipe's wording, so clients that
 * match on "Failed to parse tags" behave as they did. `where` names the source for the issue path.
 */
export function checkTagShapes(tags: unknown, where: (string | number)[]): void {
  if (tags == null) return;
  if (typeof tags !== "object" || Array.isArray(tags)) {
    const message = `Failed to parse tags: expected an object of string, number, boolean or null values, got ${kindOf(tags)}`;
    throw new DomainError("VALIDATION", message, { issues: [{ message, path: where }] });
  }
  for (const [key, value] of Object.entries(tags)) {
    if (value === null || typeof value === "string" || typeof value === "number" || typeof value === "boolean") continue;
    const message = `Failed to parse tags: the value of "${key.slice(0, MAX_TAG_KEY_LENGTH)}" must be a string, number, boolean or null, not ${kindOf(value)}`;
    throw new DomainError("VALIDATION", message, { issues: [{ message, path: [...where, key] }] });
  }
}
