import { z } from "zod";
import { MAX_PAGE_SIZE_CEILING } from "../../limits";

const UnixMs = z
  .number({ error: "must be a Unix timestamp in milliseconds (a number)" })
  .finite()
  .min(0, "must not be negative")
  .max(8.64e15, "is beyond the largest representable date");

export const TagValue = z.union([z.string(), z.number(), z.boolean(), z.null()]);
export const Tags = z.record(z.string(), TagValue, { error: "must be an object of string, number or boolean values" });

/** POST /report. Payloads may be anything, null included; they are stored as they came. */
export const ReportInput = z.looseObject({
  requestedAt: UnixMs.nullish(),
  receivedAt: UnixMs.nullish(),
  reqPayload: z.unknown().optional(),
  respPayload: z.unknown().optional(),
  statusCode: z.number().int().min(0).max(999).nullish(),
  errorMessage: z.string().nullish(),
  tags: Tags.nullish(),
});
export type ReportInput = z.input<typeof ReportInput>;

/** POST /report-anthropic: the same, with Anthropic payloads and `metadata`. */
export const AnthropicReportInput = ReportInput.extend({ metadata: Tags.nullish() });
export type AnthropicReportInput = z.input<typeof AnthropicReportInput>;

export const MetadataFilter = z.object({
  field: z
    .string()
    .regex(/^(model|completionId|(metadata|tags)\..+)$/, "field must be model, completionId, metadata.<key> or tags.<key>"),
  equals: z.union([z.string(), z.number(), z.boolean()]),
});

export const UpdateMetadataInput = z.object({
  filters: z.array(MetadataFilter).max(50),
  metadata: z.record(z.string().min(1), TagValue),
});
export type UpdateMetadataInput = z.input<typeof UpdateMetadataInput>;

export const CheckCacheInput = z.looseObject({
  requestedAt: UnixMs,
  reqPayload: z.unknown().optional(),
  tags: Tags.optional(),
});

export const LogFilter = z.object({
  model: z.string().nullish(),
  statusCode: z.number().int().nullish(),
  completionId: z.string().nullish(),
  source: z.enum(["gateway", "report", "report-anthropic"]).nullish(),
  provider: z.string().nullish(),
  cacheHit: z.boolean().nullish(),
  /** Logged at or after / at or before (ISO 8601 times, or Dates). */
  from: z.coerce.date().nullish(),
  to: z.coerce.date().nullish(),
  metadata: z.array(z.object({ key: z.string().min(1), equals: z.string() })).max(20).nullish(),
  /** Case-insensitive text search in the request and response bodies. */
  search: z.string().min(1).max(500).nullish(),
});
export type LogFilter = z.input<typeof LogFilter>;

export const ListLogsInput = z.object({
  filter: LogFilter.nullish(),
  first: z.number().int().min(1).max(MAX_PAGE_SIZE_CEILING).nullish(),
  after: z.string().max(200).nullish(),
});
export type ListLogsInput = z.input<typeof ListLogsInput>;

export const LogIdInput = z.object({ id: z.string().min(1).max(100) });

export type RequestLog = {
  id: string;
  source: string;
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
  costUsd: number | null;
  cacheHit: boolean;
  metadata: Record<string, string>;
  createdAt: Date;
};

export type RequestLogBody = { reqPayload: unknown; respPayload: unknown; reqPayloadOriginal: unknown; respPayloadOriginal: unknown };

export type RequestLogPage = { logs: RequestLog[]; hasNextPage: boolean; endCursor: string | null };
