import { domainLogFilter } from "../../log-filter-wire";
import { deleteLogs, exportLogsPage, getLog, listLogs, type LogAttempt, LogFilter, type RequestLog } from "../../../domain/logs";
import { asInputOf } from "../../../core/verb-input";
import { DomainError } from "../../../core/errors";
import { type ClassFigure, classFigures } from "../../../domain/pricing";
import { MaskedKindRef } from "./masking";
import { builder, projectCtx } from "../builder";
import { loadersOf } from "../loaders";

const LogAttemptRef = builder.objectRef<LogAttempt>("LogAttempt").implement({
  description: "One try of one target by a call with fallbacks or a route",
  fields: (t) => ({
    target: t.exposeString("target", { description: "The target's model string" }),
    version: t.string({ nullable: true, description: "The rollout version the target serves", resolve: (a) => a.version ?? null }),
    key: t.string({ nullable: true, description: "The key of the provider's key pool it was called with", resolve: (a) => a.key ?? null }),
    statusCode: t.exposeInt("statusCode", { nullable: true, description: "200 when it answered; the failure's status otherwise (null: no answer at all)" }),
    error: t.exposeString("error", { nullable: true }),
    latencyMs: t.exposeInt("latencyMs"),
    next: t.exposeString("next", { description: "What came next: answered, retried (the same target), fell-back (the next target) or failed" }),
  }),
});

export const ClassFigureRef = builder.objectRef<ClassFigure>("TokenClassFigure").implement({
  description: "Tokens of one billed class and what they cost",
  fields: (t) => ({
    tokenClass: t.exposeString("tokenClass", {
      description:
        "input, cache_read, cache_write_5m, cache_write_1h, audio_input, output, reasoning, audio_output, or compute (tokens are then seconds of call time)",
    }),
    tokens: t.exposeFloat("tokens"),
    costUsd: t.exposeFloat("costUsd", { nullable: true, description: "Null: no price was known for these tokens" }),
  }),
});

export const RequestLogRef = builder.objectRef<RequestLog>("RequestLog").implement({
  description: "One logged call: through the gateway, or reported by a client",
  fields: (t) => ({
    id: t.exposeID("id"),
    source: t.exposeString("source", { description: "gateway, report, report-anthropic, or internal (a call Hone made itself)" }),
    internalKind: t.exposeString("internalKind", {
      nullable: true,
      description: "For internal calls: judge, evaluation, alignment, relabel, playground or monitor",
    }),
    api: t.exposeString("api", { description: "The protocol the client spoke: chat, responses, messages or embeddings" }),
    inputPreview: t.exposeString("inputPreview", { nullable: true, description: "The last user message, short" }),
    outputPreview: t.exposeString("outputPreview", { nullable: true, description: "The first answer (text, tool calls or refusal), short" }),
    provider: t.exposeString("provider", { nullable: true }),
    model: t.exposeString("model", { nullable: true }),
    completionId: t.exposeString("completionId", { nullable: true }),
    statusCode: t.exposeInt("statusCode", { nullable: true }),
    errorMessage: t.exposeString("errorMessage", { nullable: true }),
    requestedAt: t.field({ type: "DateTime", nullable: true, resolve: (l) => l.requestedAt }),
    receivedAt: t.field({ type: "DateTime", nullable: true, resolve: (l) => l.receivedAt }),
    durationMs: t.exposeInt("durationMs", { nullable: true }),
    inputTokens: t.exposeInt("inputTokens", { nullable: true }),
    cachedInputTokens: t.exposeInt("cachedInputTokens", { nullable: true, description: "Of inputTokens: read from the provider's prompt cache" }),
    cacheWriteTokens: t.exposeInt("cacheWriteTokens", { nullable: true, description: "Of inputTokens: written to the provider's prompt cache" }),
    reasoningTokens: t.exposeInt("reasoningTokens", { nullable: true, description: "Of outputTokens: spent on reasoning" }),
    outputTokens: t.exposeInt("outputTokens", { nullable: true }),
    costUsd: t.exposeFloat("costUsd", { nullable: true }),
    classes: t.field({
      type: [ClassFigureRef],
      description:
        "The call's tokens and cost per billed class, in bill order; they add up to the tokens and costUsd (empty: no usage, a cache hit, or an older log)",
      resolve: (l) => classFigures(l.classes),
    }),
    priceVersion: t.exposeString("priceVersion", {
      nullable: true,
      description: "The price the cost was reckoned with: the price table and model (and the date that price started), or an override",
    }),
    costFlag: t.exposeString("costFlag", {
      nullable: true,
      description: "Why an answered call has no plain cost: no_usage (no token counts) or no_price (no price for its model)",
    }),
    cacheHit: t.exposeBoolean("cacheHit"),
    metadata: t.field({ type: "JSON", resolve: (l) => l.tags }),
    warning: t.exposeString("warning", {
      nullable: true,
      description: "Why some of the call's figures were not kept: impossible token counts (tokens and cost left empty), a payload stored cut short",
    }),
    reqBytes: t.exposeInt("reqBytes", { nullable: true, description: "Bytes of the stored request payload (null on logs older than the count)" }),
    respBytes: t.exposeInt("respBytes", { nullable: true, description: "Bytes of the stored response payload (null on logs older than the count)" }),
    createdAt: t.field({ type: "DateTime", resolve: (l) => l.createdAt }),
    attempts: t.field({
      type: [LogAttemptRef],
      nullable: true,
      description: "Calls with fallbacks or a route: every attempt, in order (null: one model, tried once)",
      resolve: (l) => l.attempts,
    }),
    route: t.exposeString("route", { nullable: true, description: "The route called (its slug)" }),
    routeVersion: t.exposeString("routeVersion", { nullable: true, description: "The rollout version of the target that answered" }),
    refusal: t.exposeString("refusal", {
      nullable: true,
      description: "Why Hone refused the call before any upstream: rate_limit, budget, unpriced, model, scope or masking (null: not refused)",
    }),
    refusals: t.exposeInt("refusals", {
      nullable: true,
      description: "The calls a refused log stands for: 1, or more for a key's refusals of a minute past HONE_REFUSALS_LOGGED_PER_MINUTE",
    }),
    masked: t.field({
      type: [MaskedKindRef],
      description: "Sensitive values masked in what is stored, by kind (never the values); empty when none",
      resolve: (l) => Object.entries(l.masked ?? {}).map(([kind, count]) => ({ kind, count })),
    }),
    masking: t.exposeString("masking", { nullable: true, description: "The masking mode the call ran under: mask_stored, mask_upstream or block (null: off)" }),
    traceId: t.exposeString("traceId", {
      nullable: true,
      description: "The trace the call belongs to (W3C: 32 hex digits, from the caller's traceparent; or its op-trace-id); null: not known",
    }),
    spanId: t.exposeString("spanId", { nullable: true, description: "The call's own span in its trace" }),
    parentSpanId: t.exposeString("parentSpanId", { nullable: true, description: "The caller's span the call is a child of" }),
    sessionId: t.exposeString("sessionId", { nullable: true, description: "The session its trace belongs to (op-session-id; a conversation, an agent's run)" }),
    reqPayload: t.field({
      type: "JSON",
      nullable: true,
      description: "The request (Anthropic reports: converted to chat-completion form)",
      resolve: async (l, _, c) => (await loadersOf(c).logRequests.load(l.id))?.reqPayload ?? null,
    }),
    respPayload: t.field({
      type: "JSON",
      nullable: true,
      description: "The response (streams: the merged chat.completion)",
      resolve: async (l, _, c) => (await loadersOf(c).logResponses.load(l.id))?.respPayload ?? null,
    }),
    reqPayloadOriginal: t.field({
      type: "JSON",
      nullable: true,
      description: "For converted reports: the request exactly as reported",
      resolve: async (l, _, c) => (await loadersOf(c).logRequests.load(l.id))?.reqPayloadOriginal ?? null,
    }),
    respPayloadOriginal: t.field({
      type: "JSON",
      nullable: true,
      resolve: async (l, _, c) => (await loadersOf(c).logResponses.load(l.id))?.respPayloadOriginal ?? null,
    }),
  }),
});

const MetadataEqualsInput = builder.inputType("MetadataEqualsInput", {
  fields: (t) => ({ key: t.string(), equals: t.string() }),
});

const LogFilterNotInput = builder.inputType("LogFilterNotInput", {
  description: "Values a log must differ from (a log without the field matches)",
  fields: (t) => ({
    model: t.string({ required: false }),
    statusCode: t.int({ required: false }),
    statusClass: t.string({ required: false }),
    completionId: t.string({ required: false }),
    source: t.string({ required: false }),
    provider: t.string({ required: false }),
    internalKind: t.string({ required: false }),
    api: t.string({ required: false }),
  }),
});

export const LogFilterInput = builder.inputType("LogFilterInput", {
  fields: (t) => ({
    model: t.string({ required: false }),
    statusCode: t.int({ required: false }),
    statusClass: t.string({ required: false, description: "2xx, 3xx, 4xx, 5xx, or none (no status: null or 0)" }),
    ids: t.idList({ required: false, description: "only these logs (a selection, at most 1,000)" }),
    completionId: t.string({ required: false }),
    source: t.string({ required: false, description: "gateway, report, report-anthropic or internal" }),
    provider: t.string({ required: false }),
    cacheHit: t.boolean({ required: false }),
    internal: t.boolean({
      required: false,
      description: "true: only Hone's own calls (judges, evaluations, ...); false: only the application's; absent: both",
    }),
    internalKind: t.string({ required: false, description: "judge, evaluation, alignment, relabel, playground or monitor" }),
    api: t.string({ required: false, description: "chat, responses, messages or embeddings" }),
    route: t.string({ required: false, description: "calls to this route (its slug)" }),
    routeVersion: t.string({ required: false, description: "calls a target of this rollout version answered" }),
    refused: t.boolean({ required: false, description: "true: only calls Hone refused before any upstream; false: only the others" }),
    refusal: t.string({ required: false, description: "calls refused for this reason: rate_limit, budget, unpriced, model, scope or masking" }),
    masked: t.boolean({ required: false, description: "true: only logs in which masking replaced something; false: only the others" }),
    maskedKind: t.string({ required: false, description: "only logs in which values of this kind were masked (EMAIL, CARD, ...)" }),
    traceId: t.string({ required: false, description: "only the calls of this trace" }),
    sessionId: t.string({ required: false, description: "only the calls of this session" }),
    traced: t.boolean({ required: false, description: "true: only calls in a trace; false: only the others" }),
    lastInTrace: t.boolean({
      required: false,
      description: "true: only the last call of each trace (an agent run's final answer, with the conversation before it)",
    }),
    from: t.string({ required: false, description: "logged at or after (ISO 8601)" }),
    to: t.string({ required: false, description: "logged at or before (ISO 8601)" }),
    tags: t.field({ type: [MetadataEqualsInput], required: false, description: "tag pairs: every pair must match" }),
    tagsNot: t.field({ type: [MetadataEqualsInput], required: false, description: "tag pairs: no pair may match (a log without the key matches)" }),
    metadata: t.field({
      type: [MetadataEqualsInput],
      required: false,
      description: "every pair must match",
      deprecationReason: "Use tags (the same word as tRPC's); metadata is its old name",
    }),
    metadataNot: t.field({
      type: [MetadataEqualsInput],
      required: false,
      description: "no pair may match (a log without the key matches)",
      deprecationReason: "Use tagsNot (the same word as tRPC's); metadataNot is its old name",
    }),
    tagsAbsent: t.stringList({ required: false, description: "tag keys a log must not have" }),
    not: t.field({ type: LogFilterNotInput, required: false, description: "values a log must differ from" }),
    search: t.string({ required: false, description: "case-insensitive text in the request or response" }),
  }),
});

const LogExportPage = builder.objectRef<{ lines: string[]; endCursor: string | null; hasNextPage: boolean }>("LogExportPage").implement({
  fields: (t) => ({
    lines: t.exposeStringList("lines", { description: "JSONL lines, one log each with its payloads, as GET /api/v1/logs/export writes them" }),
    endCursor: t.exposeString("endCursor", { nullable: true }),
    hasNextPage: t.exposeBoolean("hasNextPage"),
  }),
});

builder.queryFields((t) => ({
  logExportPage: t.field({
    type: LogExportPage,
    description:
      "A page of the JSONL export of the logs matching the filter (up to 200 lines, default 100), newest first; loop on endCursor. GET /api/v1/logs/export streams the whole file in one response",
    args: {
      filter: t.arg({ type: LogFilterInput, required: false }),
      first: t.arg.int({ required: false }),
      after: t.arg.string({ required: false }),
    },
    resolve: (_, a, c) => exportLogsPage(projectCtx(c), { filter: asInputOf(LogFilter, domainLogFilter(a.filter)), first: a.first, after: a.after }),
  }),
  logs: t.connection({
    type: RequestLogRef,
    description: "The project's logs, newest first",
    args: { filter: t.arg({ type: LogFilterInput, required: false }) },
    resolve: async (_, args, c) => {
      if (args.last != null || args.before != null) {
        throw new DomainError("VALIDATION", "Input validation failed", { issues: [{ message: "logs page forward only: use first and after" }] });
      }
      const page = await listLogs(projectCtx(c), { filter: asInputOf(LogFilter, domainLogFilter(args.filter)), first: args.first, after: args.after });
      return {
        edges: page.logs.map((node) => ({ cursor: Buffer.from(node.id).toString("base64url"), node })),
        pageInfo: {
          hasNextPage: page.hasNextPage,
          hasPreviousPage: false,
          startCursor: page.logs[0] ? Buffer.from(page.logs[0].id).toString("base64url") : null,
          endCursor: page.endCursor,
        },
      };
    },
  }),
  log: t.field({
    type: RequestLogRef,
    args: { id: t.arg.id() },
    resolve: (_, args, c) => getLog(projectCtx(c), { id: String(args.id) }),
  }),
}));

const LogsDeletion = builder.objectRef<{ deleted: number; done: boolean }>("LogsDeletion").implement({
  fields: (t) => ({
    deleted: t.exposeInt("deleted", { description: "logs deleted by this call (or that would be, with dryRun)" }),
    done: t.exposeBoolean("done", { description: "false: the call stopped after its time budget; call again to go on" }),
  }),
});

builder.mutationFields((t) => ({
  deleteLogs: t.field({
    type: LogsDeletion,
    description: "Deletes the project's logs matching the filter, in batches; an empty filter needs all: true",
    args: {
      filter: t.arg({ type: LogFilterInput, required: false }),
      dryRun: t.arg.boolean({ required: false }),
      all: t.arg.boolean({ required: false }),
    },
    resolve: (_, args, c) => deleteLogs(projectCtx(c), { filter: asInputOf(LogFilter, domainLogFilter(args.filter)), dryRun: args.dryRun, all: args.all }),
  }),
}));
